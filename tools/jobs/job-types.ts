/** The public shapes of background jobs: what `host.jobs` takes and returns. */
import type { JobProgressInfo } from '../events.js';
import type { JsonValue } from '../json.js';
import type { AgentRef } from '../types.js';
import type { BackgroundHandle } from './handle.js';
import type { JobStatus, JobStore } from './job-store.js';

export type { JobStatus } from './job-store.js';

/** What `run` receives. */
export interface JobRunContext {
  readonly jobId: string;
  /** Aborted when the job is killed or its owner disposed. */
  readonly signal: AbortSignal;
  /** Appends text to the job's output ring. Ignored after the job ended. */
  append(text: string): void;
  /** Reports progress (kept as the latest; logged coalesced). Ignored after the job ended. */
  progress(info: JobProgressInfo): void;
}

/** Options of {@link JobManager.start}. */
export interface JobStartOptions {
  /** A short type name: `^[A-Za-z][A-Za-z0-9_-]{0,31}$`. The job's id is random (`job_` and 32 hex digits), never derived from it. */
  readonly kind: string;
  /** One line for humans and the model (truncated to 200 characters). */
  readonly label: string;
  /** The agent that may see and control the job; omitted means calls without an agent. */
  readonly owner?: AgentRef;
  /** The work. Its return value (JSON) is the job's value; a throw fails the job. */
  run(context: JobRunContext): unknown;
}

/** A job as listed. */
export interface JobInfo {
  readonly jobId: string;
  readonly kind: string;
  readonly label: string;
  readonly status: JobStatus;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly outputBytes: number;
  readonly droppedBytes: number;
  readonly progress?: JobProgressInfo;
}

/** A job as read: its info, one page of output, and the value or error once it ended. */
export interface JobReadResult extends JobInfo {
  readonly output: string;
  readonly offset: number;
  readonly nextOffset: number;
  readonly skippedBytes: number;
  readonly value?: JsonValue;
  readonly error?: string;
}

/** Options of a job manager (`createToolHost({ jobs })`). */
export interface JobManagerOptions {
  /** Ring size of each job's output in bytes (default `DEFAULT_JOB_OUTPUT_BYTES`, 256 KiB). */
  readonly outputBytes?: number;
  /** Running jobs per owner (default 16). */
  readonly maxRunningPerOwner?: number;
  /** Finished jobs kept per owner before the oldest is forgotten (default 64). */
  readonly maxRetainedPerOwner?: number;
  /** Minimum time between two `job/progress` events of one job (default 250 ms). */
  readonly progressIntervalMs?: number;
  /**
   * Where jobs are shared between replicas (`createRedisStores(...).jobs`, or
   * `createMemoryJobStore()` for hosts of one process). Without one, jobs live in this host's
   * memory. With one, use the `...Async` methods: the synchronous `list`, `read` and `kill` see one
   * replica and refuse with {@link JobsNeedAsyncError}.
   */
  readonly store?: JobStore;
  /** With a store: how long a running job's lease lasts without renewal, ms (default 15,000; renewed every third of it). */
  readonly leaseMs?: number;
}

/** Default page size of a read: 16 KiB. */
export const DEFAULT_JOB_READ_BYTES = 16 * 1024;

/** The jobs of one host. */
export interface JobManager {
  /** Starts `run` in the background and returns the canonical handle at once. */
  start(options: JobStartOptions): BackgroundHandle;
  /** The caller's jobs, oldest first. */
  list(owner: AgentRef | undefined): JobInfo[];
  /** One page of a job's output, with its status and final value or error. */
  read(owner: AgentRef | undefined, jobId: string, page?: { readonly offset?: number; readonly limit?: number }): JobReadResult;
  /** Kills a running job (a finished one is left as it is); returns its info after. */
  kill(owner: AgentRef | undefined, jobId: string, reason?: string): JobInfo;
  /** Resolves with the job's info once it ended (at once if it has); rejects with the signal's reason if `signal` aborts first. */
  wait(owner: AgentRef | undefined, jobId: string, options?: { readonly signal?: AbortSignal }): Promise<JobInfo>;
  /** As `start`, resolved once the job is recorded (with a shared store: a refusal or a store failure rejects, and nothing runs). */
  startAsync(options: JobStartOptions): Promise<BackgroundHandle>;
  /** As `list`, for every replica sharing the store. */
  listAsync(owner: AgentRef | undefined): Promise<JobInfo[]>;
  /** As `read`, for a job on any replica sharing the store. */
  readAsync(owner: AgentRef | undefined, jobId: string, page?: { readonly offset?: number; readonly limit?: number }): Promise<JobReadResult>;
  /** As `kill`, for a job on any replica sharing the store (its replica aborts it when it learns). */
  killAsync(owner: AgentRef | undefined, jobId: string, reason?: string): Promise<JobInfo>;
  /** Kills an owner's running jobs and forgets all its jobs; returns how many were killed (on this replica; with a store, the others' are killed through it). */
  disposeOwner(owner: AgentRef | string | undefined): number;
  /** Kills every running job and refuses new ones. Idempotent. */
  close(): void;
}
