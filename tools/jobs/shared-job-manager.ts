/**
 * The job manager of a host whose jobs are shared through a {@link JobStore} (replicas behind a
 * load balancer). Same invariants as the memory manager (tools/jobs/job-manager.ts), across
 * replicas:
 * - A job runs where it was started; the store holds its record, output ring and lease. Other
 *   replicas list, read and kill it through the store, owner-checked there.
 * - Output and progress are written in order, batched per job (one write in flight per job); the
 *   end is written after the last output. `wait` on this replica resolves after that write.
 * - Kill crosses replicas: a kill through the store is final at once there; the running replica
 *   learns from `watchKills` (at once) or from its next lease renewal (every `leaseMs / 3`), then
 *   aborts the job's signal and emits `job/end` itself.
 * - A replica that stops renewing leaves its running jobs to be failed by the next reader.
 * - Events (`job/start`, `job/progress`, `job/end`) are emitted by the replica running the job.
 */
import { randomBytes } from 'node:crypto';
import type { JobProgressInfo, UnstampedEvent } from '../events.js';
import { InvalidOptionError, errorText } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { AgentRef } from '../types.js';
import { JobStartError, JobsNeedAsyncError, UnknownJobError } from './errors.js';
import { checkStart, cleanProgress, jobLimits, launchJob, newJobId, ownerKeyOf, ownerOfEvent, pageOf, tooManyRunning, untilAborted } from './job-start.js';
import type { JobStore, StoredJob } from './job-store.js';
import type { JobInfo, JobManager, JobManagerOptions, JobReadResult, JobRunContext, JobStatus } from './job-types.js';

/** How often `wait` reads the store for a job another replica runs, ms. */
const WAIT_POLL_MS = 200;

interface LocalJob {
  readonly jobId: string;
  readonly kind: string;
  readonly label: string;
  readonly owner: AgentRef | undefined;
  readonly ownerKey: string;
  readonly startedAt: number;
  readonly controller: AbortController;
  status: JobStatus;
  endedAt?: number;
  value?: JsonValue;
  error?: string;
  outputBytes: number;
  progress?: JobProgressInfo;
  progressLoggedAt?: number;
  progressUnlogged: boolean;
  /** Output appended and not yet handed to the store. */
  pending: string[];
  progressPending: boolean;
  /** The store writes of this job, in order. */
  writes: Promise<void>;
  readonly settled: Promise<void>;
  settle(): void;
}

const info = (job: StoredJob): JobInfo => ({
  jobId: job.jobId,
  kind: job.kind,
  label: job.label,
  status: job.status,
  startedAt: job.startedAt,
  ...(job.endedAt !== undefined ? { endedAt: job.endedAt } : {}),
  outputBytes: job.outputBytes,
  droppedBytes: job.droppedBytes,
  ...(job.progress ? { progress: job.progress } : {}),
});

/** A job manager on a shared store; see the file comment. */
export function createSharedJobManager(env: { readonly emit: (event: UnstampedEvent) => void; readonly now: () => number }, store: JobStore, options: JobManagerOptions): JobManager {
  const { outputBytes, maxRunning, maxRetained, progressIntervalMs } = jobLimits(options);
  const leaseMs = options.leaseMs ?? 15_000;
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 3) throw new InvalidOptionError({ where: 'createToolHost', option: 'jobs.leaseMs', value: leaseMs, expected: 'a whole number of ms, at least 3' });
  const replica = `replica_${randomBytes(12).toString('hex')}`;
  const local = new Map<string, LocalJob>();
  /** Jobs `start` could not record (the store refused or failed): answered here, as failed. */
  const unrecorded = new Map<string, StoredJob>();
  /** Jobs `start` handed out a handle for and is still recording: a lookup of one waits for it. */
  const starting = new Map<string, Promise<unknown>>();
  const started = async (jobId: unknown) => {
    if (typeof jobId === 'string') await starting.get(jobId);
  };
  let closed = false;

  // Write failures (the store unreachable) lose that output or progress; the end is retried by
  // the heartbeat until it is written or the lease has failed the job.
  const unwrittenEnds = new Map<string, LocalJob>();
  const chain = (job: LocalJob, write: () => Promise<unknown>) => {
    job.writes = job.writes.then(write).then(
      () => undefined,
      () => undefined,
    );
  };

  const flushOutput = (job: LocalJob) => {
    if (job.pending.length === 0) return;
    const text = job.pending.join('');
    job.pending = [];
    return store.append(job.jobId, text);
  };

  const flushProgressEvent = (job: LocalJob) => {
    if (!job.progressUnlogged || !job.progress) return;
    job.progressUnlogged = false;
    job.progressLoggedAt = env.now();
    env.emit({ type: 'job/progress', jobId: job.jobId, progress: job.progress });
  };

  /** Ends a job here: the event, the abort, and (unless the store ended it already) the write. */
  const end = (job: LocalJob, status: Exclude<JobStatus, 'running'>, outcome: { value?: JsonValue; error?: string }, write: boolean) => {
    if (job.status !== 'running') return;
    flushProgressEvent(job);
    job.status = status;
    job.endedAt = env.now();
    if (outcome.value !== undefined) job.value = outcome.value;
    if (outcome.error !== undefined) job.error = outcome.error;
    const droppedBytes = Math.max(0, job.outputBytes - outputBytes);
    env.emit({
      type: 'job/end',
      jobId: job.jobId,
      status,
      ...(outcome.value !== undefined ? { value: outcome.value } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      outputBytes: job.outputBytes,
      droppedBytes,
      durationMs: job.endedAt - job.startedAt,
    });
    if (status === 'killed' || !write) job.controller.abort(new Error(outcome.error ?? 'killed'));
    if (write) {
      const endedAt = job.endedAt;
      chain(job, async () => {
        try {
          await flushOutput(job);
        } catch {
          // Lost output; the end still matters more.
        }
        try {
          await store.end(job.jobId, { replica, status, endedAt, ...outcome }, { maxRetained });
        } catch {
          unwrittenEnds.set(job.jobId, job);
        }
      });
    }
    job.writes.then(() => {
      local.delete(job.jobId);
      job.settle();
    });
  };

  const onStopped = (jobId: string, status: Exclude<JobStatus, 'running'>, error: string | undefined) => {
    const job = local.get(jobId);
    if (job) end(job, status, error !== undefined ? { error } : {}, false);
  };

  // Kills from other replicas arrive here; the heartbeat renews leases and catches what a lost
  // message missed.
  const watching = store.watchKills(replica, (jobId, reason) => onStopped(jobId, 'killed', reason));
  watching.catch(() => {}); // The heartbeat's renewals still bring kills.
  const heartbeat = setInterval(() => void beat(), Math.max(1, Math.floor(leaseMs / 3)));
  heartbeat.unref?.();
  let beating = false;
  const beat = async () => {
    if (beating) return;
    beating = true;
    try {
      for (const [jobId, job] of unwrittenEnds) {
        try {
          await store.end(jobId, { replica, status: job.status as Exclude<JobStatus, 'running'>, endedAt: job.endedAt!, ...(job.value !== undefined ? { value: job.value } : {}), ...(job.error !== undefined ? { error: job.error } : {}) }, { maxRetained });
          unwrittenEnds.delete(jobId);
        } catch {
          break;
        }
      }
      const running = [...local.values()].filter((j) => j.status === 'running').map((j) => j.jobId);
      if (running.length === 0) return;
      const stopped = await store.renew(replica, running, { now: env.now(), leaseMs });
      for (const s of stopped) onStopped(s.jobId, s.status, s.error);
    } catch {
      // The store is unreachable: the leases run out unless it comes back in time.
    } finally {
      beating = false;
    }
  };

  const launch = (job: LocalJob, run: (context: JobRunContext) => unknown) => {
    env.emit({ type: 'job/start', jobId: job.jobId, kind: job.kind, label: job.label, ...ownerOfEvent(job.owner) });
    const { jobId } = job;
    const context: JobRunContext = Object.freeze({
      jobId,
      signal: job.controller.signal,
      append(text: string) {
        if (typeof text !== 'string') throw new TypeError(`job ${jobId}: append(text) expects a string, got ${typeof text}`);
        if (job.status !== 'running' || text.length === 0) return;
        job.outputBytes += Buffer.byteLength(text, 'utf8');
        job.pending.push(text);
        if (job.pending.length === 1) chain(job, () => flushOutput(job) ?? Promise.resolve());
      },
      progress(raw: JobProgressInfo) {
        const progress = cleanProgress(raw);
        if (job.status !== 'running' || !progress) return;
        job.progress = progress;
        job.progressUnlogged = true;
        const at = env.now();
        if (job.progressLoggedAt === undefined || at - job.progressLoggedAt >= progressIntervalMs) flushProgressEvent(job);
        if (!job.progressPending) {
          job.progressPending = true;
          chain(job, () => {
            job.progressPending = false;
            return store.progress(jobId, job.progress!);
          });
        }
      },
    });
    launchJob(jobId, run, context, {
      running: () => job.status === 'running',
      succeeded: (value) => end(job, 'succeeded', { value }, true),
      failed: (error) => end(job, 'failed', { error }, true),
    });
  };

  /** Records the job in the store; resolves with the local job ready to launch. */
  const register = async (checked: ReturnType<typeof checkStart>, jobId: string) => {
    // No job of this replica exists before it listens for kills (a kill could be missed until the next renewal).
    await watching.catch(() => undefined);
    const startedAt = env.now();
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const job: LocalJob = {
      jobId,
      kind: checked.kind,
      label: checked.label,
      owner: checked.owner,
      ownerKey: checked.ownerKey,
      startedAt,
      controller: new AbortController(),
      status: 'running',
      outputBytes: 0,
      progressUnlogged: false,
      pending: [],
      progressPending: false,
      writes: Promise.resolve(),
      settled,
      settle,
    };
    const created = await store.create(
      { jobId, kind: job.kind, label: job.label, owner: job.ownerKey, replica, startedAt },
      { now: startedAt, leaseMs, maxRunning, maxRetained, outputBytes },
    );
    if (!created.created) throw tooManyRunning(created.running, maxRunning);
    if (closed) {
      await store.end(jobId, { replica, status: 'killed', endedAt: env.now(), error: 'the host was closed' }, { maxRetained }).catch(() => false);
      throw new JobStartError('host', 'is closed');
    }
    local.set(jobId, job);
    return { job, run: checked.run };
  };

  const refuse = (method: string) => () => {
    throw new JobsNeedAsyncError(method);
  };

  const readStored = async (owner: AgentRef | undefined, jobId: unknown, page?: { offset: number; limit: number }) => {
    await started(jobId);
    const failed = typeof jobId === 'string' ? unrecorded.get(jobId) : undefined;
    if (failed && failed.owner === ownerKeyOf(owner)) return { job: failed, output: { text: '', offset: 0, nextOffset: 0, skippedBytes: 0 } };
    const found = typeof jobId === 'string' ? await store.read(ownerKeyOf(owner), jobId, { now: env.now(), ...(page ? { page } : {}) }) : undefined;
    if (!found) throw new UnknownJobError(typeof jobId === 'string' ? jobId : String(jobId));
    return found;
  };

  const manager: JobManager = {
    start(options) {
      // The handle now; the job runs once the store has it. A refusal or a store failure ends it
      // failed here: job/start and job/end are emitted, and this replica answers for it.
      if (closed) throw new JobStartError('host', 'is closed');
      const checked = checkStart(options);
      const jobId = newJobId();
      const at = env.now();
      const registering = register(checked, jobId);
      starting.set(jobId, registering.then(() => undefined, () => undefined).finally(() => starting.delete(jobId)));
      void registering.then(
        ({ job, run }) => launch(job, run),
        (err: unknown) => {
          const error = `the job could not be recorded in the job store: ${errorText(err)}`;
          env.emit({ type: 'job/start', jobId, kind: checked.kind, label: checked.label, ...ownerOfEvent(checked.owner) });
          env.emit({ type: 'job/end', jobId, status: 'failed', error, outputBytes: 0, droppedBytes: 0, durationMs: 0 });
          unrecorded.set(jobId, { jobId, kind: checked.kind, label: checked.label, owner: checked.ownerKey, replica, status: 'failed', startedAt: at, endedAt: at, error, outputBytes: 0, droppedBytes: 0 });
          for (const old of [...unrecorded.keys()].slice(0, Math.max(0, unrecorded.size - maxRetained))) unrecorded.delete(old);
        },
      );
      return Object.freeze({ kind: 'background' as const, jobId });
    },
    async startAsync(options) {
      if (closed) throw new JobStartError('host', 'is closed');
      const { job, run } = await register(checkStart(options), newJobId());
      launch(job, run);
      return Object.freeze({ kind: 'background' as const, jobId: job.jobId });
    },
    list: refuse('list'),
    read: refuse('read'),
    kill: refuse('kill'),
    async listAsync(owner) {
      await Promise.all(starting.values());
      const key = ownerKeyOf(owner);
      const failed = [...unrecorded.values()].filter((j) => j.owner === key);
      return [...failed, ...(await store.list(key, { now: env.now() }))].sort((a, b) => a.startedAt - b.startedAt).map(info);
    },
    async readAsync(owner, jobId, page) {
      const { job, output } = await readStored(owner, jobId, pageOf(page));
      const slice = output!;
      return {
        ...info(job),
        output: slice.text,
        offset: slice.offset,
        nextOffset: slice.nextOffset,
        skippedBytes: slice.skippedBytes,
        ...(job.value !== undefined ? { value: job.value } : {}),
        ...(job.error !== undefined ? { error: job.error } : {}),
      } satisfies JobReadResult;
    },
    async killAsync(owner, jobId, reason = 'killed on request') {
      await started(jobId);
      const mine = typeof jobId === 'string' ? local.get(jobId) : undefined;
      if (mine && mine.ownerKey === ownerKeyOf(owner) && mine.status === 'running') {
        end(mine, 'killed', { error: reason }, true);
        await mine.settled;
      }
      const killed = typeof jobId === 'string' ? await store.kill(ownerKeyOf(owner), jobId, { now: env.now(), reason, maxRetained }) : undefined;
      if (!killed) throw new UnknownJobError(typeof jobId === 'string' ? jobId : String(jobId));
      return info(killed);
    },
    async wait(owner, jobId, options = {}) {
      await started(jobId);
      const mine = typeof jobId === 'string' ? local.get(jobId) : undefined;
      if (mine && mine.ownerKey === ownerKeyOf(owner)) await untilAborted(mine.settled, options.signal);
      for (;;) {
        const { job } = await readStored(owner, jobId);
        if (job.status !== 'running') return info(job);
        await untilAborted(new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS).unref?.()), options.signal);
      }
    },
    disposeOwner(owner) {
      const key = ownerKeyOf(owner);
      const mine = [...local.values()].filter((j) => j.ownerKey === key && j.status === 'running');
      for (const job of mine) end(job, 'killed', { error: 'its owner was disposed' }, true);
      void Promise.all(mine.map((j) => j.settled))
        .then(() => store.forgetOwner(key, { now: env.now(), reason: 'its owner was disposed' }))
        .catch(() => {});
      return mine.length;
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      const mine = [...local.values()].filter((j) => j.status === 'running');
      for (const job of mine) end(job, 'killed', { error: 'the host was closed' }, true);
      void Promise.all(mine.map((j) => j.settled))
        .then(() => watching)
        .then((w) => w.close())
        .catch(() => {});
    },
  };
  return Object.freeze(manager);
}
