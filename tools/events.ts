/**
 * Typed events of the pipeline. Every step of a call emits one to the host's sink; the session
 * log is these events as JSONL, one per line. The host stamps `seq` (per host, from 1) and
 * `time` (epoch ms). Events never carry a run token: PTC origins carry `tokenId`, a one-way
 * digest of it, so a log can link a run's children without handing out the capability.
 */
import { createHash } from 'node:crypto';
import type { JsonValue } from './json.js';
import type { AgentRef, PostToolDecision, ProviderProgramOrigin, ToolOrigin, ToolResult } from './types.js';

/** The origin as logged: a PTC run's token is replaced by its digest; a provider program's is as given. */
export type EventOrigin =
  | { readonly kind: 'model' }
  | { readonly kind: 'ptc'; readonly parentCallId: string; readonly tokenId: string }
  | ProviderProgramOrigin;

/** Who decided, in a `tool/decision` event. */
export type DecisionBy =
  | { readonly kind: 'default' }
  | { readonly kind: 'listener'; readonly index: number }
  | { readonly kind: 'guard'; readonly index: number }
  /** The host's approval channel answered. */
  | { readonly kind: 'approval' }
  /** A person approved this call in the framework's own flow (`CallOptions.approved`). */
  | { readonly kind: 'approval'; readonly via: 'framework'; readonly framework: string; readonly approvalId?: string; readonly note?: string }
  /** A person decided a durable run's deferred call, given to `runCode.resume` (`by`: who, as the app said). */
  | { readonly kind: 'approval'; readonly via: 'durable'; readonly approvalId: string; readonly by?: string };

interface Stamp {
  readonly seq: number;
  readonly time: number;
}

/** Step 2 done: the call and its frozen args (or, when invalid, a JSON copy of what was sent). */
export interface ToolCallEvent extends Stamp {
  readonly type: 'tool/call';
  readonly callId: string;
  readonly toolName: string;
  readonly args: JsonValue;
  readonly argsValid: boolean;
  readonly origin: EventOrigin;
  readonly agent?: AgentRef;
}

/** The pre-execute outcome (`stage: 'policy'`) and, after an ask, the approver's (`stage: 'approval'`). */
export interface ToolDecisionEvent extends Stamp {
  readonly type: 'tool/decision';
  readonly callId: string;
  readonly toolName: string;
  readonly stage: 'policy' | 'approval';
  /** `defer`: the approval channel deferred a durable run's call to a person who answers later (the run suspends). */
  readonly decision: 'allow' | 'deny' | 'ask' | 'defer';
  readonly by: DecisionBy;
  readonly reason?: string;
}

/** The final result of a call, as presented: the frozen `ToolResult` plus how it got there. */
export interface ToolResultEvent extends Stamp, ToolResult {
  readonly type: 'tool/result';
  /** Post-execute decisions applied, in order. */
  readonly post: readonly { readonly index: number; readonly type: PostToolDecision['type'] }[];
  readonly durationMs: number;
}

/** The severities of `exec.log` (RFC 5424, as MCP's `notifications/message`), least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A running tool reported progress (`exec.progress`; throttled per call, see tools/call-reports.ts). */
export interface ToolProgressEvent extends Stamp {
  readonly type: 'tool/progress';
  readonly callId: string;
  readonly toolName: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** A running tool logged a line (`exec.log`; bounded per call, see tools/call-reports.ts). */
export interface ToolLogEvent extends Stamp {
  readonly type: 'tool/log';
  readonly callId: string;
  readonly toolName: string;
  readonly level: LogLevel;
  readonly message: string;
}

/** A PTC program asked for a call; recorded before any policy runs. Only id, name and args. */
export interface PtcDispatchEvent extends Stamp {
  readonly type: 'tool/ptc-dispatch';
  readonly pairId: string;
  readonly toolName: string;
  readonly args: JsonValue;
}

/** A PTC run began: `callId` is the run_code call, `tokenId` the digest of its fresh token. */
export interface PtcRunStartEvent extends Stamp {
  readonly type: 'ptc/run-start';
  readonly callId: string;
  readonly tokenId: string;
}

/** A PTC run ended and its token was revoked; `limit` names the limit that ended it, if one did. */
export interface PtcRunEndEvent extends Stamp {
  readonly type: 'ptc/run-end';
  readonly callId: string;
  readonly tokenId: string;
  /** `suspended`: a durable run waits for a person (see `ptc/run-suspended`); `diverged`: its replay did not match its journal. */
  readonly outcome: 'ok' | 'thrown' | 'limit' | 'crash' | 'aborted' | 'suspended' | 'diverged';
  readonly limit?: { readonly name: string; readonly value: number };
  /** Child calls dispatched during the run. */
  readonly calls: number;
  readonly durationMs: number;
}

/** A durable run's approval waiting for a person (never the resume token). */
export interface PendingApprovalInfo {
  readonly approvalId: string;
  readonly toolName: string;
  readonly reason: string;
}

/**
 * A durable run suspended: its process was freed and it waits for a person's decisions. Emitted
 * after its `ptc/run-end` (outcome `suspended`), once its journal is in the run store, and before
 * run_code's own result; the resume token is never in it.
 */
export interface PtcRunSuspendedEvent extends Stamp {
  readonly type: 'ptc/run-suspended';
  readonly callId: string;
  readonly tokenId: string;
  readonly runId: string;
  readonly pending: readonly PendingApprovalInfo[];
  /** When the run stops being resumable (epoch ms). */
  readonly expiresAt: number;
}

/**
 * A durable run resumed (possibly on another host): `segment` counts its resumes from 1;
 * `prevTraceHead` is the head of the trace chain it was suspended in, as anchored in its store,
 * so `ptc trace verify a.jsonl b.jsonl` can check the link. Emitted after the new segment's
 * `ptc/run-start`; the replayed calls emit nothing.
 */
export interface PtcRunResumedEvent extends Stamp {
  readonly type: 'ptc/run-resumed';
  readonly callId: string;
  readonly tokenId: string;
  readonly runId: string;
  readonly segment: number;
  /** Calls the journal answered without running them again. */
  readonly replayedCalls: number;
  readonly decisions: readonly { readonly approvalId: string; readonly decision: 'allow-once' | 'deny'; readonly by?: string }[];
  readonly prevTraceHead?: { readonly traceId: string; readonly seq: number; readonly hash: string };
}

/** A call reached the bridge after its run's token was revoked (a leaked promise): refused, and recorded once. */
export interface PtcCallRefusedEvent extends Stamp {
  readonly type: 'ptc/call-refused';
  readonly parentCallId: string;
  readonly tokenId: string;
  /** The name the program used (untrusted, as sent); `'(more late calls)'` on a summary. */
  readonly toolName: string;
  readonly reason: string;
  /**
   * On the one summary event of a run's late calls past the first 100 (bridge/late-calls.ts):
   * how many it stands for. Absent on an event for one call.
   */
  readonly count?: number;
}

/** A background job started (see tools/jobs). `owner` is the agent that controls it, if any. */
export interface JobStartEvent extends Stamp {
  readonly type: 'job/start';
  readonly jobId: string;
  readonly kind: string;
  readonly label: string;
  readonly owner?: AgentRef;
}

/** What a job reports as progress; every field optional. */
export interface JobProgressInfo {
  readonly message?: string;
  readonly done?: number;
  readonly total?: number;
}

/** A running job reported progress (coalesced: at most one event per job per progress interval). */
export interface JobProgressEvent extends Stamp {
  readonly type: 'job/progress';
  readonly jobId: string;
  readonly progress: JobProgressInfo;
}

/** A job ended: succeeded (with its value), failed (with its error) or killed (with why). */
export interface JobEndEvent extends Stamp {
  readonly type: 'job/end';
  readonly jobId: string;
  readonly status: 'succeeded' | 'failed' | 'killed';
  readonly value?: JsonValue;
  readonly error?: string;
  /** Output bytes appended over the job's life, and how many of them the ring buffer dropped. */
  readonly outputBytes: number;
  readonly droppedBytes: number;
  readonly durationMs: number;
}

/** Every event the host emits. */
export type ToolEvent =
  | ToolCallEvent
  | ToolDecisionEvent
  | ToolResultEvent
  | ToolProgressEvent
  | ToolLogEvent
  | PtcDispatchEvent
  | PtcRunStartEvent
  | PtcRunEndEvent
  | PtcCallRefusedEvent
  | PtcRunSuspendedEvent
  | PtcRunResumedEvent
  | JobStartEvent
  | JobProgressEvent
  | JobEndEvent;

/** An event before the host stamps it. */
export type UnstampedEvent = ToolEvent extends infer E ? (E extends ToolEvent ? Omit<E, 'seq' | 'time'> : never) : never;

/** Receives every event, synchronously, in order. */
export type EventSink = (event: ToolEvent) => void;

const recentTokenIds = new Map<string, string>();

/** The digest that stands for a run token in logs (16 hex chars of SHA-256). */
export function tokenIdOf(token: string): string {
  // Every child call of a run logs the same token: remember a few digests (runs are short).
  const known = recentTokenIds.get(token);
  if (known !== undefined) return known;
  const id = createHash('sha256').update(token).digest('hex').slice(0, 16);
  if (recentTokenIds.size >= 64) recentTokenIds.delete(recentTokenIds.keys().next().value!);
  recentTokenIds.set(token, id);
  return id;
}

/** The loggable form of an origin. */
export function eventOrigin(origin: ToolOrigin): EventOrigin {
  switch (origin.kind) {
    case 'ptc':
      return { kind: 'ptc', parentCallId: origin.parentCallId, tokenId: tokenIdOf(origin.token) };
    case 'provider-program':
      return { kind: 'provider-program', provider: origin.provider, callerId: origin.callerId };
    default:
      return { kind: 'model' };
  }
}
