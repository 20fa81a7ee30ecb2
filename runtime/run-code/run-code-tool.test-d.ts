import { describe, expectTypeOf, it } from 'vitest';
import type { Tool, ToolResult } from '../../tools/index.js';
import { createRunCodeTool, createToolSearchTool, type RunCodeOptions, type RunCodeRejected, type RunCodeSuspended, type RunCodeValue, type StrictIsolation, type ToolSearchValue } from '../index.js';

describe('createRunCodeTool types', () => {
  it('returns a tool that takes { code } and has spills and close', () => {
    const tool = createRunCodeTool({ isolation: 'isolate', typecheck: 'warn', limits: { wallMs: 1_000 } });
    expectTypeOf(tool).toMatchTypeOf<Tool>();
    expectTypeOf(tool.spills.read).parameter(0).toEqualTypeOf<string>();
    expectTypeOf(tool.close).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<NonNullable<(typeof tool)['__types']>['value']>().toEqualTypeOf<RunCodeValue | RunCodeRejected | RunCodeSuspended>();
    expectTypeOf(tool.resume).returns.toEqualTypeOf<Promise<ToolResult>>();
  });

  it('accepts only the documented isolation and typecheck modes and known limits', () => {
    expectTypeOf<RunCodeOptions['isolation']>().toEqualTypeOf<'process' | 'isolate' | StrictIsolation | undefined>();
    createRunCodeTool({ isolation: { strict: true } });
    // @ts-expect-error strict is a boolean
    createRunCodeTool({ isolation: { strict: 'yes' } });
    expectTypeOf<RunCodeOptions['typecheck']>().toEqualTypeOf<'reject' | 'warn' | 'off' | undefined>();
    // @ts-expect-error unknown limit
    createRunCodeTool({ limits: { maxBananas: 1 } });
    // @ts-expect-error not an isolation mode
    createRunCodeTool({ isolation: 'vm' });
  });

  it('names the discovery modes, and tool_search takes { query, limit? } and returns matches', () => {
    expectTypeOf<RunCodeOptions['discovery']>().toEqualTypeOf<'auto' | 'full' | 'index' | undefined>();
    // @ts-expect-error not a discovery mode
    createRunCodeTool({ discovery: 'lazy' });
    const search = createToolSearchTool();
    expectTypeOf(search).toMatchTypeOf<Tool>();
    expectTypeOf<NonNullable<(typeof search)['__types']>['argsInput']>().toEqualTypeOf<{ query: string; limit?: number }>();
    expectTypeOf<ToolSearchValue['matches'][number]>().toEqualTypeOf<{ readonly name: string; readonly callable: string; readonly description: string; readonly declaration: string }>();
  });

  it('takes the three OS sandbox modes and reports which one confined a run', () => {
    expectTypeOf<RunCodeOptions['osSandbox']>().toEqualTypeOf<'auto' | 'require' | 'off' | undefined>();
    expectTypeOf<RunCodeValue['stats']['osSandbox']>().toEqualTypeOf<'bubblewrap' | 'none'>();
    // @ts-expect-error not an OS sandbox mode
    createRunCodeTool({ osSandbox: true });
  });
});
