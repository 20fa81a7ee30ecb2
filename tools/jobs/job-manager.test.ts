import { describe, expect, it } from 'vitest';
import { createToolHost } from '../host.js';
import type { ToolEvent } from '../events.js';
import { deferred } from '../test-support.js';
import { UnknownJobError, JobStartError } from './errors.js';

const alice = { id: 'alice' };
const bob = { id: 'bob' };

function setup(options: Parameters<typeof createToolHost>[0] = {}) {
  const events: ToolEvent[] = [];
  let clock = 1000;
  const host = createToolHost({ now: () => clock, onEvent: (e) => events.push(e), ...options });
  return { host, events, tick: (ms: number) => (clock += ms) };
}

const jobEvents = (events: ToolEvent[]) => events.filter((e) => e.type.startsWith('job/')).map((e) => ({ ...e, seq: undefined, time: undefined }));

describe('host.jobs', () => {
  it('returns the canonical handle at once and runs the work in the background', async () => {
    const { host } = setup();
    const gate = deferred();
    const handle = host.jobs.start({ kind: 'bash', label: 'sleep', owner: alice, run: async () => (await gate.promise, { exitCode: 0 }) });
    expect(handle).toEqual({ kind: 'background', jobId: expect.stringMatching(/^job_[0-9a-f]{32}$/) });
    expect(Object.isFrozen(handle)).toBe(true);
    const { jobId } = handle;
    expect(host.jobs.list(alice)).toMatchObject([{ jobId, status: 'running' }]);
    gate.resolve();
    await expect(host.jobs.wait(alice, jobId)).resolves.toMatchObject({ status: 'succeeded' });
    expect(host.jobs.read(alice, jobId)).toMatchObject({ status: 'succeeded', value: { exitCode: 0 } });
  });

  it('records a throw as failed with its message', async () => {
    const { host } = setup();
    const { jobId } = host.jobs.start({ kind: 'build', label: 'b', run: () => Promise.reject(new Error('compiler crashed')) });
    await host.jobs.wait(undefined, jobId);
    expect(host.jobs.read(undefined, jobId)).toMatchObject({ status: 'failed', error: 'compiler crashed' });
  });

  it('fails a job whose value is not JSON, naming the path', async () => {
    const { host } = setup();
    const { jobId } = host.jobs.start({ kind: 'x', label: 'x', run: () => ({ when: new Date(0) }) });
    await host.jobs.wait(undefined, jobId);
    expect(host.jobs.read(undefined, jobId).error).toMatch(/not JSON: value\.when: a class instance \(Date\)/);
  });

  it('streams appended output and pages through it', async () => {
    const { host } = setup();
    const gate = deferred();
    const { jobId } = host.jobs.start({
      kind: 'bash',
      label: 'echo',
      owner: alice,
      run: async ({ append }) => {
        append('line 1\n');
        append('line 2\n');
        await gate.promise;
      },
    });
    await Promise.resolve();
    await Promise.resolve();
    const first = host.jobs.read(alice, jobId, { offset: 0, limit: 7 });
    expect(first).toMatchObject({ status: 'running', output: 'line 1\n', nextOffset: 7, outputBytes: 14 });
    expect(host.jobs.read(alice, jobId, { offset: first.nextOffset }).output).toBe('line 2\n');
    gate.resolve();
  });

  describe('when output exceeds the ring', () => {
    it('keeps the newest bytes and reports the dropped count in reads and in job/end', async () => {
      const { host, events } = setup({ jobs: { outputBytes: 8 } });
      const { jobId } = host.jobs.start({ kind: 'log', label: 'noisy', run: ({ append }) => append('0123456789ABCDEF') });
      await host.jobs.wait(undefined, jobId);
      expect(host.jobs.read(undefined, jobId)).toMatchObject({ output: '89ABCDEF', droppedBytes: 8, skippedBytes: 8, offset: 8 });
      expect(events.find((e) => e.type === 'job/end')).toMatchObject({ outputBytes: 16, droppedBytes: 8 });
    });
  });

  describe('ownership', () => {
    it("treats another owner's job exactly like an id that does not exist", () => {
      const { host } = setup();
      const { jobId } = host.jobs.start({ kind: 'bash', label: 'secret', owner: alice, run: () => new Promise(() => {}) });
      const foreign = captureError(() => host.jobs.read(bob, jobId));
      const missing = captureError(() => host.jobs.read(bob, 'job_' + '0'.repeat(32)));
      expect(UnknownJobError.isInstance(foreign)).toBe(true);
      expect((foreign as Error).message).toBe(`Unknown job "${jobId}". Call job_list to see your jobs.`);
      expect((missing as Error).message).toBe(`Unknown job "job_${'0'.repeat(32)}". Call job_list to see your jobs.`);
      expect(() => host.jobs.kill(bob, jobId)).toThrow(UnknownJobError);
      expect(() => host.jobs.read(undefined, jobId)).toThrow(UnknownJobError);
      expect(host.jobs.list(bob)).toEqual([]);
      expect(host.jobs.list(alice)).toHaveLength(1);
      host.close();
    });

    it('makes ids no one can derive from another: 128 random bits, unrelated to kind, order or host', () => {
      const { host } = setup();
      const other = setup().host;
      const never = () => new Promise(() => {});
      const ids = [
        ...Array.from({ length: 8 }, () => host.jobs.start({ kind: 'bash', label: 'x', owner: alice, run: never }).jobId),
        other.jobs.start({ kind: 'bash', label: 'x', owner: alice, run: never }).jobId,
      ];
      for (const id of ids) expect(id).toMatch(/^job_[0-9a-f]{32}$/);
      expect(new Set(ids).size).toBe(ids.length);
      // Neither the kind nor a counter shows through, and consecutive ids share no prefix beyond chance.
      expect(ids.some((id) => id.includes('bash') || /-\d+$/.test(id))).toBe(false);
      const shared = (a: string, b: string) => [...a.slice(4)].findIndex((c, i) => c !== b[4 + i]);
      expect(Math.max(...ids.slice(1).map((id, i) => shared(ids[i]!, id)))).toBeLessThan(8);
      host.close();
      other.close();
    });

    it("answers a guess at a neighbour's id exactly as a random id", () => {
      const { host } = setup();
      const { jobId } = host.jobs.start({ kind: 'bash', label: 'secret', owner: alice, run: () => new Promise(() => {}) });
      const mine = host.jobs.start({ kind: 'bash', label: 'mine', owner: bob, run: () => new Promise(() => {}) }).jobId;
      // Bob's guesses from his own id: the old sequential neighbour and the id one up in hex.
      const next = `job_${(BigInt(`0x${mine.slice(4)}`) + 1n).toString(16).padStart(32, '0')}`;
      for (const guess of ['bash-1', 'bash-2', next, jobId]) {
        const error = captureError(() => host.jobs.read(bob, guess));
        expect(UnknownJobError.isInstance(error)).toBe(true);
        expect((error as Error).message).toBe(`Unknown job "${guess}". Call job_list to see your jobs.`);
      }
      host.close();
    });

    it('finds nothing under prototype names', () => {
      const { host } = setup();
      for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        expect(() => host.jobs.read(undefined, id)).toThrow(UnknownJobError);
      }
    });
  });

  describe('when a job is killed', () => {
    it('reports killed at once, aborts its signal and ignores what run returns later', async () => {
      const { host, events } = setup();
      let signal!: AbortSignal;
      const gate = deferred<string>();
      const { jobId } = host.jobs.start({
        kind: 'bash',
        label: 'long',
        owner: alice,
        run: async (ctx) => {
          signal = ctx.signal;
          const v = await gate.promise;
          ctx.append('after kill');
          return v;
        },
      });
      await Promise.resolve();
      const info = host.jobs.kill(alice, jobId);
      expect(info.status).toBe('killed');
      expect(signal.aborted).toBe(true);
      gate.resolve('late value');
      await new Promise((r) => setTimeout(r, 0));
      const read = host.jobs.read(alice, jobId);
      expect(read).toMatchObject({ status: 'killed', error: 'killed on request', outputBytes: 0 });
      expect(read.value).toBeUndefined();
      expect(events.filter((e) => e.type === 'job/end')).toHaveLength(1);
    });

    it('leaves a finished job as it is', async () => {
      const { host } = setup();
      const { jobId } = host.jobs.start({ kind: 'x', label: 'x', run: () => 1 });
      await host.jobs.wait(undefined, jobId);
      expect(host.jobs.kill(undefined, jobId).status).toBe('succeeded');
    });
  });

  describe("when the owner is disposed", () => {
    it("kills the owner's running jobs, forgets them, and leaves other owners' jobs alone", async () => {
      const { host } = setup();
      const never = () => new Promise(() => {});
      const { jobId } = host.jobs.start({ kind: 'bash', label: 'a1', owner: alice, run: never });
      host.jobs.start({ kind: 'bash', label: 'b1', owner: bob, run: never });
      expect(host.jobs.disposeOwner(alice)).toBe(1);
      expect(host.jobs.list(alice)).toEqual([]);
      expect(() => host.jobs.read(alice, jobId)).toThrow(UnknownJobError);
      expect(host.jobs.list(bob)).toMatchObject([{ status: 'running' }]);
      host.close();
      expect(host.jobs.list(bob)).toMatchObject([{ status: 'killed' }]);
    });

    it('accepts the agent id as a string', () => {
      const { host } = setup();
      host.jobs.start({ kind: 'bash', label: 'a1', owner: alice, run: () => new Promise(() => {}) });
      expect(host.jobs.disposeOwner('alice')).toBe(1);
    });
  });

  describe('when the host is closed', () => {
    it('kills everything and refuses new jobs', () => {
      const { host } = setup();
      host.jobs.start({ kind: 'bash', label: 'x', run: () => new Promise(() => {}) });
      host.close();
      host.close();
      expect(host.jobs.list(undefined)).toMatchObject([{ status: 'killed' }]);
      expect(() => host.jobs.start({ kind: 'bash', label: 'y', run: () => 1 })).toThrow(/Cannot start job: host is closed/);
    });
  });

  describe('events', () => {
    it('emits job/start before run, coalesced job/progress, and one job/end', async () => {
      const { host, events, tick } = setup({ jobs: { progressIntervalMs: 100 } });
      const order: string[] = [];
      host.onEvent((e) => order.push(e.type));
      const { jobId } = host.jobs.start({
        kind: 'scan',
        label: 'scan files',
        owner: { id: 'alice', name: 'Alice' },
        run: ({ progress }) => {
          order.push('run');
          progress({ done: 1, total: 3 });
          progress({ done: 2, total: 3 }); // within the interval: held back
          tick(100);
          progress({ done: 3, total: 3, message: 'done' });
          progress({ done: 3, total: 3, message: 'finishing' }); // held back, flushed before the end
          return 'ok';
        },
      });
      expect(order).toEqual(['job/start']);
      await host.jobs.wait({ id: 'alice' }, jobId);
      expect(order).toEqual(['job/start', 'run', 'job/progress', 'job/progress', 'job/progress', 'job/end']);
      expect(jobEvents(events)).toEqual([
        { type: 'job/start', jobId, kind: 'scan', label: 'scan files', owner: { id: 'alice', name: 'Alice' }, seq: undefined, time: undefined },
        { type: 'job/progress', jobId, progress: { done: 1, total: 3 }, seq: undefined, time: undefined },
        { type: 'job/progress', jobId, progress: { done: 3, total: 3, message: 'done' }, seq: undefined, time: undefined },
        { type: 'job/progress', jobId, progress: { done: 3, total: 3, message: 'finishing' }, seq: undefined, time: undefined },
        { type: 'job/end', jobId, status: 'succeeded', value: 'ok', outputBytes: 0, droppedBytes: 0, durationMs: 100, seq: undefined, time: undefined },
      ]);
    });

    it('keeps only known, finite progress fields', async () => {
      const { host } = setup();
      const { jobId } = host.jobs.start({
        kind: 'x',
        label: 'x',
        run: ({ progress }) => progress({ done: Number.NaN, total: 5, message: 'm', extra: 'drop me' } as never),
      });
      await host.jobs.wait(undefined, jobId);
      expect(host.jobs.list(undefined)[0]!.progress).toEqual({ total: 5, message: 'm' });
    });
  });

  describe('limits and bad input', () => {
    it('refuses more running jobs than maxRunningPerOwner, naming the limit', () => {
      const { host } = setup({ jobs: { maxRunningPerOwner: 2 } });
      const never = () => new Promise(() => {});
      host.jobs.start({ kind: 'a', label: 'a', owner: alice, run: never });
      host.jobs.start({ kind: 'a', label: 'a', owner: alice, run: never });
      expect(() => host.jobs.start({ kind: 'a', label: 'a', owner: alice, run: never })).toThrow(/maxRunningPerOwner is 2/);
      expect(() => host.jobs.start({ kind: 'a', label: 'a', owner: bob, run: never })).not.toThrow();
      host.close();
    });

    it('forgets the oldest finished jobs beyond maxRetainedPerOwner', async () => {
      const { host } = setup({ jobs: { maxRetainedPerOwner: 2 } });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { jobId } = host.jobs.start({ kind: 'x', label: 'x', run: () => i });
        ids.push(jobId);
        await host.jobs.wait(undefined, jobId);
      }
      expect(host.jobs.list(undefined).map((j) => j.jobId)).toEqual(ids.slice(1));
    });

    it('names the bad field of start', () => {
      const { host } = setup();
      const bad = (options: unknown) => captureError(() => host.jobs.start(options as never));
      expect(JobStartError.isInstance(bad({ kind: '../x', label: 'l', run: () => 1 }))).toBe(true);
      expect((bad({ kind: '../x', label: 'l', run: () => 1 }) as Error).message).toMatch(/kind must match/);
      expect((bad({ kind: 'x', label: ' ', run: () => 1 }) as Error).message).toMatch(/label must be a non-empty string/);
      expect((bad({ kind: 'x', label: 'l' }) as Error).message).toMatch(/run must be a function/);
      expect((bad({ kind: 'x', label: 'l', run: () => 1, owner: 'alice' }) as Error).message).toMatch(/owner must be an agent ref/);
      expect((bad(null) as Error).message).toMatch(/options must be an object/);
    });

    it('refuses a non-string append with a TypeError that fails the job', async () => {
      const { host } = setup();
      const { jobId } = host.jobs.start({ kind: 'x', label: 'x', run: ({ append }) => append(42 as never) });
      await host.jobs.wait(undefined, jobId);
      expect(host.jobs.read(undefined, jobId).error).toMatch(/append\(text\) expects a string, got number/);
    });
  });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}
