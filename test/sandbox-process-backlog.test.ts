/**
 * A large result streams to its sandbox process in parts (tools/result-text-stream.ts), and the
 * host's walk waits between slices while frames pile up for the pipe (`writeBacklog`), so that
 * the worker parses each part while the walk makes the next. The wait must end when the frames
 * are written, and must end anyway when the process does not read: a stopped process, here.
 */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SandboxProcess, type SandboxExit } from '../runtime/sandbox-process/sandbox-process.js';
import { resolveWorkerEntry } from '../runtime/sandbox-process/worker-entry.js';

/** A part of a result for a run the worker does not have: read off the pipe, then dropped. */
function part(chars: number) {
  return { t: 'results' as const, runId: 999, items: [1, 3, 'x'.repeat(chars), ''] };
}

describe('the wait for frames to reach a sandbox process', () => {
  it('is none while little waits, ends when the worker read it all, and ends when the worker does not read', async () => {
    const proc = await SandboxProcess.spawn({ entry: await resolveWorkerEntry(), cwd: tmpdir(), memoryMb: 64, startTimeoutMs: 15_000 });
    const pid = proc.pid!;
    try {
      expect(proc.writeBacklog(0, 1_000)).toBeUndefined();

      process.kill(pid, 'SIGSTOP');
      for (let i = 0; i < 4; i++) proc.send(part(512 * 1024));
      const stalled = proc.writeBacklog(256 * 1024, 300);
      expect(stalled).toBeInstanceOf(Promise);
      // A stopped process reads nothing: the wait ends by its bound, saying so.
      expect(await stalled).toBe(false);

      process.kill(pid, 'SIGCONT');
      proc.send(part(512 * 1024));
      const resumed = proc.writeBacklog(0, 60_000);
      expect(resumed).toBeInstanceOf(Promise);
      expect(await resumed).toBe(true);
      expect(proc.writeBacklog(0, 1_000)).toBeUndefined();
    } finally {
      process.kill(pid, 'SIGCONT');
      const exited = new Promise<SandboxExit>((resolve) => (proc.onExit = resolve));
      proc.kill('the test is over');
      await exited;
    }
    expect(proc.writeBacklog(0, 1_000)).toBeUndefined();
  });
});

describe('small outcome frames sent in one turn of the event loop', () => {
  it('go out in one write, and a large frame sent after them goes out after them, at once', async () => {
    const proc = await SandboxProcess.spawn({ entry: await resolveWorkerEntry(), cwd: tmpdir(), memoryMb: 64, startTimeoutMs: 15_000 });
    try {
      const before = proc.writes;
      for (let i = 0; i < 10; i++) proc.send(part(100));
      expect(proc.writes).toBe(before);
      await new Promise((r) => setImmediate(r));
      expect(proc.writes).toBe(before + 1);

      for (let i = 0; i < 3; i++) proc.send(part(100));
      // A frame over the coalescing size writes the three waiting first (one write), then itself.
      proc.send(part(64 * 1024));
      expect(proc.writes).toBe(before + 3);
      await new Promise((r) => setImmediate(r));
      expect(proc.writes).toBe(before + 3);
    } finally {
      const exited = new Promise<SandboxExit>((resolve) => (proc.onExit = resolve));
      proc.kill('the test is over');
      await exited;
    }
  });
});
