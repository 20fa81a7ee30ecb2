/**
 * The host measures a sandbox process from `/proc/<pid>/stat`, which it opens once and re-reads
 * from offset 0 (sandbox-process.ts, `usage`): the readings must be fresh each time (the kernel
 * writes the file anew on each read, not once per open), agree with what `statm` says, and the
 * descriptor must be closed when the process exits.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SandboxProcess, type SandboxExit } from '../runtime/sandbox-process/sandbox-process.js';
import { resolveWorkerEntry } from '../runtime/sandbox-process/worker-entry.js';
import type { WorkerToHost } from '../runtime/sandbox-process/wire.js';
import { testLimits } from './isolate-harness.js';

/** Paths this process has open that name `/proc/<pid>/...`. */
function openProcFiles(pid: number): string[] {
  const paths: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`/proc/${pid}/`)) paths.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return paths;
}

describe.skipIf(!existsSync('/proc/self/stat'))('when the host measures a sandbox process', () => {
  it('reads fresh memory and CPU time from one open file, and closes it once the process exited', async () => {
    const proc = await SandboxProcess.spawn({ entry: await resolveWorkerEntry(), cwd: tmpdir(), memoryMb: 64, startTimeoutMs: 15_000 });
    const pid = proc.pid!;
    const first = proc.usage();
    expect(first).toBeDefined();
    const statmMb = (Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096) / (1024 * 1024);
    expect(Math.abs(first!.rssMb - statmMb)).toBeLessThan(8);
    expect(openProcFiles(pid)).toEqual([`/proc/${pid}/stat`]);

    // A program that burns CPU for 800 ms of wall time: the next reading of the same descriptor
    // must show it. (Under load the process gets a share of a core: at load 4 on 2 vCPUs, about
    // half, so 800 ms of spinning is still well over the 200 ms asserted.)
    const done = new Promise<WorkerToHost>((resolve) => (proc.onMessage = resolve));
    const js = 'const until = Date.now() + 800; while (Date.now() < until); return 1;';
    proc.send({ t: 'run', runId: 1, request: { js, toolNames: [], limits: testLimits() } });
    expect(await done).toMatchObject({ t: 'done', runId: 1, outcome: { ok: true, resultJson: '1' } });
    const second = proc.usage();
    expect(second!.cpuMs - first!.cpuMs).toBeGreaterThanOrEqual(200);
    expect(proc.cpuMs()).toBeGreaterThanOrEqual(second!.cpuMs);

    const exited = new Promise<SandboxExit>((resolve) => (proc.onExit = resolve));
    proc.kill('the test is over');
    expect((await exited).signal).toBe('SIGKILL');
    expect(proc.usage()).toBeUndefined();
    expect(openProcFiles(pid)).toEqual([]);
  });
});
