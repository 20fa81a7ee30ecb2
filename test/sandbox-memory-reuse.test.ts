/**
 * A sandbox process keeps much of the memory a heavy run freed (the allocator holds on to it),
 * and `rssMb` reads the whole process: before this was handled, the same program passed and
 * failed rssMb=256 on alternate runs, each failing run charged with what the one before left.
 * A run gets a process holding at most a quarter of its `rssMb` more than a fresh one. (The heavy
 * run peaks near 256 MB, so it gets its own larger rssMb: its limit is not what is tested.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createProcessRunner, type ProcessEvent, type ProcessRunOutcome } from '../runtime/sandbox-process/index.js';
import type { RunOutcome } from '../runtime/program-runner.js';
import { runProgram } from './isolate-harness.js';

/** The sandboxed worker a run ran in (the process runner adds it to every outcome). */
const pidOf = (outcome: RunOutcome) => (outcome as ProcessRunOutcome).pid;

describe('when a run leaves memory in its sandbox process', () => {
  const events: ProcessEvent[] = [];
  const runner = createProcessRunner({ poolSize: 1, maxProcesses: 1, onProcessEvent: (e) => events.push(e) });
  afterAll(() => runner.close());
  const limits = { rssMb: 256, maxArgBytes: 2 << 20, maxResultBytes: 1 << 20, cpuMs: 20_000, wallMs: 60_000 };

  it('reuses a process that holds little more than when it started', async () => {
    const first = await runProgram(runner, 'return (await tools.echo({ n: 1 })).n;', { limits });
    const second = await runProgram(runner, 'return (await tools.echo({ n: 2 })).n;', { limits });
    expect([first.value, second.value]).toEqual([1, 2]);
    expect(pidOf(first.outcome)).toBeDefined();
    expect(pidOf(second.outcome)).toBe(pidOf(first.outcome));
  });

  it('gives the next run a fresh process, not one holding what the heavy run left', async () => {
    // 64 echoes of 1 MB at once: their copies in the worker's own heap outlive the run. (The
    // program keeps only their lengths, and its isolate has room for a batch of them: with 64 MB
    // whether it ran out of memory depended on how the results were batched.)
    const heavy = await runProgram(runner, "const s = 'z'.repeat(1_000_000); const rs = await Promise.all(Array.from({ length: 64 }, () => tools.echo({ s }).then((r) => r.s.length))); return rs.length;", { limits: { ...limits, memoryMb: 96, rssMb: 512 } });
    expect(heavy.value, JSON.stringify(heavy.outcome).slice(0, 600)).toBe(64);
    // The next run's rssMb (128) allows a process 32 MB over a fresh one: the heavy run left
    // about 64 MB, so the bound is not a coin toss on how much the allocator gave back.
    const next = await runProgram(runner, 'return 1;', { limits: { ...limits, rssMb: 128 } });
    expect(next.value).toBe(1);
    expect(pidOf(next.outcome)).not.toBe(pidOf(heavy.outcome));
    expect(events).toContainEqual(expect.objectContaining({ kind: 'exited', pid: pidOf(heavy.outcome), detail: expect.stringMatching(/^it kept \d+ MB of resident memory from its runs$/) }));
  }, 120_000); // 128 MB through the bridge and back: over 20 s at a load of 25 on two cores
});
