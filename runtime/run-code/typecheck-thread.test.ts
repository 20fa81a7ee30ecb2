import { describe, expect, it } from 'vitest';
import { TypecheckThread, type TypecheckOutcome } from './typecheck-thread.js';

const noTools = { declarations: '', toolNames: new Map<string, string>() };

/** Five lines whose type is a union of 2^n nested tuples: TypeScript's time grows with 2^n (n = 16: many seconds). */
const typeBomb = (n: number) => `type Tup<N extends number, A extends 0[] = []> = A['length'] extends N ? A : Tup<N, [...A, 0]>;
type Leaves<T, N extends unknown[]> = N extends [unknown, ...infer R] ? Leaves<[T, 0], R> | Leaves<[T, 1], R> : T;
type X = Leaves<'s', Tup<${n}>>;
const x: X = 1 as unknown as [[0]];
return 1;`;

describe('TypecheckThread', () => {
  it('checks on its thread, keeping the diagnostics positioned in the program', async () => {
    const thread = new TypecheckThread(512);
    const outcome = await thread.check('const n: number = "x";\nreturn n;', noTools, 10_000);
    expect(outcome.ok && outcome.result.diagnostics.map((d) => [d.line, d.column])).toEqual([[1, 7]]);
  });

  it('fails the waiting checks with the reason when TypeScript itself does not fit the heap limit, instead of restarting forever', async () => {
    const thread = new TypecheckThread(16);
    const outcomes = await Promise.all([thread.check('return 1;', noTools, 10_000), thread.check('return 2;', noTools, 10_000)]);
    for (const outcome of outcomes) {
      expect(outcome.ok).toBe(false);
      expect(!outcome.ok && 'reason' in outcome && outcome.reason).toMatch(/^could not start: the type checker (needed more than 16 MB of memory|failed|stopped)/);
    }
  });
});

describe('the type-check queue, between agents', () => {
  it("checks another agent's trivial program before the four pathological programs queued ahead of it", async () => {
    const thread = new TypecheckThread(512);
    const order: string[] = [];
    const check = (label: string, code: string, agent: string) =>
      thread.check(code, noTools, 300, { agent }).then((outcome) => {
        order.push(label);
        return outcome;
      });
    // All queued before the thread is up: A's first is served first, then B's, then A's others.
    const a = [0, 1, 2, 3, 4].map((i) => check(`a${i}`, typeBomb(16), 'agent-a'));
    const b = check('b', 'return 6 * 7;', 'agent-b');
    const [bOutcome, ...aOutcomes] = await Promise.all([b, ...a]);
    expect(order).toEqual(['a0', 'b', 'a1', 'a2', 'a3', 'a4']);
    expect(bOutcome.ok && bOutcome.result.ok).toBe(true);
    for (const outcome of aOutcomes) expect(!outcome.ok && 'limit' in outcome && outcome.limit).toBe('timeMs');
  }, 120_000);

  it("refuses an agent's check over maxQueued, naming the cap, and queues other agents'", async () => {
    const thread = new TypecheckThread(512);
    const mine = [1, 2, 3].map((i) => thread.check(`return ${i};`, noTools, 10_000, { agent: 'agent-a', maxQueued: 2 }));
    const theirs = thread.check('return 4;', noTools, 10_000, { agent: 'agent-b', maxQueued: 2 });
    const refused = await mine[2]!;
    expect(refused).toMatchObject({ ok: false, refused: 'busy', queuedMs: 0 });
    expect(!refused.ok && refused.reason).toBe('2 type checks of agent "agent-a" are already waiting (typecheckLimits.maxQueuedPerAgent=2)');
    for (const outcome of await Promise.all([mine[0]!, mine[1]!, theirs])) expect(outcome.ok).toBe(true);
  }, 60_000);

  it('takes a check out of the queue when its wait limit passes, before the thread is free', async () => {
    const thread = new TypecheckThread(512);
    await thread.check('return 0;', noTools, 10_000);
    const settled: string[] = [];
    const bomb = thread.check(typeBomb(16), noTools, 1_500, { agent: 'agent-a' }).then((o) => (settled.push('bomb'), o));
    const waiting = thread.check('return 1;', noTools, 10_000, { agent: 'agent-b', waitLimitMs: 50 }).then((o) => (settled.push('waiting'), o));
    const outcome: TypecheckOutcome = await waiting;
    expect(outcome).toMatchObject({ ok: false, refused: 'wallMs', reason: 'did not start within 50 ms' });
    expect(outcome.queuedMs).toBeGreaterThanOrEqual(40);
    await bomb;
    // The bomb was still being checked when the waiting check left the queue.
    expect(settled).toEqual(['waiting', 'bomb']);
  }, 60_000);

  it('replaces a thread killed for a timeout by a spare at once, so the next check starts no thread of its own', async () => {
    const thread = new TypecheckThread(512);
    expect((await thread.check('return 0;', noTools, 10_000)).ok).toBe(true);
    expect(thread.threadsStarted).toBe(1);
    const killed = await thread.check(typeBomb(16), noTools, 300);
    expect(!killed.ok && 'limit' in killed && killed.limit).toBe('timeMs');
    // The spare was started when the thread was killed, before anyone asked for a check.
    expect(thread.threadsStarted).toBe(2);
    const next = await thread.check('const n: number = "x";\nreturn n;', noTools, 10_000);
    expect(next.ok && next.result.diagnostics.length).toBe(1);
    expect(thread.threadsStarted).toBe(2);
  }, 60_000);
});
