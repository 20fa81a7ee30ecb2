/**
 * What every shared {@link JobStore} does, run against the memory store (tools/jobs) and the Redis
 * store (test/redis-jobs.test.ts): two hosts sharing one store behave as replicas of one
 * deployment. `open()` returns two stores that share state (two connections for Redis).
 */
import { expect, it } from 'vitest';
import { createJobTools, createToolHost, JobsNeedAsyncError, JobStartError, LEASE_LOST_ERROR, UnknownJobError, type JobStore, type ToolEvent } from '../tools/index.js';

export interface SharedStores {
  readonly a: JobStore;
  readonly b: JobStore;
  close(): Promise<void>;
}

const alice = { id: 'alice' };
const mallory = { id: 'mallory' };

/** Polls `check` (a few seconds at most): cross-replica effects arrive asynchronously. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

export function jobStoreContract(name: string, open: () => Promise<SharedStores>): void {
  const withHosts = async (limits: { outputBytes?: number; maxRunningPerOwner?: number; maxRetainedPerOwner?: number; leaseMs?: number }, body: (x: { a: ReturnType<typeof createToolHost>; b: ReturnType<typeof createToolHost>; eventsA: ToolEvent[]; stores: SharedStores }) => Promise<void>) => {
    const stores = await open();
    const eventsA: ToolEvent[] = [];
    const a = createToolHost({ jobs: { store: stores.a, ...limits }, onEvent: (e) => eventsA.push(e) });
    const b = createToolHost({ jobs: { store: stores.b, ...limits } });
    a.register(createJobTools());
    b.register(createJobTools());
    try {
      await body({ a, b, eventsA, stores });
    } finally {
      a.close();
      b.close();
      await new Promise((r) => setTimeout(r, 20));
      await stores.close();
    }
  };

  it(`${name}: a job started on A is listed and read (value and output) from B, and only by its owner`, async () => {
    await withHosts({}, async ({ a, b }) => {
      const g = gate();
      const { jobId } = await a.jobs.startAsync({
        kind: 'build',
        label: 'npm run build',
        owner: alice,
        run: async ({ append, progress }) => {
          append('compiling\n');
          progress({ done: 1, total: 2, message: 'half' });
          await g.promise;
          append('done ✓\n');
          return { exitCode: 0 };
        },
      });
      const listed = await eventually(async () => {
        const jobs = await b.jobs.listAsync(alice);
        return jobs[0]?.outputBytes === 10 && jobs[0].progress ? jobs : undefined;
      }, 'output and progress reach the store');
      expect(listed).toMatchObject([{ jobId, kind: 'build', label: 'npm run build', status: 'running', progress: { done: 1, total: 2, message: 'half' } }]);
      g.open();
      const ended = await b.jobs.wait(alice, jobId);
      expect(ended).toMatchObject({ jobId, status: 'succeeded', outputBytes: 'compiling\ndone ✓\n'.length + 2 });
      expect(await b.jobs.readAsync(alice, jobId)).toMatchObject({ status: 'succeeded', value: { exitCode: 0 }, output: 'compiling\ndone ✓\n', offset: 0, droppedBytes: 0 });
      // Paging by bytes across the replicas, never splitting the character.
      expect(await b.jobs.readAsync(alice, jobId, { offset: 10, limit: 6 })).toMatchObject({ output: 'done ', nextOffset: 15 });

      // The model-facing tools on B see it too.
      const read = await b.call({ id: 'r', name: 'job_read', args: { jobId } }, { agent: alice });
      expect(read.value).toMatchObject({ status: 'succeeded', value: { exitCode: 0 } });

      // Another agent sees nothing, from either replica, and a guess at the id is an unknown id.
      expect(await b.jobs.listAsync(mallory)).toEqual([]);
      expect(await a.jobs.listAsync(undefined)).toEqual([]);
      const random = `job_${'ab'.repeat(16)}`;
      for (const [host, id] of [[b, jobId], [a, jobId], [b, random]] as const) {
        const error = await host.jobs.readAsync(mallory, id).catch((e: unknown) => e);
        expect(UnknownJobError.isInstance(error)).toBe(true);
        expect((error as Error).message).toBe(`Unknown job "${id}". Call job_list to see your jobs.`);
      }
      await expect(b.jobs.killAsync(mallory, jobId)).rejects.toThrow(UnknownJobError);
      const foreign = await b.call({ id: 'k', name: 'job_kill', args: { jobId } }, { agent: mallory });
      expect(foreign.error?.message).toBe(`"job_kill" failed: Unknown job "${jobId}". Call job_list to see your jobs.`);
    });
  });

  it(`${name}: a kill from B is final at once, aborts the run on A, and A reports job/end killed`, async () => {
    await withHosts({}, async ({ a, b, eventsA }) => {
      let signal!: AbortSignal;
      const late = gate();
      const { jobId } = await a.jobs.startAsync({
        kind: 'watch',
        label: 'tail -f',
        owner: alice,
        run: async (ctx) => {
          signal = ctx.signal;
          ctx.append('line\n');
          await late.promise;
          ctx.append('after the kill\n');
          return 'late value';
        },
      });
      await eventually(async () => (await b.jobs.readAsync(alice, jobId)).outputBytes === 5, 'the first line is shared');
      const killed = await b.call({ id: 'k', name: 'job_kill', args: { jobId } }, { agent: alice });
      expect(killed.value).toMatchObject({ killed: true, job: { jobId, status: 'killed' } });
      await eventually(() => signal.aborted, "A aborts the job's signal");
      late.open();
      await eventually(() => eventsA.some((e) => e.type === 'job/end'), 'A emits job/end');
      expect(eventsA.filter((e) => e.type === 'job/end')).toMatchObject([{ jobId, status: 'killed', error: 'killed on request' }]);
      await new Promise((r) => setTimeout(r, 30));
      const read = await a.jobs.readAsync(alice, jobId);
      expect(read).toMatchObject({ status: 'killed', error: 'killed on request', output: 'line\n' });
      expect(read.value).toBeUndefined();
      const again = await b.call({ id: 'k2', name: 'job_kill', args: { jobId } }, { agent: alice });
      expect(again.value).toMatchObject({ killed: false, job: { status: 'killed' } });
    });
  });

  it(`${name}: a running job whose replica stopped renewing reads as failed after its lease`, async () => {
    const stores = await open();
    try {
      const jobId = `job_${'1f'.repeat(16)}`;
      // A replica that started a job and then died (it never renews nor ends it).
      const created = await stores.a.create({ jobId, kind: 'bash', label: 'orphan', owner: 'alice', replica: 'replica_dead', startedAt: 1000 }, { now: 1000, leaseMs: 500, maxRunning: 16, maxRetained: 64, outputBytes: 64 });
      expect(created).toEqual({ created: true });
      expect((await stores.b.read('alice', jobId, { now: 1400 }))!.job.status).toBe('running');
      const after = await stores.b.read('alice', jobId, { now: 1600 });
      expect(after!.job).toMatchObject({ status: 'failed', error: LEASE_LOST_ERROR, endedAt: 1500 });
      // The dead replica's late end (had it come back) does not run it twice or revive it.
      expect(await stores.a.end(jobId, { replica: 'replica_dead', status: 'succeeded', endedAt: 1700, value: 1 }, { maxRetained: 64 })).toBe(false);
      expect(await stores.a.renew('replica_dead', [jobId], { now: 1700, leaseMs: 500 })).toEqual([{ jobId, status: 'failed', error: LEASE_LOST_ERROR }]);
      // Through a host: B's clock is past the lease.
      const late = createToolHost({ jobs: { store: stores.b }, now: () => 10_000 });
      expect(await late.jobs.readAsync(alice, jobId)).toMatchObject({ status: 'failed', error: LEASE_LOST_ERROR });
      late.close();
    } finally {
      await stores.close();
    }
  });

  it(`${name}: a renewal tells the running replica of a kill it missed`, async () => {
    const stores = await open();
    try {
      const jobId = `job_${'2e'.repeat(16)}`;
      await stores.a.create({ jobId, kind: 'bash', label: 'x', owner: 'alice', replica: 'replica_a', startedAt: 1 }, { now: 1, leaseMs: 1000, maxRunning: 16, maxRetained: 64, outputBytes: 64 });
      expect(await stores.a.renew('replica_a', [jobId], { now: 2, leaseMs: 1000 })).toEqual([]);
      expect(await stores.b.kill('mallory', jobId, { now: 3, reason: 'x', maxRetained: 64 })).toBeUndefined();
      expect(await stores.b.kill('alice', jobId, { now: 3, reason: 'stop it', maxRetained: 64 })).toMatchObject({ status: 'killed', error: 'stop it', endedAt: 3 });
      expect(await stores.a.renew('replica_a', [jobId], { now: 4, leaseMs: 1000 })).toEqual([{ jobId, status: 'killed', error: 'stop it' }]);
      expect(await stores.a.end(jobId, { replica: 'replica_a', status: 'succeeded', endedAt: 5 }, { maxRetained: 64 })).toBe(false);
    } finally {
      await stores.close();
    }
  });

  it(`${name}: the output ring keeps the newest bytes and counts the dropped ones`, async () => {
    await withHosts({ outputBytes: 8 }, async ({ a, b }) => {
      const { jobId } = await a.jobs.startAsync({
        kind: 'log',
        label: 'noisy',
        owner: alice,
        run: async ({ append }) => {
          append('0123');
          await new Promise((r) => setTimeout(r, 5));
          append('456789ABCDEF');
          await new Promise((r) => setTimeout(r, 5));
          append('GH');
        },
      });
      await b.jobs.wait(alice, jobId);
      expect(await b.jobs.readAsync(alice, jobId)).toMatchObject({ output: '89ABCDEFGH'.slice(2), outputBytes: 18, droppedBytes: 10, skippedBytes: 10, offset: 10 });
    });
  });

  it(`${name}: maxRunningPerOwner counts the owner's running jobs on every replica`, async () => {
    await withHosts({ maxRunningPerOwner: 2 }, async ({ a, b }) => {
      const never = () => new Promise(() => {});
      await a.jobs.startAsync({ kind: 'a', label: 'a', owner: alice, run: never });
      await b.jobs.startAsync({ kind: 'b', label: 'b', owner: alice, run: never });
      const refused = await a.jobs.startAsync({ kind: 'c', label: 'c', owner: alice, run: never }).catch((e: unknown) => e);
      expect(JobStartError.isInstance(refused)).toBe(true);
      expect((refused as Error).message).toMatch(/already has 2 running jobs \(maxRunningPerOwner is 2\)/);
      await expect(b.jobs.startAsync({ kind: 'd', label: 'd', owner: mallory, run: never })).resolves.toMatchObject({ kind: 'background' });
      // The synchronous start hands the handle back and reports the refusal as a failed job.
      const { jobId } = a.jobs.start({ kind: 'e', label: 'e', owner: alice, run: never });
      await expect(a.jobs.wait(alice, jobId)).resolves.toMatchObject({ status: 'failed' });
      expect((await a.jobs.readAsync(alice, jobId)).error).toMatch(/maxRunningPerOwner is 2/);
    });
  });

  it(`${name}: jobs created in one millisecond are listed and forgotten in the order they were created`, async () => {
    const stores = await open();
    try {
      const ids = ['f', 'a', 'c', '0'].map((c) => `job_${c.repeat(32)}`);
      const t = 1_800_000_000_000;
      for (const jobId of ids) {
        await stores.a.create({ jobId, kind: 'x', label: jobId, owner: 'alice', replica: 'r1', startedAt: t }, { now: t, leaseMs: 60_000, maxRunning: 10, maxRetained: 10, outputBytes: 1024 });
      }
      expect((await stores.b.list('alice', { now: t })).map((j) => j.jobId)).toEqual(ids);
      for (const jobId of ids) expect(await stores.a.end(jobId, { replica: 'r1', status: 'succeeded', endedAt: t, value: 1 }, { maxRetained: 2 })).toBe(true);
      expect((await stores.b.list('alice', { now: t })).map((j) => j.jobId)).toEqual(ids.slice(2));
    } finally {
      await stores.close();
    }
  });

  it(`${name}: finished jobs beyond maxRetainedPerOwner are forgotten, oldest first`, async () => {
    await withHosts({ maxRetainedPerOwner: 2 }, async ({ a, b }) => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { jobId } = await (i % 2 ? b : a).jobs.startAsync({ kind: 'x', label: `x${i}`, owner: alice, run: () => i });
        ids.push(jobId);
        await a.jobs.wait(alice, jobId);
      }
      expect((await b.jobs.listAsync(alice)).map((j) => j.jobId)).toEqual(ids.slice(1));
    });
  });

  it(`${name}: the synchronous list, read and kill refuse on a shared host`, async () => {
    await withHosts({}, async ({ a }) => {
      expect(() => a.jobs.list(alice)).toThrow(JobsNeedAsyncError);
      expect(() => a.jobs.read(alice, 'job_x')).toThrow(/call host\.jobs\.readAsync/);
      expect(() => a.jobs.kill(alice, 'job_x')).toThrow(JobsNeedAsyncError);
    });
  });

  it(`${name}: disposing an owner on one replica kills and forgets its jobs on every replica`, async () => {
    await withHosts({}, async ({ a, b }) => {
      let signal!: AbortSignal;
      const { jobId } = await a.jobs.startAsync({ kind: 'a', label: 'a', owner: alice, run: (ctx) => ((signal = ctx.signal), new Promise(() => {})) });
      await b.jobs.startAsync({ kind: 'b', label: 'b', owner: mallory, run: () => new Promise(() => {}) });
      expect(b.jobs.disposeOwner(alice)).toBe(0);
      await eventually(() => signal?.aborted, "A aborts alice's job");
      await eventually(async () => ((await a.jobs.listAsync(alice)).length === 0 ? true : undefined), "alice's jobs are forgotten");
      await expect(a.jobs.readAsync(alice, jobId)).rejects.toThrow(UnknownJobError);
      expect(await a.jobs.listAsync(mallory)).toMatchObject([{ status: 'running' }]);
    });
  });
}
