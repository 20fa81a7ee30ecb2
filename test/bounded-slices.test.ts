/**
 * Bounded slices (docs/run-life.md "Bounded slices"; issue 29's "a CPU-heavy program must not
 * hold its process-mates' calls"): with `sliceBoundMs`, a run's slices run on the runner's thread
 * and a slice that computes past the bound is stopped; the program is then replayed from its
 * journal in a fresh context, and goes on as if nothing happened: no call runs twice, no log is
 * written twice, limits count what the program did once, and the clock and `Math.random` it read
 * before the replay read the same after. Real isolates (the in-process runner, and sandbox
 * processes with several slots, where the bound is on by default).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createIsolateRunner, type IsolateRunner } from '../runtime/isolate/index.js';
import { createProcessRunner } from '../runtime/sandbox-process/index.js';
import { failureOf, runProgram } from './isolate-harness.js';

// Computes well past the bound of 20 ms (~100-300 ms here), whatever the clock reads: a bounded
// run reads the clock of its slice, not the time passing within it.
const burn = () => `{ let s = 0; for (let i = 0; i < 40000000; i++) s = (s * 31 + i) % 1000003; globalThis.burnt = s; }`;
/** Runs a program as runProgram does, and says how many times the runner replayed it. */
async function runCounted(runner: IsolateRunner, js: string, options: Parameters<typeof runProgram>[2] = {}) {
  const before = runner.stats().replays;
  const run = await runProgram(runner, js, options);
  return { ...run, replays: runner.stats().replays - before };
}
// Real time, for the runner without a bound.
const spin = (ms: number) => `{ const until = Date.now() + ${ms}; let x = 0; while (Date.now() < until) x++; }`;

describe('a run whose slice computes past the bound (in-process runner, sliceBoundMs 20)', () => {
  const runner = createIsolateRunner({ poolSize: 0, sliceBoundMs: 20 });
  afterAll(() => runner.close());

  it('is replayed once and returns what it would have: each call made once, each log written once, in order', async () => {
    const program = `
      const r0 = Math.random();
      const t0 = Date.now();
      console.log('before', r0);
      const a = tools.wait({ ms: 30, tag: 'a' });
      const b = tools.echo({ tag: 'b', r0 });
      const c0 = await tools.echo({ tag: 'c' });
      let spins = 0;
      for (let i = 0; i < 40000000; i++) spins = (spins * 31 + i) % 1000003;
      console.log('after', spins);
      const [ra, rb] = await Promise.all([a, b]);
      const d = await tools.echo({ tag: 'd', r1: Math.random() });
      return { tags: [ra.tag, rb.tag, c0.tag, d.tag], r0, sameR0: rb.r0 === r0, t0IsNow: Math.abs(t0 - Date.now()) < 60000, spins };`;
    const { outcome, record, value, replays } = await runCounted(runner, program);
    expect(outcome.ok).toBe(true);
    expect(replays).toBe(1);
    const v = value as { tags: string[]; r0: number; sameR0: boolean; t0IsNow: boolean; spins: number };
    expect(v.tags).toEqual(['a', 'b', 'c', 'd']);
    expect(v.sameR0).toBe(true);
    expect(v.t0IsNow).toBe(true);
    // Each tool ran once: the replay's calls were matched, not sent.
    expect(record.calls.map((c) => (JSON.parse(c.argsJson) as { tag: string }).tag)).toEqual(['a', 'b', 'c', 'd']);
    // The replay logged nothing the first pass had logged, and the log before the bound shows the r0 it returned.
    expect(record.logs.map((l) => l.text)).toEqual([`before ${v.r0}`, `after ${v.spins}`]);
  });

  it('counts calls once across the replay: three calls under maxCalls 3 succeed', async () => {
    const program = `let n = 0; for (let i = 0; i < 3; i++) n += (await tools.echo({ i })).i; ${burn()} return n;`;
    const { outcome, record, value, replays } = await runCounted(runner, program, { limits: { maxCalls: 3 } });
    expect(outcome.ok).toBe(true);
    expect(replays).toBe(1);
    expect(value).toBe(3);
    expect(record.calls).toHaveLength(3);
  });

  it('counts log bytes once across the replay', async () => {
    // 599 of the 1000 bytes before the bound, 299 after: 898 in all, under the limit (twice the first would not be).
    const program = `console.log('x'.repeat(599)); await tools.echo({}); ${burn()} console.log('y'.repeat(299)); return 1;`;
    const { outcome, record, replays } = await runCounted(runner, program, { limits: { maxLogBytes: 1000 } });
    expect(outcome.ok).toBe(true);
    expect(replays).toBe(1);
    expect(record.logs.map((l) => l.text.length)).toEqual([599, 299]);
  });

  it('still ends a program that never stops at its cpuMs, naming the limit', async () => {
    const { outcome, record, replays } = await runCounted(runner, `await tools.echo({ n: 1 }); while (true) {}`, { limits: { cpuMs: 400 } });
    expect(failureOf(outcome)).toMatchObject({ kind: 'limit', limit: 'cpuMs' });
    expect(replays).toBe(1);
    expect(record.calls).toHaveLength(1);
    // The replay did not count the first pass's CPU twice, nor run far past the limit.
    expect(outcome.cpuMs).toBeLessThan(400 * 3);
  });

  it('counts the CPU of microtasks left spinning after the program returned, across the replay: the run ends at cpuMs', async () => {
    const { outcome, replays } = await runCounted(runner, 'await tools.echo({}); const spin = () => Promise.resolve().then(spin); spin(); return "done";', { limits: { cpuMs: 300 } });
    expect(failureOf(outcome)).toMatchObject({ kind: 'limit', limit: 'cpuMs' });
    expect(replays).toBe(1);
  });

  it('keeps the outcome of a call that settled during the replay', async () => {
    // 'wait' (5 ms) settles while the program computes: its outcome waits for the slice, then for the replay.
    const program = `const w = tools.wait({ ms: 5 }); await tools.echo({}); ${burn()} const r = await w; return r.ms;`;
    const { outcome, value, record, replays } = await runCounted(runner, program);
    expect(outcome.ok).toBe(true);
    expect(replays).toBe(1);
    expect(value).toBe(5);
    expect(record.calls).toHaveLength(2);
  });

  it('replays a program that computes in its first slice, before any call', async () => {
    const { outcome, value, record, replays } = await runCounted(runner, `${burn()} return (await tools.echo({ k: 7 })).k;`);
    expect(outcome.ok).toBe(true);
    expect(replays).toBe(1);
    expect(value).toBe(7);
    expect(record.calls).toHaveLength(1);
  });

  it('leaves a run that stays under the bound alone: no replay', async () => {
    const { value, replays } = await runCounted(runner, 'let n = 0; for (let i = 0; i < 20; i++) n += (await tools.echo({ i })).i; return n;');
    expect(value).toBe(190);
    expect(replays).toBe(0);
  });
});

describe('sliceBoundMs itself', () => {
  it('is refused when it is not a number of milliseconds of at least 1, naming the option', () => {
    for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '20']) {
      expect(() => createIsolateRunner({ poolSize: 0, sliceBoundMs: bad as number })).toThrow(/createIsolateRunner: sliceBoundMs must be a number of milliseconds, at least 1/);
    }
  });
});

describe('a run without sliceBoundMs', () => {
  const runner = createIsolateRunner({ poolSize: 0 });
  afterAll(() => runner.close());

  it('reads the real clock within a slice, and is never replayed', async () => {
    const { value, replays } = await runCounted(runner, `const t0 = Date.now(); ${spin(60)} return Date.now() - t0;`);
    expect(value as number).toBeGreaterThanOrEqual(60);
    expect(runner.stats().replays).toBe(0);
  });
});

describe('in a sandbox process with several slots (the default bound)', () => {
  const runner = createProcessRunner({ poolSize: 0, maxProcesses: 1, runsPerProcess: 2, osSandbox: 'off' });
  afterAll(() => runner.close());

  it('a program computing past the bound beside a mate making calls: both finish, the mate first, each call once', async () => {
    const ended: string[] = [];
    const heavy = runProgram(runner, `const a = await tools.echo({ n: 1 }); let s = 0; for (let i = 0; i < 30000000; i++) s += i % 3; return a.n + s;`, { group: 'agent' }).then((r) => (ended.push('heavy'), r));
    const mate = runProgram(runner, 'let n = 0; for (let i = 0; i < 20; i++) n += (await tools.echo({ i })).i; return n;', { group: 'agent' }).then((r) => (ended.push('mate'), r));
    const [h, m] = await Promise.all([heavy, mate]);
    expect(m.value).toBe(190);
    expect(h.outcome.ok).toBe(true);
    expect(h.record.calls).toHaveLength(1);
    expect(ended).toEqual(['mate', 'heavy']);
  });
});

describe('a bounded run that cannot or need not be replayed', () => {
  const runner = createIsolateRunner({ poolSize: 0, sliceBoundMs: 20 });
  afterAll(() => runner.close());

  it('drops a journal past its cap (64 Ki characters) once that slice is over, and computes on unbounded after, never replayed', async () => {
    const { outcome, value, replays } = await runCounted(runner, `const big = await tools.big({ bytes: 100000 }); await tools.echo({}); ${burn()} return big.length;`);
    expect(outcome.ok).toBe(true);
    expect(value).toBe(100_000);
    expect(replays).toBe(0);
  });

  it('ends at an abort during the replay, as aborted, and runs no tool again', async () => {
    const controller = new AbortController();
    const long = `{ let s = 0; for (let i = 0; i < 4000000000; i++) s = (s * 31 + i) % 1000003; globalThis.burnt = s; }`;
    setTimeout(() => controller.abort(new Error('stop')), 300);
    const { outcome, record, replays } = await runCounted(runner, `await tools.echo({ n: 1 }); ${long} return 1;`, { signal: controller.signal, limits: { cpuMs: 20_000, wallMs: 20_000 } });
    expect(failureOf(outcome)).toMatchObject({ kind: 'aborted' });
    expect(record.calls).toHaveLength(1);
    expect(outcome.wallMs).toBeLessThan(5_000);
  });
});
