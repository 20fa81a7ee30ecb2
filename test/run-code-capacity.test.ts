import { afterAll, describe, expect, it } from 'vitest';
import { createRunCodeTool, createProcessRunner, type RunCodeTool, type RunCodeValue } from '../runtime/index.js';
import { createToolHost } from '../tools/index.js';
import { instrumentedTools } from './run-code-support.js';

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

/** A host with the instrumented tools and one run_code tool per entry of `tools`. */
function hostWith(tools: Record<string, Parameters<typeof createRunCodeTool>[0]>) {
  const host = createToolHost();
  host.register(instrumentedTools().tools);
  for (const [name, options] of Object.entries(tools)) {
    const tool: RunCodeTool = createRunCodeTool({ typecheck: 'off', ...options, name });
    opened.push(tool);
    host.register(tool);
  }
  let n = 0;
  const run = (name: string, code: string) => host.call({ id: `c${++n}`, name, args: { code } });
  return { host, run };
}

describe('when every sandbox process is busy', () => {
  /**
   * One sandbox process, held by a run that waits `busyMs` in a tool; then a second run, with
   * its own `wallMs`, has to wait for that process. Returns the second run's result and the first's.
   */
  async function queuedBehind(busyMs: number, wallMs: number, code: string) {
    const runner = createProcessRunner({ poolSize: 1, maxProcesses: 1 });
    opened.push(runner);
    // Started before the runs: the wait is then the busy run's alone, not a cold start's too
    // (a few hundred ms on a loaded machine, more under the OS sandbox).
    await runner.warmUp();
    const { run } = hostWith({ busy: { runner }, next: { runner, limits: { wallMs } } });
    const busy = run('busy', `await tools.wait({ ms: ${busyMs} }); return "busy";`);
    await new Promise((r) => setTimeout(r, 50));
    const next = await run('next', code);
    return { next, busy: await busy };
  }

  it('does not count the wait for a free process against the waiting run\'s wallMs, and reports it as queuedMs', async () => {
    // Waits ~650 ms for the process, then runs 500 ms: 1,150 ms in all, over wallMs, yet the
    // program itself took half of it.
    const { next, busy } = await queuedBehind(700, 1_000, 'await tools.wait({ ms: 500 }); return "next";');
    expect(next.isError).toBe(false);
    const value = next.value as unknown as RunCodeValue;
    expect(value.result).toBe('next');
    expect(value.stats.queuedMs).toBeGreaterThan(400);
    expect(value.stats.runMs).toBeGreaterThanOrEqual(value.stats.queuedMs);
    expect(busy.isError).toBe(false);
  });

  it('gives up after wallMs of waiting, with an error that says no process was free and the program did not run', async () => {
    const { next, busy } = await queuedBehind(1_000, 300, 'return "never";');
    expect(next.isError).toBe(true);
    expect(next.error?.message).toMatch(/No sandbox process became free within wallMs=300 ms \(all 1 were running other programs\); this program did not run/);
    expect(busy.isError).toBe(false);
  });
});

describe('capacity', () => {
  it('sets how many sandbox processes run programs at once', async () => {
    const { run } = hostWith({ one: { capacity: { maxProcesses: 1, poolSize: 1 } } });
    const [a, b] = await Promise.all([run('one', 'await tools.wait({ ms: 300 }); return 1;'), run('one', 'await tools.wait({ ms: 300 }); return 2;')]);
    const queued = [a, b].map((r) => (r.value as unknown as RunCodeValue).stats.queuedMs);
    expect(Math.max(...queued)).toBeGreaterThan(200);
  });

  it('refuses values that are not whole numbers in range, naming the option', () => {
    expect(() => createRunCodeTool({ capacity: { maxProcesses: 0 } })).toThrow(/capacity\.maxProcesses must be a whole number of at least 1, got 0/);
    expect(() => createRunCodeTool({ capacity: { maxProcesses: Number.NaN } })).toThrow(/capacity\.maxProcesses/);
    expect(() => createRunCodeTool({ capacity: { poolSize: -1 } })).toThrow(/capacity\.poolSize must be a whole number of at least 0, got -1/);
    expect(() => createRunCodeTool({ capacity: { poolSize: 1.5 } })).toThrow(/capacity\.poolSize/);
  });
});
