/**
 * `await sleep(ms)` end to end, in real isolates and real sandbox processes, through the real
 * bridge: it waits (in wall time, not CPU time), it is no tool call, it is bounded, and it ends
 * with the run (a wall-time limit, an abort). Time bounds here are generous lower or upper bounds
 * where the bound is not the point; the exact timer arithmetic is tested on an injected clock in
 * bridge/run-sleeps.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_SLEEPS_AT_ONCE } from '../codegen/index.js';
import type { RunCodeTool, RunCodeValue } from '../runtime/index.js';
import { defineTool } from '../tools/index.js';
import { runCodeHost, runnerModes } from './run-code-support.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

describe.each(runnerModes())('sleep in a program (%s)', (mode) => {
  const setup = (limits: { cpuMs?: number; wallMs?: number; maxCalls?: number } = {}) => {
    const s = runCodeHost(mode, { limits });
    opened.push(s.runCode);
    return s;
  };

  it('waits in wall time, not CPU time, and is no tool call (the program is type-checked with it)', async () => {
    const s = setup({ cpuMs: 150 });
    await s.value('return 0;'); // start the sandbox before the timed run
    const started = performance.now();
    const v = await s.value('let slept = 0;\nfor (let i = 0; i < 4; i++) { await sleep(100); slept += 100; }\nreturn slept;');
    expect(v.result).toBe(400);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(v.stats.cpuMs).toBeLessThan(150); // 400 ms of sleep against a 150 ms CPU budget
    expect(v.calls).toEqual([]);
    expect(s.events.filter((e) => (e.type === 'tool/ptc-dispatch' || e.type === 'tool/call' || e.type === 'ptc/call-refused') && e.toolName !== 'run_code')).toEqual([]);
  });

  it('lets a program wait before retrying a rate-limited call', async () => {
    const s = setup();
    let attempts = 0;
    s.host.register(
      defineTool({
        name: 'quote',
        description: 'A price quote. Rate limited: when it fails with "rate limited", repeat the call.',
        output: { schema: { type: 'number' } },
        execute: () => {
          if (++attempts < 3) throw new Error('rate limited');
          return 42;
        },
      }),
    );
    const v = await s.value(`
      for (let attempt = 0; ; attempt++) {
        try { return await tools.quote(); }
        catch (e) { if (attempt >= 5 || !e.message.includes('rate limited')) throw e; await sleep(20 * 2 ** attempt); }
      }`);
    expect(v.result).toBe(42);
    expect(v.calls.map((c) => [c.tool, c.status])).toEqual([
      ['quote', 'error'],
      ['quote', 'error'],
      ['quote', 'ok'],
    ]);
  });

  it('is not counted in maxCalls, and at most MAX_SLEEPS_AT_ONCE wait at once', async () => {
    const s = setup({ maxCalls: 2 });
    const v = await s.value(`
      const waits = [];
      for (let i = 0; i < ${MAX_SLEEPS_AT_ONCE}; i++) waits.push(sleep(30));
      let refused = '';
      try { await sleep(1); } catch (e) { refused = e.message; }
      await Promise.all(waits);
      await tools.echo({ text: 'a' });
      await tools.echo({ text: 'b' });
      return refused;`);
    expect(v.result).toBe(`sleep(ms) was refused: ${MAX_SLEEPS_AT_ONCE} sleeps of this run are already waiting, the most at once.`);
    expect(v.calls.map((c) => c.tool)).toEqual(['echo', 'echo']);
  });

  it('ends with the wall-time error when the program sleeps past wallMs', async () => {
    const s = setup({ wallMs: 600 });
    await s.value('return 0;');
    const started = performance.now();
    const r = await s.run('await sleep(10000);\nreturn 1;');
    expect(r.isError).toBe(true);
    expect(r.error?.message).toContain('wallMs=600');
    expect(s.events.filter((e) => e.type === 'ptc/run-end').at(-1)).toMatchObject({ outcome: 'limit', limit: { name: 'wallMs', value: 600 } });
    expect(performance.now() - started).toBeLessThan(8_000); // not the 10 s the program asked for
    expect(((await s.value('return 2;')) as RunCodeValue).result).toBe(2);
  });

  it('ends at once when the run is aborted during a sleep', async () => {
    const s = setup();
    await s.value('return 0;');
    const controller = new AbortController();
    const started = performance.now();
    const pending = s.run('await sleep(10000);\nreturn 1;', controller.signal);
    setTimeout(() => controller.abort(new Error('user pressed stop')), 200);
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(r.error?.message).toMatch(/cancelled/);
    expect(performance.now() - started).toBeLessThan(8_000);
  });
});
