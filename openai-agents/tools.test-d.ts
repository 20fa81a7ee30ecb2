import { Agent, type FunctionTool } from '@openai/agents-core';
import { describe, expectTypeOf, it } from 'vitest';
import type { DeniedBy, JsonValue, ToolErrorKind, ToolHost } from '../tools/index.js';
import { agentsCallData, toAgentsTools, type AgentsCallData, type AgentsToolsOptions } from './index.js';

describe('the public types of ptc-runtime/openai-agents', () => {
  it('take a host and options, and give Agents SDK function tools', () => {
    expectTypeOf(toAgentsTools).parameters.toEqualTypeOf<[ToolHost, AgentsToolsOptions?]>();
    expectTypeOf(toAgentsTools).returns.toEqualTypeOf<FunctionTool[]>();
  });

  it('fit an agent whatever its context type', () => {
    const host = {} as ToolHost;
    const agent = new Agent<{ userId: string }>({ name: 'a', tools: toAgentsTools(host) });
    expectTypeOf(agent).toEqualTypeOf<Agent<{ userId: string }, 'text'>>();
  });

  it('carry no any', () => {
    expectTypeOf<AgentsCallData>().not.toBeAny();
    expectTypeOf<AgentsCallData['value']>().toEqualTypeOf<JsonValue | undefined>();
    expectTypeOf<NonNullable<AgentsCallData['denied']>['by']>().toEqualTypeOf<DeniedBy>();
    expectTypeOf<NonNullable<AgentsCallData['error']>['kind']>().toEqualTypeOf<ToolErrorKind>();
    expectTypeOf(agentsCallData).parameters.toEqualTypeOf<[unknown]>();
    expectTypeOf(agentsCallData).returns.toEqualTypeOf<AgentsCallData | undefined>();
    expectTypeOf<AgentsToolsOptions['approval']>().toEqualTypeOf<'host' | 'framework' | undefined>();
    expectTypeOf<AgentsToolsOptions['programmaticCallers']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<AgentsToolsOptions['include']>().toEqualTypeOf<readonly string[] | undefined>();
  });

  it('refuse an approval mode that does not exist', () => {
    const host = {} as ToolHost;
    // @ts-expect-error 'auto' is not an approval mode
    toAgentsTools(host, { approval: 'auto' });
  });
});
