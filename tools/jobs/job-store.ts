/**
 * `JobStore`: where the jobs of several replicas meet. A job still runs where it was started (its
 * `run` is a closure of that process); the store holds what the others need to list, read and
 * kill it: the record (kind, label, owner, status, times, value or error, latest progress), the
 * output ring, and a lease the running replica renews. A reader that finds a running job whose
 * lease ran out ends it as failed ("the replica running it stopped"), so a replica that dies leaves
 * its jobs failed: never running twice, never `running` for ever.
 *
 * `createMemoryJobStore()` is the reference implementation: hosts of one process share it (and the
 * tests of the shared manager run on it without a server); `ptc-runtime/redis` has the one
 * replicas on several machines share.
 */
import type { JobProgressInfo } from '../events.js';
import type { JsonValue } from '../json.js';
import { OutputRing, type OutputSlice } from './output-ring.js';

/** Where a job stands. */
export type JobStatus = 'running' | 'succeeded' | 'failed' | 'killed';

/** The error a job gets when its replica stopped renewing its lease. */
export const LEASE_LOST_ERROR = 'the replica running it stopped (its lease ran out before the job ended)';

/** A job as a {@link JobStore} keeps it. `owner` is the owner key (the agent id, or a fixed key for calls without an agent). */
export interface StoredJob {
  readonly jobId: string;
  readonly kind: string;
  readonly label: string;
  readonly owner: string;
  /** The replica running it (the manager's random id). */
  readonly replica: string;
  readonly status: JobStatus;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly value?: JsonValue;
  readonly error?: string;
  readonly progress?: JobProgressInfo;
  readonly outputBytes: number;
  readonly droppedBytes: number;
}

/** What a job's end writes. */
export interface JobOutcome {
  readonly replica: string;
  readonly status: Exclude<JobStatus, 'running'>;
  readonly endedAt: number;
  readonly value?: JsonValue;
  readonly error?: string;
}

/** A job of `replica` that is no longer running in the store (killed elsewhere, failed by its lease, forgotten). */
export interface StoppedJob {
  readonly jobId: string;
  readonly status: Exclude<JobStatus, 'running'>;
  readonly error?: string;
}

/** The shared jobs of a deployment (`createToolHost({ jobs: store })`). Every method is one atomic step of the store. */
export interface JobStore {
  readonly kind: 'shared';
  /**
   * Records a new running job with a lease until `now + leaseMs` and an empty output ring of
   * `outputBytes`. Refused (with the owner's running count) when the owner already has
   * `maxRunning` running jobs on any replica; the owner's oldest finished jobs beyond
   * `maxRetained` are forgotten.
   */
  create(
    job: { readonly jobId: string; readonly kind: string; readonly label: string; readonly owner: string; readonly replica: string; readonly startedAt: number },
    options: { readonly now: number; readonly leaseMs: number; readonly maxRunning: number; readonly maxRetained: number; readonly outputBytes: number },
  ): Promise<{ readonly created: true } | { readonly created: false; readonly running: number }>;
  /** Appends to a running job's ring (the oldest bytes beyond its size dropped and counted); ignored once it ended. */
  append(jobId: string, text: string): Promise<void>;
  /** Sets a running job's latest progress; ignored once it ended. */
  progress(jobId: string, progress: JobProgressInfo): Promise<void>;
  /** Ends a running job of `outcome.replica`; false when it had already ended (killed, or failed by its lease). */
  end(jobId: string, outcome: JobOutcome, options: { readonly maxRetained: number }): Promise<boolean>;
  /** The owner's job (undefined for an unknown id or another owner's job), with a page of output when asked. */
  read(owner: string, jobId: string, options: { readonly now: number; readonly page?: { readonly offset: number; readonly limit: number } }): Promise<{ readonly job: StoredJob; readonly output?: OutputSlice } | undefined>;
  /** The owner's jobs, oldest first. */
  list(owner: string, options: { readonly now: number }): Promise<StoredJob[]>;
  /** Kills the owner's running job at once (a finished one is left as it is); its replica learns through `watchKills`. Undefined when unknown to this owner. */
  kill(owner: string, jobId: string, options: { readonly now: number; readonly reason: string; readonly maxRetained: number }): Promise<StoredJob | undefined>;
  /** Renews the leases of `replica`'s running jobs; returns those of them that are no longer running, for the replica to abort. */
  renew(replica: string, jobIds: readonly string[], options: { readonly now: number; readonly leaseMs: number }): Promise<StoppedJob[]>;
  /** Calls `onKill` when a job of `replica` is killed through the store (from any replica). */
  watchKills(replica: string, onKill: (jobId: string, reason: string) => void): Promise<{ close(): Promise<void> }>;
  /** Kills the owner's running jobs (their replicas learn as for `kill`) and forgets all of them. */
  forgetOwner(owner: string, options: { readonly now: number; readonly reason: string }): Promise<void>;
}

/** True for a {@link JobStore} (what `createToolHost({ jobs })` tells from limits). */
export function isJobStore(value: unknown): value is JobStore {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'shared' && typeof (value as { renew?: unknown }).renew === 'function';
}

interface MemoryJob {
  record: Omit<StoredJob, 'outputBytes' | 'droppedBytes'>;
  readonly ring: OutputRing;
  leaseUntil: number;
}

/**
 * A {@link JobStore} in this process's memory, shared by the hosts given it: what a shared store
 * must do, without a server. Jobs live as long as the store (nothing outlives the process).
 */
export function createMemoryJobStore(): JobStore {
  const jobs = new Map<string, MemoryJob>();
  const watchers = new Map<string, Set<(jobId: string, reason: string) => void>>();

  const view = (job: MemoryJob): StoredJob => ({ ...job.record, outputBytes: job.ring.totalBytes, droppedBytes: job.ring.droppedBytes });
  const finish = (job: MemoryJob, patch: Partial<StoredJob>) => {
    job.record = { ...job.record, ...patch };
  };
  // A running job whose lease ran out ends failed the moment anyone looks at it.
  const expire = (job: MemoryJob, now: number) => {
    if (job.record.status === 'running' && job.leaseUntil < now) finish(job, { status: 'failed', endedAt: job.leaseUntil, error: LEASE_LOST_ERROR });
  };
  const ofOwner = (owner: string, now: number) => [...jobs.values()].filter((j) => j.record.owner === owner).map((j) => (expire(j, now), j));
  const prune = (owner: string, maxRetained: number, now: number) => {
    const finished = ofOwner(owner, now).filter((j) => j.record.status !== 'running');
    for (const job of finished.slice(0, Math.max(0, finished.length - maxRetained))) jobs.delete(job.record.jobId);
  };
  const visible = (owner: string, jobId: string, now: number) => {
    const job = jobs.get(jobId);
    if (!job || job.record.owner !== owner) return undefined;
    expire(job, now);
    return job;
  };
  const notify = (replica: string, jobId: string, reason: string) => {
    // Later, as a message from the server would arrive: never inside the caller's step.
    for (const onKill of watchers.get(replica) ?? []) setImmediate(() => onKill(jobId, reason));
  };
  const kill = (job: MemoryJob, now: number, reason: string) => {
    if (job.record.status !== 'running') return;
    finish(job, { status: 'killed', endedAt: now, error: reason });
    notify(job.record.replica, job.record.jobId, reason);
  };

  return {
    kind: 'shared',
    async create(job, options) {
      const running = ofOwner(job.owner, options.now).filter((j) => j.record.status === 'running').length;
      if (running >= options.maxRunning) return { created: false, running };
      jobs.set(job.jobId, { record: { ...job, status: 'running' }, ring: new OutputRing(options.outputBytes), leaseUntil: options.now + options.leaseMs });
      prune(job.owner, options.maxRetained, options.now);
      return { created: true };
    },
    async append(jobId, text) {
      const job = jobs.get(jobId);
      if (job?.record.status === 'running') job.ring.append(text);
    },
    async progress(jobId, progress) {
      const job = jobs.get(jobId);
      if (job?.record.status === 'running') finish(job, { progress });
    },
    async end(jobId, outcome, options) {
      const job = jobs.get(jobId);
      if (!job || job.record.status !== 'running' || job.record.replica !== outcome.replica) return false;
      const { replica: _replica, ...rest } = outcome;
      finish(job, rest);
      prune(job.record.owner, options.maxRetained, outcome.endedAt);
      return true;
    },
    async read(owner, jobId, options) {
      const job = visible(owner, jobId, options.now);
      if (!job) return undefined;
      return { job: view(job), ...(options.page ? { output: job.ring.read(options.page.offset, options.page.limit) } : {}) };
    },
    async list(owner, options) {
      return ofOwner(owner, options.now).map(view);
    },
    async kill(owner, jobId, options) {
      const job = visible(owner, jobId, options.now);
      if (!job) return undefined;
      kill(job, options.now, options.reason);
      prune(owner, options.maxRetained, options.now);
      return view(job);
    },
    async renew(replica, jobIds, options) {
      const stopped: StoppedJob[] = [];
      for (const jobId of jobIds) {
        const job = jobs.get(jobId);
        if (job) expire(job, options.now);
        if (job?.record.replica === replica && job.record.status === 'running') job.leaseUntil = options.now + options.leaseMs;
        else stopped.push(job && job.record.status !== 'running' ? { jobId, status: job.record.status, ...(job.record.error !== undefined ? { error: job.record.error } : {}) } : { jobId, status: 'failed', error: 'the job store no longer holds it' });
      }
      return stopped;
    },
    async watchKills(replica, onKill) {
      const set = watchers.get(replica) ?? new Set();
      watchers.set(replica, set);
      set.add(onKill);
      return {
        async close() {
          set.delete(onKill);
          if (set.size === 0) watchers.delete(replica);
        },
      };
    },
    async forgetOwner(owner, options) {
      for (const job of ofOwner(owner, options.now)) {
        kill(job, options.now, options.reason);
        jobs.delete(job.record.jobId);
      }
    },
  };
}
