/** The shapes of the session view: what `watchSession` and `replaySession` show. */
import type { Tool } from '../tool-types.js';
import type { AgentRef, ToolResult } from '../types.js';
import type { DecisionBy, EventOrigin, JobProgressInfo } from '../events.js';
import type { JsonValue } from '../json.js';
import type { Card } from '../cards/card-schema.js';
import type { JobStatus } from '../jobs/job-types.js';

/** How a call stands. */
export type CallStatus = 'pending' | 'ok' | 'error' | 'denied' | 'blocked';

/** One decision about a call, in order. */
export interface DecisionView {
  readonly stage: 'policy' | 'approval';
  readonly decision: 'allow' | 'deny' | 'ask';
  readonly by: DecisionBy;
  readonly reason?: string;
}

/** The result of a call, as logged: the `ToolResult` fields beside the call's id and name. */
export interface ResultView extends Omit<ToolResult, 'callId' | 'toolName'> {
  readonly durationMs: number;
}

/** A PTC run hosted by a call (run_code). */
export interface RunView {
  readonly tokenId: string;
  readonly outcome?: 'ok' | 'thrown' | 'limit' | 'crash' | 'aborted' | 'suspended' | 'diverged';
  readonly limit?: { readonly name: string; readonly value: number };
  readonly calls?: number;
  /** Calls its program made after the token was revoked (refused); `count` on the summary of those past the first 100. */
  readonly refused: readonly { readonly toolName: string; readonly reason: string; readonly count?: number }[];
}

/** One call as shown. */
export interface CallView {
  readonly callId: string;
  readonly toolName: string;
  readonly origin: EventOrigin;
  readonly agent?: AgentRef;
  readonly args: JsonValue;
  readonly argsValid: boolean;
  readonly startedAt: number;
  /** Set for a PTC child: the args the program sent, as recorded before policy. */
  readonly dispatch?: { readonly args: JsonValue };
  readonly decisions: readonly DecisionView[];
  readonly status: CallStatus;
  readonly result?: ResultView;
  /** What the UI shows now: the result card, the pending card, or the generic card. */
  readonly card: Card;
  readonly run?: RunView;
  /** Calls made by this call's program, in the order they started. */
  readonly children: readonly CallView[];
}

/** A background job as shown. */
export interface JobView {
  readonly jobId: string;
  readonly kind: string;
  readonly label: string;
  readonly owner?: AgentRef;
  readonly status: JobStatus;
  readonly progress?: JobProgressInfo;
  readonly value?: JsonValue;
  readonly error?: string;
  readonly outputBytes?: number;
  readonly droppedBytes?: number;
}

/** The whole session as shown. */
export interface SessionView {
  /** Top-level calls (model calls, and children whose parent is not in the log), in order. */
  readonly calls: readonly CallView[];
  readonly jobs: readonly JobView[];
  /** Dispatches never followed by a call (cancelled before they started). */
  readonly unmatchedDispatches: readonly { readonly pairId: string; readonly toolName: string; readonly args: JsonValue }[];
}

/** Where presenters come from: a list of tools, or anything with `get(name)` (a host). */
export type PresenterSource = readonly Tool[] | { get(name: string): Tool | undefined };
