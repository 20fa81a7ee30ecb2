/**
 * Background jobs: long work that outlives the call that started it.
 *
 * Invariants this file owns:
 * - Ownership. Every job belongs to the agent that started it (or to "no agent"). Every lookup
 *   takes the caller's owner and treats another owner's job exactly like a job that does not
 *   exist (`UnknownJobError`), so neither the message nor the timing of a refusal says whether
 *   the id is taken.
 * - One terminal status. A job goes `running` -> `succeeded` | `failed` | `killed` once. A kill
 *   is final at once (its `run` is aborted and whatever it returns later is ignored); output and
 *   progress after the end are dropped.
 * - Bounded memory. Output is a ring of `outputBytes` per job (dropped bytes are counted); at
 *   most `maxRunningPerOwner` jobs run per owner; at most `maxRetainedPerOwner` finished jobs are
 *   kept per owner (oldest forgotten first). Disposing an owner kills its running jobs and
 *   forgets all of them; closing the manager does that for every owner and refuses new jobs.
 * - Events. `job/start` before `run` is invoked (it runs on the next microtask), `job/progress`
 *   coalesced to one per `progressIntervalMs` per job (the last one is flushed before the end),
 *   `job/end` exactly once.
 */
import type { JobProgressInfo, UnstampedEvent } from '../events.js';
import type { JsonValue } from '../json.js';
import type { AgentRef } from '../types.js';
import { JobStartError, UnknownJobError } from './errors.js';
import { OutputRing } from './output-ring.js';
import { checkStart, cleanProgress, jobLimits, launchJob, newJobId, ownerKeyOf, ownerOfEvent, pageOf, tooManyRunning, untilAborted } from './job-start.js';
import { createSharedJobManager } from './shared-job-manager.js';
import type { JobInfo, JobManager, JobManagerOptions, JobRunContext, JobStatus } from './job-types.js';

export { JOB_ID, newJobId } from './job-start.js';

interface Job {
  readonly jobId: string;
  readonly kind: string;
  readonly label: string;
  readonly ownerKey: string;
  readonly startedAt: number;
  readonly output: OutputRing;
  readonly controller: AbortController;
  status: JobStatus;
  endedAt?: number;
  value?: JsonValue;
  error?: string;
  progress?: JobProgressInfo;
  progressLoggedAt?: number;
  progressUnlogged: boolean;
  readonly settled: Promise<void>;
  settle(): void;
}

/** Creates the job manager of a host; `emit` and `now` are the host's. With `options.store`, jobs are shared through it. */
export function createJobManager(env: { readonly emit: (event: UnstampedEvent) => void; readonly now: () => number }, options: JobManagerOptions = {}): JobManager {
  if (options.store !== undefined) return createSharedJobManager(env, options.store, options);
  const { outputBytes, maxRunning, maxRetained, progressIntervalMs } = jobLimits(options);
  const jobs = new Map<string, Job>();
  let closed = false;

  const visible = (owner: AgentRef | undefined, jobId: unknown): Job => {
    const job = typeof jobId === 'string' ? jobs.get(jobId) : undefined;
    if (!job || job.ownerKey !== ownerKeyOf(owner)) throw new UnknownJobError(typeof jobId === 'string' ? jobId : String(jobId));
    return job;
  };

  const info = (job: Job): JobInfo => ({
    jobId: job.jobId,
    kind: job.kind,
    label: job.label,
    status: job.status,
    startedAt: job.startedAt,
    ...(job.endedAt !== undefined ? { endedAt: job.endedAt } : {}),
    outputBytes: job.output.totalBytes,
    droppedBytes: job.output.droppedBytes,
    ...(job.progress ? { progress: job.progress } : {}),
  });

  const flushProgress = (job: Job) => {
    if (!job.progressUnlogged || !job.progress) return;
    job.progressUnlogged = false;
    job.progressLoggedAt = env.now();
    env.emit({ type: 'job/progress', jobId: job.jobId, progress: job.progress });
  };

  const end = (job: Job, status: Exclude<JobStatus, 'running'>, outcome: { value?: JsonValue; error?: string }) => {
    if (job.status !== 'running') return;
    flushProgress(job);
    job.status = status;
    job.endedAt = env.now();
    if (outcome.value !== undefined) job.value = outcome.value;
    if (outcome.error !== undefined) job.error = outcome.error;
    env.emit({
      type: 'job/end',
      jobId: job.jobId,
      status,
      ...(outcome.value !== undefined ? { value: outcome.value } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      outputBytes: job.output.totalBytes,
      droppedBytes: job.output.droppedBytes,
      durationMs: job.endedAt - job.startedAt,
    });
    job.settle();
    prune(job.ownerKey);
  };

  const prune = (ownerKey: string) => {
    const finished = [...jobs.values()].filter((j) => j.ownerKey === ownerKey && j.status !== 'running');
    for (const job of finished.slice(0, Math.max(0, finished.length - maxRetained))) jobs.delete(job.jobId);
  };

  const killJob = (job: Job, reason: string) => {
    if (job.status !== 'running') return false;
    end(job, 'killed', { error: reason });
    job.controller.abort(new Error(reason));
    return true;
  };

  const manager: JobManager = {
    start(options) {
      if (closed) throw new JobStartError('host', 'is closed');
      const { kind, label, owner, ownerKey, run } = checkStart(options);
      const running = [...jobs.values()].filter((j) => j.ownerKey === ownerKey && j.status === 'running').length;
      if (running >= maxRunning) throw tooManyRunning(running, maxRunning);

      const jobId = newJobId();
      let settle!: () => void;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      const job: Job = {
        jobId,
        kind,
        label,
        ownerKey,
        startedAt: env.now(),
        output: new OutputRing(outputBytes),
        controller: new AbortController(),
        status: 'running',
        progressUnlogged: false,
        settled,
        settle,
      };
      jobs.set(jobId, job);
      env.emit({ type: 'job/start', jobId, kind, label: job.label, ...ownerOfEvent(owner) });

      const context: JobRunContext = Object.freeze({
        jobId,
        signal: job.controller.signal,
        append(text: string) {
          if (typeof text !== 'string') throw new TypeError(`job ${jobId}: append(text) expects a string, got ${typeof text}`);
          if (job.status === 'running') job.output.append(text);
        },
        progress(raw: JobProgressInfo) {
          const progress = cleanProgress(raw);
          if (job.status !== 'running' || !progress) return;
          job.progress = progress;
          job.progressUnlogged = true;
          const at = env.now();
          if (job.progressLoggedAt === undefined || at - job.progressLoggedAt >= progressIntervalMs) flushProgress(job);
        },
      });
      launchJob(jobId, run, context, {
        running: () => job.status === 'running',
        succeeded: (value) => end(job, 'succeeded', { value }),
        failed: (error) => end(job, 'failed', { error }),
      });
      return Object.freeze({ kind: 'background' as const, jobId });
    },

    list: (owner) => [...jobs.values()].filter((j) => j.ownerKey === ownerKeyOf(owner)).map(info),

    read(owner, jobId, page) {
      const job = visible(owner, jobId);
      const { offset, limit } = pageOf(page);
      const slice = job.output.read(offset, limit);
      return {
        ...info(job),
        output: slice.text,
        offset: slice.offset,
        nextOffset: slice.nextOffset,
        skippedBytes: slice.skippedBytes,
        ...(job.value !== undefined ? { value: job.value } : {}),
        ...(job.error !== undefined ? { error: job.error } : {}),
      };
    },

    kill(owner, jobId, reason = 'killed on request') {
      const job = visible(owner, jobId);
      killJob(job, reason);
      return info(job);
    },

    async wait(owner, jobId, options = {}) {
      const job = visible(owner, jobId);
      await untilAborted(job.settled, options.signal);
      return info(job);
    },

    startAsync: async (options) => manager.start(options),
    listAsync: async (owner) => manager.list(owner),
    readAsync: async (owner, jobId, page) => manager.read(owner, jobId, page),
    killAsync: async (owner, jobId, reason) => manager.kill(owner, jobId, reason),

    disposeOwner(owner) {
      const key = ownerKeyOf(owner);
      let killed = 0;
      for (const job of [...jobs.values()]) {
        if (job.ownerKey !== key) continue;
        if (killJob(job, 'its owner was disposed')) killed++;
        jobs.delete(job.jobId);
      }
      return killed;
    },

    close() {
      closed = true;
      for (const job of [...jobs.values()]) killJob(job, 'the host was closed');
    },
  };
  return Object.freeze(manager);
}
