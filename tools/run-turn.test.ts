import { describe, expect, it } from 'vitest';
import { defineTool } from './define-tool.js';
import { createToolHost } from './host.js';
import { deferred } from './test-support.js';
import type { ToolCall } from './types.js';

/** Tools whose bodies block until the test releases them, recording overlap. */
function instrumentedHost(maxConcurrency: number) {
  const host = createToolHost({ maxConcurrency });
  const running = new Set<string>();
  const log: string[] = [];
  let maxParallel = 0;
  const gates = new Map<string, ReturnType<typeof deferred<void>>>();
  const overlapsOfExclusive: string[] = [];
  const gate = (id: string) => {
    let g = gates.get(id);
    if (!g) gates.set(id, (g = deferred()));
    return g;
  };
  const body = (kind: 'p' | 'x') => async (args: { id: string }, exec: { signal: AbortSignal }) => {
    if (kind === 'x' && running.size > 0) overlapsOfExclusive.push(`${args.id} started with ${[...running]}`);
    for (const other of running) if (other.startsWith('x')) overlapsOfExclusive.push(`${args.id} started during ${other}`);
    running.add(args.id);
    maxParallel = Math.max(maxParallel, running.size);
    log.push(`start ${args.id}`);
    try {
      await Promise.race([
        gate(args.id).promise,
        new Promise((_, reject) => exec.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
      ]);
    } finally {
      running.delete(args.id);
      log.push(`end ${args.id}`);
    }
    return args.id;
  };
  const params = { id: { type: 'string', required: true } } as const;
  host.register(defineTool({ name: 'par', description: 'Parallel.', parameters: params, isConcurrencySafe: true, execute: body('p') }));
  host.register(defineTool({ name: 'exc', description: 'Exclusive.', parameters: params, execute: body('x') }));
  const release = (id: string) => gate(id).resolve();
  const tick = () => new Promise((r) => setTimeout(r, 2));
  return { host, log, running, release, tick, maxParallel: () => maxParallel, overlapsOfExclusive };
}

const p = (id: string): ToolCall => ({ id, name: 'par', args: { id } });
const x = (id: string): ToolCall => ({ id, name: 'exc', args: { id: `x${id}` } });

describe('runTurn scheduling', () => {
  it('never exceeds the pool bound and refills as soon as any call ends', async () => {
    const t = instrumentedHost(2);
    const turn = t.host.runTurn([p('a'), p('b'), p('c'), p('d')]);
    await t.tick();
    expect([...t.running]).toEqual(['a', 'b']);
    t.release('b');
    await t.tick();
    expect([...t.running].sort()).toEqual(['a', 'c']);
    t.release('c');
    await t.tick();
    expect([...t.running].sort()).toEqual(['a', 'd']);
    t.release('a');
    t.release('d');
    await turn;
    expect(t.maxParallel()).toBe(2);
  });

  it('an exclusive call is a barrier: it waits for everything before it, and nothing starts until it ends', async () => {
    const t = instrumentedHost(4);
    const turn = t.host.runTurn([p('a'), p('b'), x('1'), p('c'), x('2')]);
    await t.tick();
    expect([...t.running].sort()).toEqual(['a', 'b']);
    t.release('a');
    await t.tick();
    expect([...t.running]).toEqual(['b']);
    t.release('b');
    await t.tick();
    expect([...t.running]).toEqual(['x1']);
    t.release('x1');
    await t.tick();
    expect([...t.running]).toEqual(['c']);
    t.release('c');
    await t.tick();
    expect([...t.running]).toEqual(['x2']);
    t.release('x2');
    await turn;
    expect(t.overlapsOfExclusive).toEqual([]);
  });

  it('presents results in call order when later calls finish first', async () => {
    const t = instrumentedHost(3);
    const turn = t.host.runTurn([p('a'), p('b'), p('c')]);
    await t.tick();
    t.release('c');
    await t.tick();
    t.release('b');
    await t.tick();
    t.release('a');
    const results = await turn;
    expect(t.log.filter((l) => l.startsWith('end'))).toEqual(['end c', 'end b', 'end a']);
    expect(results.map((r) => r.value)).toEqual(['a', 'b', 'c']);
  });

  it('an aborted turn cancels calls not yet started and signals running ones', async () => {
    const t = instrumentedHost(2);
    const controller = new AbortController();
    const turn = t.host.runTurn([p('a'), p('b'), p('c'), x('1')], { signal: controller.signal });
    await t.tick();
    controller.abort();
    const results = await turn;
    expect(results.map((r) => r.error?.kind)).toEqual(['aborted', 'aborted', 'aborted', 'aborted']);
    expect(results[0]!.error?.message).toMatch(/while running/);
    expect(results[2]!.error?.message).toMatch(/before it started/);
    expect(t.log).not.toContain('start c');
    expect(t.log).not.toContain('start x1');
    expect(t.running.size).toBe(0);
  });

  it('holds under random mixes: no exclusive overlap, bound respected, order kept', async () => {
    for (let round = 0; round < 20; round++) {
      const host = createToolHost({ maxConcurrency: 3 });
      let running = 0;
      let exclusiveRunning = false;
      let violations = 0;
      let peak = 0;
      const make = (name: string, parallel: boolean) =>
        defineTool({
          name,
          description: name,
          parameters: { n: { type: 'integer', required: true } },
          isConcurrencySafe: parallel,
          execute: async (args) => {
            if (exclusiveRunning || (!parallel && running > 0)) violations++;
            running++;
            peak = Math.max(peak, running);
            if (!parallel) exclusiveRunning = true;
            await new Promise((r) => setTimeout(r, (args.n * 7) % 4));
            if (!parallel) exclusiveRunning = false;
            running--;
            return args.n;
          },
        });
      host.register([make('par', true), make('exc', false)]);
      const calls = Array.from({ length: 25 }, (_, n) => ({ id: String(n), name: (n * 31 + round) % 5 === 0 ? 'exc' : 'par', args: { n } }));
      const results = await host.runTurn(calls);
      expect(results.map((r) => r.value)).toEqual(calls.map((c) => c.args.n));
      expect(violations).toBe(0);
      expect(peak).toBeLessThanOrEqual(3);
    }
  });
});
