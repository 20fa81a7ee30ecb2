/**
 * Isolate reuse (issue 29, docs/run-life.md "Groups, slots and isolates"): a run of a group gets a
 * fresh context in an isolate kept from the group's earlier clean run, and nothing the earlier
 * program left (globals, builtin prototypes, Symbol.for data, pending promises) is visible to it.
 * Real isolates, run by the in-process runner (the sandbox worker runs the same code).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createIsolateRunner, type IsolateRunner } from '../runtime/isolate/index.js';
import type { RunRequest } from '../runtime/program-runner.js';
import { echoBridge, testLimits, TOOL_NAMES } from './isolate-harness.js';

function request(js: string, group: string | undefined, limits = testLimits()): RunRequest {
  return { js, toolNames: [...TOOL_NAMES], limits, ...(group !== undefined ? { group } : {}) };
}

/** Waits until the runner keeps `kept` isolates (the fresh context is prepared after the run). */
async function keptReaches(runner: IsolateRunner, kept: number): Promise<void> {
  for (let i = 0; i < 400 && runner.stats().kept < kept; i++) await new Promise((r) => setTimeout(r, 5));
}

async function run(runner: IsolateRunner, js: string, group: string | undefined, limits = testLimits()) {
  const { bridge, record } = echoBridge();
  const outcome = await runner.run(request(js, group, limits), bridge, new AbortController().signal);
  return { outcome, record };
}

const value = (outcome: { ok: boolean; resultJson?: string }): unknown => (outcome.ok ? JSON.parse(outcome.resultJson!) : outcome);

describe('when runs of one group follow each other on a reused isolate', () => {
  const runner = createIsolateRunner({ poolSize: 1, isolateRuns: 8 });
  afterAll(() => runner.close());

  it('gives the second run a fresh context in the same isolate', async () => {
    const first = await run(runner, 'return 1', 'g-basic');
    expect(first.outcome.startup.source).not.toBe('reused');
    await keptReaches(runner, 1);
    const second = await run(runner, 'return 2', 'g-basic');
    expect(second.outcome.startup.source).toBe('reused');
    expect(value(second.outcome)).toBe(2);
  });

  it('shows the next run none of the globals, builtin prototypes or Symbol.for data the previous run left', async () => {
    const poison = `
      globalThis.leaked = 'global';
      var leakedVar = 'var';
      Array.prototype.leaked = 'array';
      Object.prototype.leakedObject = 'object';
      String.prototype.leakedString = 'string';
      Function.prototype.leakedFn = 'fn';
      Math.random = () => 0.5;
      JSON.stringify = () => '"poisoned"';
      const key = Symbol.for('ptc-leak');
      globalThis[key] = 'symbol-global';
      Object.prototype[key] = 'symbol-proto';
      try { tools.echo = () => 'hijacked'; } catch {}
      return 'poisoned';`;
    expect(value((await run(runner, poison, 'g-leak')).outcome)).toBe('poisoned');
    await keptReaches(runner, 2);
    const probe = `
      const key = Symbol.for('ptc-leak');
      return {
        global: typeof leaked, globalVar: typeof leakedVar,
        array: [].leaked, object: ({}).leakedObject, string: ''.leakedString, fn: (function () {}).leakedFn,
        random: Math.random() === 0.5 && Math.random() === 0.5,
        stringify: JSON.stringify(1),
        symbolGlobal: globalThis[key], symbolProto: ({})[key],
        symbols: Object.getOwnPropertySymbols(globalThis).map(String),
        echo: await tools.echo({ x: 1 }),
      };`;
    const second = await run(runner, probe, 'g-leak');
    expect(second.outcome.startup.source).toBe('reused');
    expect(value(second.outcome)).toEqual({
      global: 'undefined',
      globalVar: 'undefined',
      random: false,
      stringify: '1',
      symbols: [],
      echo: { x: 1 },
    });
  });

  it('runs nothing a promise of the previous run left pending, and gives the next run no WeakRef to watch the heap with', async () => {
    // The first program leaves a call in flight whose continuation would write a log line and
    // a global; its run ends first, so the outcome is never delivered to it.
    const leave = `
      tools.wait({ ms: 30 }).then(() => { console.log('late continuation'); globalThis.after = 1; });
      Promise.resolve().then(() => { globalThis.microtask = 1; });
      return typeof WeakRef + ' ' + typeof FinalizationRegistry;`;
    const first = await run(runner, leave, 'g-pending');
    expect(value(first.outcome)).toBe('undefined undefined');
    await keptReaches(runner, 3);
    await new Promise((r) => setTimeout(r, 60)); // the left call settles meanwhile
    const second = await run(runner, `await tools.wait({ ms: 40 }); return [typeof after, typeof microtask, typeof WeakRef];`, 'g-pending');
    expect(second.outcome.startup.source).toBe('reused');
    expect(value(second.outcome)).toEqual(['undefined', 'undefined', 'undefined']);
    expect(second.record.logs).toEqual([]);
    expect(first.record.logs).toEqual([]);
  });

  it('never hands one group the isolate of another, nor a kept isolate to a run without a group', async () => {
    await run(runner, 'globalThis.mine = 1; return 1', 'g-own');
    await keptReaches(runner, 4);
    const other = await run(runner, 'return typeof mine', 'g-other');
    expect(other.outcome.startup.source).not.toBe('reused');
    const none = await run(runner, 'return 1', undefined);
    expect(none.outcome.startup.source).not.toBe('reused');
  });
});

describe('when the next run of a group arrives before its isolate has a fresh context', () => {
  it('claims that isolate and has the context made at once, with nothing of the last run in it', async () => {
    // The fresh context is scheduled 200 ms after a run (a sandbox process waits 3 ms).
    const runner = createIsolateRunner({ poolSize: 0, isolateRuns: 8, cleanupDelayMs: 200 });
    try {
      const first = await run(runner, 'globalThis.leaked = 1; Object.prototype.poisoned = 2; return 1', 'g-claim');
      expect(first.outcome.startup.source).toBe('cold');
      const second = await run(runner, 'return [typeof leaked, typeof ({}).poisoned]', 'g-claim');
      expect(second.outcome.startup.source).toBe('reused');
      expect(value(second.outcome)).toEqual(['undefined', 'undefined']);
      expect(runner.stats()).toMatchObject({ coldStarts: 1, reusedStarts: 1, claimedStarts: 1 });
      // The first run's scheduled preparation found the isolate taken and did nothing; the
      // second run's made its fresh context: one isolate kept, not two.
      await new Promise((r) => setTimeout(r, 250));
      expect(runner.stats().kept).toBe(1);
      expect((await run(runner, 'return 3', 'g-claim')).outcome.startup.source).toBe('reused');
      expect(runner.stats()).toMatchObject({ coldStarts: 1, reusedStarts: 2, claimedStarts: 1 });
    } finally {
      await runner.close();
    }
  });

  it('waits for a preparation already under way instead of making a second isolate', async () => {
    const runner = createIsolateRunner({ poolSize: 0, isolateRuns: 8 });
    try {
      await run(runner, 'return 1', 'g-under-way');
      // The preparation starts in the next turn (setImmediate, queued first); the run comes after it.
      await new Promise((r) => setImmediate(r));
      expect(runner.stats().kept).toBe(0);
      const second = await run(runner, 'return 2', 'g-under-way');
      expect(second.outcome.startup.source).toBe('reused');
      expect(runner.stats()).toMatchObject({ coldStarts: 1, claimedStarts: 1 });
    } finally {
      await runner.close();
    }
  });

  it('never lets another group, or a run without one, claim it', async () => {
    const runner = createIsolateRunner({ poolSize: 0, isolateRuns: 8, cleanupDelayMs: 200 });
    try {
      await run(runner, 'globalThis.mine = 1; return 1', 'g-first');
      const other = await run(runner, 'return typeof mine', 'g-second');
      expect(other.outcome.startup.source).toBe('cold');
      expect(value(other.outcome)).toBe('undefined');
      expect((await run(runner, 'return 1', undefined)).outcome.startup.source).toBe('cold');
      expect(runner.stats().claimedStarts).toBe(0);
    } finally {
      await runner.close();
    }
  });
});

describe('when an isolate may not be kept', () => {
  it('disposes it after isolateRuns runs', async () => {
    const runner = createIsolateRunner({ poolSize: 1, isolateRuns: 3 });
    try {
      const sources: string[] = [];
      for (let i = 0; i < 4; i++) {
        const { outcome } = await run(runner, 'return 1', 'g-count');
        sources.push(outcome.startup.source);
        if (i < 2) await keptReaches(runner, 1);
      }
      expect(sources.map((s) => (s === 'reused' ? 'reused' : 'new'))).toEqual(['new', 'reused', 'reused', 'new']);
    } finally {
      await runner.close();
    }
  });

  it('disposes it after a run that filled its heap, a limit, or an abort', async () => {
    const runner = createIsolateRunner({ poolSize: 1, isolateRuns: 8 });
    try {
      const fill = await run(runner, 'const a = []; for (;;) a.push(new Array(1e5).fill(1));', 'g-heap', testLimits({ memoryMb: 32 }));
      expect(fill.outcome.ok ? 'ok' : fill.outcome.failure.kind).toBe('limit');
      const afterHeap = await run(runner, 'return typeof a', 'g-heap', testLimits({ memoryMb: 32 }));
      expect(afterHeap.outcome.startup.source).not.toBe('reused');
      expect(value(afterHeap.outcome)).toBe('undefined');

      const cpu = await run(runner, 'for (;;) {}', 'g-cpu', testLimits({ cpuMs: 50 }));
      expect(cpu.outcome.ok ? 'ok' : cpu.outcome.failure.kind).toBe('limit');
      expect((await run(runner, 'return 1', 'g-cpu')).outcome.startup.source).not.toBe('reused');

      const controller = new AbortController();
      const { bridge } = echoBridge();
      const aborted = runner.run(request('await tools.wait({ ms: 5000 })', 'g-abort'), bridge, controller.signal);
      setTimeout(() => controller.abort(new Error('stop')), 20);
      expect((await aborted).ok).toBe(false);
      expect((await run(runner, 'return 1', 'g-abort')).outcome.startup.source).not.toBe('reused');
    } finally {
      await runner.close();
    }
  });

  it('disposes it when the run left more than half its heap in use', async () => {
    const runner = createIsolateRunner({ poolSize: 1, isolateRuns: 8 });
    try {
      // ~24 MB of a 32 MB heap stays reachable from the global at the run's end.
      const big = await run(runner, 'globalThis.keep = []; for (let i = 0; i < 30; i++) keep.push(new Array(1e5).fill(i)); return keep.length', 'g-big', testLimits({ memoryMb: 32 }));
      expect(value(big.outcome)).toBe(30);
      await new Promise((r) => setTimeout(r, 20));
      expect(runner.stats().kept).toBe(0);
      expect((await run(runner, 'return 1', 'g-big', testLimits({ memoryMb: 32 }))).outcome.startup.source).not.toBe('reused');
    } finally {
      await runner.close();
    }
  });

  it('reuses nothing with isolateRuns 1 (strict)', async () => {
    const runner = createIsolateRunner({ poolSize: 1, isolateRuns: 1 });
    try {
      for (let i = 0; i < 3; i++) expect((await run(runner, 'return 1', 'g-strict')).outcome.startup.source).not.toBe('reused');
      expect(runner.stats().reusedStarts).toBe(0);
    } finally {
      await runner.close();
    }
  });
});
