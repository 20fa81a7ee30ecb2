/**
 * The nodes of a trace's call tree (built by call-tree.ts): a call with its decisions, outcome
 * and timing, where its lines were read, and, for a run, its children, its late calls and its
 * suspensions and resumptions.
 */
import type { TraceHead, TraceLinkStatus } from '../../tools/index.js';

/** One decision on a call: the pre-execute outcome or the approver's answer. */
export interface CallDecision {
  readonly stage: string;
  readonly decision: string;
  /** `default`, `listener #0`, `guard #1`, `approval`. */
  readonly by: string;
  readonly reason?: string;
}

/**
 * How a call ended; `suspended` is a durable run_code that returned a suspension, `deferred` a
 * child still waiting (for a person) when its run suspended: its run goes on elsewhere.
 */
export type CallOutcome = 'ok' | 'error' | 'denied' | 'blocked' | 'suspended' | 'deferred' | 'pending';

/** Where an event was read: the file (as named to the reader) and its 1-based line. */
export interface EventSource {
  readonly file: string;
  readonly line: number;
  /** For an event carrying `prevTraceHead`: what checking the link found. */
  readonly link?: { readonly status: TraceLinkStatus; readonly message: string; readonly to?: TraceHead; readonly target?: { readonly file: string; readonly line: number } };
}

/** A run's suspension or resumption, shown among its children where it happened. */
export interface RunMark {
  readonly kind: 'suspended' | 'resumed';
  /** Position of the event in the events given. */
  readonly index: number;
  readonly time: number;
  readonly source?: EventSource;
  /** Suspended: the calls waiting for a person. */
  readonly pending: readonly { readonly toolName: string; readonly reason: string }[];
  /** Resumed: the head of the chain the run left, as the event names it. */
  readonly from?: TraceHead;
}

/** One call in the tree. */
export interface CallNode {
  readonly callId: string;
  readonly toolName: string;
  readonly args: unknown;
  readonly parentCallId?: string;
  readonly tokenId?: string;
  /** For a call made by a program in a provider's sandbox: `anthropic code execution <callerId>`. */
  readonly via?: string;
  /** `parallel` or `exclusive` when the trace recorded it. */
  readonly mode?: string;
  /** Event time of the call (ms). */
  readonly start: number;
  /** Event time of the result (ms); absent while pending. */
  end?: number;
  /** Positions of the call and result events in the trace: in flight between the two. */
  readonly startIndex: number;
  endIndex?: number;
  /** Where the call's line is (when the reader was told). */
  readonly source?: EventSource;
  /** Where each of its lines is: the call, its decisions and its result (to flag a call whose lines were damaged). */
  readonly lines: EventSource[];
  durationMs?: number;
  readonly decisions: CallDecision[];
  outcome: CallOutcome;
  /** Denial, block or error text. */
  detail?: string;
  /** Who denied: listener, guard or approval. */
  deniedBy?: string;
  /** For a run_code call: how the run ended (its last `ptc/run-end`). */
  run?: { outcome: string; calls: number; durationMs: number; limit?: string; end: number };
  /** Started after its run had ended, or aborted because the run ended. */
  late: boolean;
  /** Another call with the same id was in flight at the same time: decisions and result were matched by order. */
  ambiguous: boolean;
  /** A run known only from its `ptc/run-resumed` event: its start is in a trace not given. */
  readonly placeholder: boolean;
  readonly children: CallNode[];
  /** Suspensions and resumptions of a run, in order. */
  readonly marks: RunMark[];
  /** Calls refused after the run's token was revoked (`ptc/call-refused`); `count` > 1 on a run's summary of many. */
  readonly refused: { toolName: string; reason: string; time: number; count: number; index: number }[];
}

/** The whole tree. */
export interface CallTree {
  readonly roots: CallNode[];
  /** Every call, in trace order. */
  readonly calls: readonly CallNode[];
  /** Results (`tool/result`) that matched no call without a result. */
  readonly orphanResults: number;
  /** Earliest and latest event times. */
  readonly t0: number;
  readonly t1: number;
}
