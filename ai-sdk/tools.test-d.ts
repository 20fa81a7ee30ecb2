import type { ToolSet } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import type { JsonValue, ToolHost } from '../tools/index.js';
import { toAiSdkTools, type AiSdkToolOutput, type AiSdkToolsOptions, type DeniedToolOutput } from './index.js';

describe('the public types of ptc-runtime/ai-sdk', () => {
  it('take a host and options, and give an AI SDK ToolSet', () => {
    expectTypeOf(toAiSdkTools).parameters.toEqualTypeOf<[ToolHost, AiSdkToolsOptions?]>();
    expectTypeOf(toAiSdkTools).returns.toEqualTypeOf<ToolSet>();
  });

  it('carry no any', () => {
    expectTypeOf<AiSdkToolOutput>().not.toBeAny();
    expectTypeOf<AiSdkToolOutput>().toEqualTypeOf<JsonValue | DeniedToolOutput>();
    expectTypeOf<AiSdkToolsOptions['approval']>().toEqualTypeOf<'host' | 'framework' | undefined>();
    expectTypeOf<AiSdkToolsOptions['include']>().toEqualTypeOf<readonly string[] | undefined>();
  });

  it('refuse an approval mode that does not exist', () => {
    const host = {} as ToolHost;
    // @ts-expect-error 'auto' is not an approval mode
    toAiSdkTools(host, { approval: 'auto' });
  });
});
