/**
 * What a durable run's bridge adds to its child calls (docs/run-life.md), under a symbol key of
 * `CallOptions`, and what `runCode.resume` hands to run_code's own execute. Internal: set only by
 * this package's runtime (an adapter copies named fields, and JSON cannot carry a symbol), and
 * read by the pipeline only on calls from a PTC program (`resume` on any call).
 *
 * - `deferrable`: the approval channel may answer `'defer'`: the call then ends as `deferred`
 *   (not denied), its body not run, and the run suspends.
 * - `approvalId`: this call's approval, stable across replays; the channel sees it.
 * - `decision`: a person's answer given to `resume`, standing in for the channel at the ask.
 *   Guards and denying listeners still deny; a `deny` denies even when policy no longer asks.
 * - `beforeBody`: awaited after approval, just before the body: the journal records the call's
 *   start there (write-ahead). If it throws, the body does not run and the call fails.
 * - `idempotencyKey`: `exec.idempotencyKey` for the body, stable across replays and resumes.
 * - `resume`: opaque, handed to the tool as `exec[DURABLE_CALL]` (run_code reads its resume plan).
 */
export const DURABLE_CALL: unique symbol = Symbol('ptc-runtime.durable-call');

/** A person's decision of a deferred call, as `resume` got it. */
export interface DurableDecision {
  readonly approvalId: string;
  readonly decision: 'allow-once' | 'deny';
  /** Who decided, as the app said (recorded in the trace). */
  readonly by?: string;
}

/** See the file note. */
export interface DurableCall {
  readonly deferrable?: boolean;
  readonly approvalId?: string;
  readonly decision?: DurableDecision;
  readonly beforeBody?: () => Promise<void> | void;
  readonly idempotencyKey?: string;
  readonly resume?: unknown;
}

/** `CallOptions` with the internal durable part. */
export interface DurableCallOptions {
  readonly [DURABLE_CALL]?: DurableCall;
}

/** The durable part of call options, or undefined (never throws). */
export function durableCallOf(options: unknown): DurableCall | undefined {
  try {
    const part = (options as DurableCallOptions | undefined)?.[DURABLE_CALL];
    return typeof part === 'object' && part !== null ? part : undefined;
  } catch {
    return undefined;
  }
}
