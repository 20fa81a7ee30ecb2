/**
 * The runner seam of durable runs (docs/run-life.md): with `determinism`, the guest's
 * Math.random is seeded, its Date reads the recorded clock, every batch a relay bridge delivers
 * is exactly one slice with its own clock, and the relay hears the end of each slice after its
 * calls. Both runners, real isolates and real sandbox processes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createIsolateRunner, createProcessRunner, type ProgramRunner, type RunOutcome, type RunRequest } from '../runtime/index.js';
import type { OutcomeBatch, RelayBridge, SliceReport } from '../runtime/isolate/index.js';
import { testLimits } from './isolate-harness.js';

const SEED = '0123456789abcdef0123456789abcdef';
const T0 = 1_700_000_000_000;

/** A relay that answers each call with `{ n: id }` in its own batch at `clockOf(id)`, once the slice that made it ended. */
function scriptedRelay(clockOf: (id: number) => number | undefined) {
  const events: string[] = [];
  let deliver: ((items: OutcomeBatch, clockMs?: number) => void) | undefined;
  const queued: number[] = [];
  const relay: RelayBridge = {
    call: async () => ({ ok: false, toolName: '', message: 'relay only' }),
    log: (_level, text) => events.push(`log ${text}`),
    relayCalls(items) {
      for (let i = 0; i < items.length; i += 3) {
        events.push(`call ${items[i]} ${items[i + 1]}`);
        queued.push(items[i] as number);
      }
    },
    attach(d) {
      deliver = d;
    },
    sliceEnded(report: SliceReport) {
      events.push(`slice ${report.calls}`);
      const id = queued.shift();
      if (id !== undefined) queueMicrotask(() => deliver!([id, 1, JSON.stringify({ n: id }), ''], clockOf(id)));
    },
  };
  return { relay, events };
}

function request(js: string, determinism: RunRequest['determinism'] | null = { seed: SEED, clockMs: T0 }): RunRequest {
  return { js, toolNames: ['t'], limits: testLimits(), ...(determinism ? { determinism } : {}) };
}

async function run(runner: ProgramRunner, js: string, clockOf: (id: number) => number | undefined = (id) => T0 + 1000 * id, determinism?: RunRequest['determinism']) {
  const { relay, events } = scriptedRelay(clockOf);
  const outcome: RunOutcome = await runner.run(request(js, determinism), relay, new AbortController().signal);
  return { outcome, events, value: outcome.ok ? JSON.parse(outcome.resultJson) : outcome.failure };
}

const RANDOMS = `const a = []; for (let i = 0; i < 5; i++) a.push(Math.random()); return a;`;

describe.each([
  ['isolate', () => createIsolateRunner({ poolSize: 1 })],
  ['process', () => createProcessRunner({ poolSize: 1, osSandbox: 'off' })],
] as const)('a deterministic run in the %s runner', (_name, make) => {
  const runner = make();
  afterAll(() => runner.close());

  it('seeds Math.random: the same seed gives the same numbers, another seed others', async () => {
    const first = await run(runner, RANDOMS);
    const again = await run(runner, RANDOMS);
    const other = await run(runner, RANDOMS, undefined, { seed: 'f'.repeat(32), clockMs: T0 });
    expect(first.value).toHaveLength(5);
    for (const x of first.value as number[]) expect(x >= 0 && x < 1).toBe(true);
    expect(new Set(first.value as number[]).size).toBe(5);
    expect(again.value).toEqual(first.value);
    expect(other.value).not.toEqual(first.value);
  });

  it('reads the start clock, plus 1 ms per reading, in every form of "now"', async () => {
    const { value } = await run(
      runner,
      `return [Date.now(), new Date().getTime(), typeof Date(), new Date(0).getTime(), Date.UTC(2020, 0, 1), new Date() instanceof Date,
        new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', year: 'numeric' }).format(), class X extends Date {} && new (class extends Date {})().getTime()];`,
    );
    expect(value).toEqual([T0, T0 + 1, 'string', 0, Date.UTC(2020, 0, 1), true, String(new Date(T0).getUTCFullYear()), T0 + 5]);
  });

  it('delivers each batch as one slice with its clock, and reports every slice after its calls', async () => {
    const { value, events } = await run(
      runner,
      `const seen = [Date.now()];
       const a = await tools.t({});
       seen.push(Date.now(), Date.now());
       const [b, c] = await Promise.all([tools.t({}), tools.t({})]);
       seen.push(Date.now());
       console.log('done');
       return { seen, got: [a.n, b.n, c.n] };`,
    );
    expect(value).toEqual({ seen: [T0, T0 + 1000, T0 + 1001, T0 + 3000], got: [1, 2, 3] });
    expect(events).toEqual(['call 1 t', 'slice 1', 'call 2 t', 'call 3 t', 'slice 3', 'slice 3', 'log done']);
  });

  it('without determinism, keeps the real clock and an unseeded Math.random, and reports no slices', async () => {
    const { relay, events } = scriptedRelay(() => undefined);
    const before = Date.now();
    const outcome = await runner.run(request(`return [Date.now(), Math.random() !== Math.random()];`, null), relay, new AbortController().signal);
    const [now, differs] = JSON.parse((outcome as { resultJson: string }).resultJson) as [number, boolean];
    expect(now).toBeGreaterThanOrEqual(before);
    expect(differs).toBe(true);
    expect(events).toEqual([]);
  });
});
