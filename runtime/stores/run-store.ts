/**
 * The run store: where durable runs keep their journal between a suspension and a resume, on
 * this host (`createFileRunStore`), in memory (`createMemoryRunStore`, tests), or shared by
 * replicas (`ptc-runtime/redis`). Every backend passes the same contract
 * (run-store-contract.ts).
 *
 * The store knows nothing of what a journal means. A run is a small JSON record (`meta`: what an
 * operator lists and what a resume checks a token against) plus an append-only list of opaque
 * entries (text the durable layer writes, possibly encrypted). What the store guarantees:
 *
 * - Claims. Only the holder of the current claim writes. A run is `active` while claimed (with a
 *   lease) and `suspended` when released for a resume; `claim` takes a suspended run, or an
 *   active one whose lease has run out (its holder died), and raises the run's `fence`. Two
 *   claims racing for one run: exactly one wins.
 * - Fenced appends. `append` succeeds only with the run's current fence, so a holder that lost
 *   its claim (a resumer that stalled past its lease while another took over) can never add to
 *   the journal again: it gets a {@link RunStoreFencedError}. Releasing a run (`settle` to
 *   `suspended`) keeps the fence, so calls still settling on the host that suspended it are
 *   journaled until someone claims it.
 * - Atomic batches: the entries of one `append` are all stored, in order, or none is.
 * - Terminal states (`completed`, `failed`, `expired`) are final: no claim, no append.
 * - Expiry: `sweep` marks runs past `meta.expiresAt` that nobody holds as `expired`.
 *
 * Times are the caller's clock (ms since the epoch), passed in, so tests move time instead of
 * waiting and replicas with the same clock agree.
 */
import { PtcError } from '../../tools/index.js';

/** Where a run stands in the store. */
export type RunStatus = 'active' | 'suspended' | 'completed' | 'failed' | 'expired';

/** The statuses no claim or append can leave. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = Object.freeze(['completed', 'failed', 'expired']);

/** A person's decision still needed by a suspended run (for `ptc runs list` and the suspension value). */
export interface PendingApproval {
  readonly approvalId: string;
  readonly toolName: string;
  /** The call's arguments, as JSON text (what the person is asked about). */
  readonly argsJson: string;
  readonly reason: string;
}

/** What the store keeps of a run besides its journal: plain JSON, never secret. */
export interface RunMeta {
  readonly runId: string;
  /** The agent the run is for (`null`: none). */
  readonly agentId: string | null;
  /** The run_code call the run answers. */
  readonly parentCallId: string;
  /** When the run was first written (ms since the epoch). */
  readonly createdAt: number;
  /** When a suspended run stops being resumable (ms since the epoch). */
  readonly expiresAt: number;
  /** Approvals the run waits for (empty while it runs). */
  readonly pending: readonly PendingApproval[];
  /** Fingerprints a resume checks (program, tool set, runtime), as hex digests. */
  readonly fingerprints: Readonly<Record<string, string>>;
}

/** The right to write a run's journal, until another claim takes it. */
export interface RunClaim {
  readonly runId: string;
  /** Raised by each claim; appends with an older fence are refused. */
  readonly fence: number;
}

/** A run as loaded: its record, status and whole journal. */
export interface StoredRun {
  readonly meta: RunMeta;
  readonly status: RunStatus;
  readonly fence: number;
  /** Until when the current claim holds (ms since the epoch), while `active`. */
  readonly leaseUntil: number | undefined;
  readonly entries: readonly string[];
}

/** One line of `list`. */
export interface RunSummary {
  readonly meta: RunMeta;
  readonly status: RunStatus;
}

/** What a {@link RunStore.settle} writes. */
export interface RunSettlement {
  /** `suspended` releases the run for a resume (the fence is kept); the others end it. */
  readonly status: Exclude<RunStatus, 'active'>;
  /** Fields of the record to replace (the pending approvals, a new expiry). */
  readonly meta?: Partial<Pick<RunMeta, 'pending' | 'expiresAt'>>;
}

/** Storage for durable runs' journals. Implementations must pass run-store-contract.ts. */
export interface RunStore {
  /**
   * Writes a new run, `active` and claimed by the caller until `now + leaseMs`, with its first
   * entries. Throws {@link RunStoreConflictError} when the id exists.
   */
  create(input: { readonly meta: RunMeta; readonly entries: readonly string[]; readonly leaseMs: number; readonly now: number }): Promise<RunClaim>;
  /**
   * Appends entries, all or none, if `claim` still holds the run (its fence is current and the
   * run is not terminal). Throws {@link RunStoreFencedError} otherwise.
   */
  append(claim: RunClaim, entries: readonly string[]): Promise<void>;
  /** The run, or undefined when unknown. */
  load(runId: string): Promise<StoredRun | undefined>;
  /**
   * Claims a `suspended` run, or an `active` one whose lease ended before `now`: the run becomes
   * `active` until `now + leaseMs` with a raised fence. Undefined when unknown, terminal, or held.
   */
  claim(runId: string, options: { readonly leaseMs: number; readonly now: number }): Promise<RunClaim | undefined>;
  /** Extends a claim's lease to `now + leaseMs`; false when the claim no longer holds. */
  renew(claim: RunClaim, options: { readonly leaseMs: number; readonly now: number }): Promise<boolean>;
  /** Ends a claim: releases the run (`suspended`) or ends it. Throws {@link RunStoreFencedError} when the claim no longer holds. */
  settle(claim: RunClaim, settlement: RunSettlement): Promise<void>;
  /** Runs by status (all when absent), oldest first, at most `limit` (default 100). */
  list(options?: { readonly status?: RunStatus; readonly limit?: number }): Promise<RunSummary[]>;
  /** Marks runs past their expiry that nobody holds (`suspended`, or `active` with an ended lease) as `expired`; returns their ids (at most `limit`). */
  sweep(options: { readonly now: number; readonly limit?: number }): Promise<string[]>;
  /** Releases what the store holds open (files, connections). */
  close?(): Promise<void>;
}

/** A run with this id already exists. */
export class RunStoreConflictError extends PtcError {
  override readonly name = 'RunStoreConflictError';
  constructor(readonly runId: string) {
    super(`A run with id "${runId}" already exists in the run store.`);
  }
}

/** A write came from a claim that no longer holds the run. */
export class RunStoreFencedError extends PtcError {
  override readonly name = 'RunStoreFencedError';
  constructor(
    readonly runId: string,
    readonly detail: string,
  ) {
    super(`The run store refused a write to run "${runId}": ${detail}.`);
  }
}

/** The store itself failed (a file, a connection); `operation` says what was being done. */
export class RunStoreError extends PtcError {
  override readonly name = 'RunStoreError';
  constructor(
    readonly operation: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`The run store failed to ${operation}: ${detail}.`, options);
  }
}
