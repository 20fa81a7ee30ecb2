/**
 * Fairness between agents at run_code's level: the type-check queue (its per-agent cap, its wait
 * counted in wallMs), the type-check cache, and the bound on a run's total approval wait.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createToolHost, decision, defineTool, type ApprovalChannel, type ToolHost, type ToolResult } from '../tools/index.js';
import { createRunCodeTool, type RunCodeOptions, type RunCodeTool, type RunCodeValue } from '../runtime/index.js';
import { TypecheckThread, typecheckThread } from '../runtime/run-code/typecheck-thread.js';
import { checkerIdentity, TypecheckCache } from '../runtime/run-code/typecheck-cache.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Five lines whose type is a union of 2^n nested tuples (n = 16: seconds of TypeScript's time). */
const typeBomb = (n: number) => `type Tup<N extends number, A extends 0[] = []> = A['length'] extends N ? A : Tup<N, [...A, 0]>;
type Leaves<T, N extends unknown[]> = N extends [unknown, ...infer R] ? Leaves<[T, 0], R> | Leaves<[T, 1], R> : T;
type X = Leaves<'s', Tup<${n}>>;
const x: X = 1 as unknown as [[0]];
return 1;`;

function setup(options: RunCodeOptions & { approval?: ApprovalChannel } = {}) {
  const { approval, ...runOptions } = options;
  const host: ToolHost = createToolHost(approval ? { approval } : {});
  host.register(defineTool({ name: 'echo', description: 'Echo.', parameters: { text: { type: 'string', required: true } }, isConcurrencySafe: true, execute: (args) => ({ echoed: args.text }) }));
  const runCode = createRunCodeTool({ isolation: 'isolate', warmup: false, ...runOptions, host });
  host.register(runCode);
  opened.push(runCode);
  let n = 0;
  const run = (code: string, agent = 'agent-a'): Promise<ToolResult> => host.call({ id: `run_${++n}`, name: 'run_code', args: { code } }, { agent: { id: agent } });
  return { host, runCode, run };
}

// A heap size no other test file uses: this file's runs get a type-check thread of their own.
const MEMORY_MB = 448;

describe('the type-check queue, seen from run_code', () => {
  it("fails a run whose wallMs passes while it waits behind another agent's check, naming wallMs", async () => {
    const { run } = setup({ limits: { wallMs: 400 }, typecheckLimits: { timeMs: 3_000, memoryMb: MEMORY_MB } });
    // The thread is warm: the wait below is the other agent's check, not a cold start.
    await typecheckThread(MEMORY_MB).check('return 0;', { declarations: '', toolNames: new Map() }, 10_000);
    const checks = vi.spyOn(TypecheckThread.prototype, 'check');
    const bomb = run(typeBomb(16), 'agent-a');
    await vi.waitFor(() => expect(checks).toHaveBeenCalledTimes(1));
    const waiting = await run('return 6 * 7;', 'agent-b');
    expect(waiting.isError).toBe(true);
    expect(waiting.error?.message).toBe("\"run_code\" failed: The run was stopped by the limit wallMs=400: it waited that long for the type checker (busy with other runs' checks); this program did not run.");
    await bomb;
  }, 60_000);

  it("refuses a check over the agent's maxQueuedPerAgent with a typecheck-busy error naming the cap; other agents' runs go on", async () => {
    const { run } = setup({ typecheckLimits: { timeMs: 3_000, memoryMb: MEMORY_MB, maxQueuedPerAgent: 1 } });
    // A warm thread: the first check is being checked (not queued) when the next two come.
    await typecheckThread(MEMORY_MB).check('return 0;', { declarations: '', toolNames: new Map() }, 10_000);
    const checks = vi.spyOn(TypecheckThread.prototype, 'check');
    const running = run(typeBomb(16), 'agent-a');
    await vi.waitFor(() => expect(checks).toHaveBeenCalledTimes(1));
    const queued = run('return 1;', 'agent-a');
    const refused = await run('return 2;', 'agent-a');
    expect(refused.isError).toBe(true);
    expect(refused.error?.message).toBe(
      '"run_code" failed: The program was not run: the type checker is busy: 1 type checks of agent "agent-a" are already waiting (typecheckLimits.maxQueuedPerAgent=1). Wait for a run to finish, then call run_code again.',
    );
    const other = await run('return 3;', 'agent-b');
    expect((other.value as unknown as RunCodeValue).result).toBe(3);
    expect((await queued).isError).toBe(false);
    await running;
  }, 60_000);
});

describe('the type-check cache', () => {
  it('checks an identical program once, and again when the program or the declarations change', async () => {
    const { host, run } = setup({ typecheckLimits: { memoryMb: MEMORY_MB } });
    const checks = vi.spyOn(TypecheckThread.prototype, 'check');
    const program = 'const r = await tools.echo({ text: "hi" });\nreturn r;';
    expect((await run(program)).value).toMatchObject({ result: { echoed: 'hi' } });
    expect((await run(program, 'agent-b')).value).toMatchObject({ result: { echoed: 'hi' } });
    expect(checks).toHaveBeenCalledTimes(1);
    // A type error found once is found again from the cache, and still refuses the program.
    const bad = 'const n: number = "x";\nreturn n;';
    expect((await run(bad)).value).toMatchObject({ reason: 'types' });
    expect((await run(bad)).value).toMatchObject({ reason: 'types' });
    expect(checks).toHaveBeenCalledTimes(2);
    expect((await run(`${program}\n// changed`)).value).toMatchObject({ result: { echoed: 'hi' } });
    expect(checks).toHaveBeenCalledTimes(3);
    host.register(defineTool({ name: 'other', description: 'Another tool.', execute: () => 1 }));
    expect((await run(program)).value).toMatchObject({ result: { echoed: 'hi' } });
    expect(checks).toHaveBeenCalledTimes(4);
  }, 60_000);

  it('with typecheckCache: false, checks every program', async () => {
    const { run } = setup({ typecheckCache: false, typecheckLimits: { memoryMb: MEMORY_MB } });
    const checks = vi.spyOn(TypecheckThread.prototype, 'check');
    await run('return 1;');
    await run('return 1;');
    expect(checks).toHaveBeenCalledTimes(2);
  }, 60_000);

  it('keys a check by the TypeScript version and compiler options as well, and drops the least recently used entry', () => {
    const types = { declarations: 'declare const tools: {};', toolNames: new Map<string, string>() };
    const base = new TypecheckCache(2, checkerIdentity({ strict: true }, '5.0.0'));
    const key = base.keyOf('return 1;', types);
    expect(new TypecheckCache(2, checkerIdentity({ strict: false }, '5.0.0')).keyOf('return 1;', types)).not.toBe(key);
    expect(new TypecheckCache(2, checkerIdentity({ strict: true }, '5.0.1')).keyOf('return 1;', types)).not.toBe(key);
    expect(base.keyOf('return 1;', { ...types, declarations: `${types.declarations} ` })).not.toBe(key);
    expect(base.keyOf('return 1;', types)).toBe(key);
    const result = { ok: true, diagnostics: [] };
    base.set('a', result);
    base.set('b', result);
    base.get('a');
    base.set('c', result);
    expect([base.get('a'), base.get('b'), base.get('c')]).toEqual([result, undefined, result]);
  });

  it('refuses a cache size that is not a positive integer, naming the option', () => {
    expect(() => createRunCodeTool({ typecheckCache: { size: 0 } })).toThrow(/createRunCodeTool: typecheckCache must be false, or \{ size \}/);
  });
});

describe("a run's total approval wait (limits.approvalWaitMs)", () => {
  it('denies the asks of a run nobody answers as unavailable once approvalWaitMs is spent, and the run goes on to its result', async () => {
    const approval: ApprovalChannel = { request: () => new Promise(() => {}) };
    const { host, run } = setup({ approval, typecheck: "off", limits: { approvalWaitMs: 200 } });
    host.hooks.preExecute((execution) => (execution.toolName === 'echo' ? decision.ask('a person must look') : undefined));
    const result = await run(`
      const outcomes = [];
      for (const text of ['a', 'b', 'c']) {
        try { outcomes.push((await tools.echo({ text })).echoed); } catch (e) { outcomes.push(e.message); }
      }
      return outcomes;`);
    expect(result.isError).toBe(false);
    const value = result.value as unknown as RunCodeValue;
    const outcomes = value.result as string[];
    expect(outcomes).toHaveLength(3);
    for (const o of outcomes) expect(o).toContain('unavailable: the run already waited approvalWaitMs=200 ms in all for approvals');
    expect(value.stats.approvalWaitMs).toBeGreaterThanOrEqual(190);
  }, 30_000);
});
