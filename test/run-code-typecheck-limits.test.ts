import { afterAll, describe, expect, it } from 'vitest';
import { createRunCodeTool, TypecheckLimitsError, type RunCodeRejected, type RunCodeTool, type RunCodeValue } from '../runtime/index.js';
import { runCodeHost } from './run-code-support.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

/** Five lines whose type is a union of 2^n nested tuples: TypeScript's time and memory grow with 2^n. */
const typeBomb = (n: number) => `type Tup<N extends number, A extends 0[] = []> = A['length'] extends N ? A : Tup<N, [...A, 0]>;
type Leaves<T, N extends unknown[]> = N extends [unknown, ...infer R] ? Leaves<[T, 0], R> | Leaves<[T, 1], R> : T;
type X = Leaves<'s', Tup<${n}>>;
const x: X = 1 as unknown as [[0]];
return 1;`;

/** Largest gap between ticks of a 10 ms interval while `work` runs: how long this thread was blocked. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  try {
    return { value: await work(), stallMs };
  } finally {
    clearInterval(tick);
  }
}

describe('the type check of a program is bounded (its types are model input)', () => {
  it('abandons a check over typecheckLimits.timeMs without blocking the host, and the next check works', async () => {
    const s = runCodeHost('isolate', { typecheckLimits: { timeMs: 300 } });
    opened.push(s.runCode);
    await s.value('return (await tools.echo({ text: "warm" })).echoed;');
    const { value: bomb, stallMs } = await longestStall(() => s.run(typeBomb(16)));
    expect(bomb.value).toEqual({
      rejected: 'The program was not run: its type check could not be completed.',
      reason: 'typecheck-incomplete',
      diagnostics: [{ line: 1, column: 1, message: "The type check did not finish within 300 ms (typecheckLimits.timeMs=300): the program's types are too complex to check; simplify them." }],
    } satisfies RunCodeRejected);
    // On the host's own thread this check ran for many seconds (2^14 leaves: 9 s here) with
    // nothing else running; now the host keeps ticking.
    expect(stallMs).toBeLessThan(2_000);
    const bad = await s.run('const n: number = (await tools.echo({ text: "x" })).echoed;\nreturn n;');
    expect((bad.value as unknown as RunCodeRejected).diagnostics[0]?.message).toMatch(/not assignable to type 'number'/);
    expect((bad.value as unknown as RunCodeRejected).reason).toBe('types');
    expect((await s.value('return (await tools.echo({ text: "next" })).echoed;')).result).toBe('next');
  });

  it('ends a check over typecheckLimits.memoryMb in its thread only', async () => {
    const s = runCodeHost('isolate', { typecheckLimits: { timeMs: 120_000, memoryMb: 192 } });
    opened.push(s.runCode);
    const bomb = await s.run(typeBomb(16));
    expect((bomb.value as unknown as RunCodeRejected).diagnostics).toEqual([
      { line: 1, column: 1, message: "The type check needed more than 192 MB of memory (typecheckLimits.memoryMb=192): the program's types are too complex to check; simplify them." },
    ]);
    expect((await s.value('return (await tools.echo({ text: "next" })).echoed;')).result).toBe('next');
    // Filling 192 MB of the checker's heap is CPU work: 10-15 s alone, over 30 s on a loaded machine.
  }, 90_000);

  it('with typecheck: warn, runs a program whose check was abandoned and says it ran unchecked', async () => {
    const s = runCodeHost('isolate', { typecheck: 'warn', typecheckLimits: { timeMs: 300 } });
    opened.push(s.runCode);
    const v = await s.value(typeBomb(16));
    expect(v.result).toBe(1);
    expect((v as RunCodeValue).diagnostics?.[0]?.message).toMatch(/did not finish within 300 ms .* The program ran unchecked\.$/);
  });

  it('refuses limits that are not positive integers, naming the option', () => {
    expect(() => createRunCodeTool({ typecheckLimits: { timeMs: 0 } })).toThrow('createRunCodeTool: typecheckLimits.timeMs must be an integer from 1 to 2147483647, got 0');
    expect(() => createRunCodeTool({ typecheckLimits: { memoryMb: 8 } })).toThrow(/typecheckLimits\.memoryMb must be an integer from 64/);
    expect(() => createRunCodeTool({ typecheckLimits: { cpuMs: 5 } as never })).toThrow('createRunCodeTool: typecheckLimits.cpuMs must be a known limit name (known: timeMs, memoryMb, maxQueuedPerAgent), got 5');
    expect(() => createRunCodeTool({ typecheckLimits: { timeMs: 1.5 } })).toThrow(TypecheckLimitsError);
  });
});
