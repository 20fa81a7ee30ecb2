import type Anthropic from '@anthropic-ai/sdk';
import type { BetaToolResultBlockParam } from '@anthropic-ai/sdk/resources/beta/messages';
import type { Message, MessageCreateParams, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expectTypeOf, it } from 'vitest';
import type { ToolHost } from '../tools/index.js';
import {
  runToolUses,
  toAnthropicRunnableTools,
  toAnthropicTools,
  type AnthropicAllowedCaller,
  type AnthropicRunnableTool,
  type AnthropicRunnableToolsOptions,
  type AnthropicToolsOptions,
  type RunToolUsesOptions,
} from './index.js';

describe('the public types of ptc-runtime/anthropic', () => {
  it('take a host and options, and give the SDK\'s own types', () => {
    expectTypeOf(toAnthropicTools).parameters.toEqualTypeOf<[ToolHost, AnthropicToolsOptions?]>();
    expectTypeOf(toAnthropicTools).returns.toEqualTypeOf<Tool[]>();
    expectTypeOf(runToolUses).returns.toEqualTypeOf<Promise<ToolResultBlockParam[]>>();
    expectTypeOf(toAnthropicRunnableTools).parameters.toEqualTypeOf<[ToolHost, AnthropicRunnableToolsOptions?]>();
    expectTypeOf(toAnthropicRunnableTools).returns.toEqualTypeOf<AnthropicRunnableTool[]>();
  });

  it('carry no any', () => {
    expectTypeOf<AnthropicToolsOptions['providerCodeExecution']>().not.toBeAny();
    expectTypeOf<AnthropicAllowedCaller>().toEqualTypeOf<'direct' | 'code_execution_20250825' | 'code_execution_20260120' | 'code_execution_20260521'>();
    expectTypeOf<Parameters<AnthropicRunnableTool['run']>[0]>().toBeUnknown();
    expectTypeOf<ReturnType<AnthropicRunnableTool['parse']>>().toBeUnknown();
    expectTypeOf<RunToolUsesOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>();
  });

  it('fit where the SDK takes them: create\'s tools, a user message, the beta API and the tool runner', () => {
    const host = {} as ToolHost;
    const client = {} as Anthropic;
    const tools = toAnthropicTools(host, { providerCodeExecution: true });
    expectTypeOf(tools).toExtend<MessageCreateParams['tools']>();
    expectTypeOf<ToolResultBlockParam>().toExtend<BetaToolResultBlockParam>();
    const reply = {} as Message;
    void runToolUses(host, reply, { agent: { id: 'a' } }).then((content) => client.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content }] }));
    client.beta.messages.toolRunner({ model: 'm', max_tokens: 1, messages: [], tools: toAnthropicRunnableTools(host) });
  });

  it('refuse a caller that does not exist', () => {
    const host = {} as ToolHost;
    // @ts-expect-error 'code_execution' is not a version
    toAnthropicTools(host, { providerCodeExecution: 'code_execution' });
    // @ts-expect-error 'direct' alone is not a code execution version
    toAnthropicTools(host, { providerCodeExecution: 'direct' });
  });
});
