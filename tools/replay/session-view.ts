/**
 * The session as a UI shows it: the list of calls with their cards, decisions and results, PTC
 * runs as trees (children linked by `origin.parentCallId`, dispatches by their pair id), and
 * background jobs. One reducer builds it from events, both live (host events as they happen)
 * and on replay (events read back from a log), so the two can only differ if the log lost
 * something. Cards come from the tools' presenters, which are pure and soft-validated, so the
 * same args and value give the same card on both sides; a call without a (valid) card shows the
 * generic one.
 *
 * Ids are model- and log-controlled strings, so every index is a `Map`: a call named
 * `__proto__` or `constructor` is just a call. A `snapshot()` is a fresh JSON value every time.
 * A value nested deeper than {@link MAX_VIEW_DEPTH} (args, a result, a job's value) is shown
 * as a placeholder string, live and on replay alike, so one absurd value cannot take the
 * whole view down with a stack overflow.
 */
import type { Tool } from '../define-tool.js';
import type { AgentRef, ContentBlock, DeniedBy, ToolErrorKind } from '../types.js';
import type { DecisionBy, EventOrigin, JobProgressInfo, ToolEvent } from '../events.js';
import type { JsonValue } from '../json.js';
import { genericCard, type Card, type CodeChildCall, type PendingCard, type ResultCard } from '../cards/card-schema.js';
import type { JobStatus } from '../jobs/job-manager.js';

/** How a call stands. */
export type CallStatus = 'pending' | 'ok' | 'error' | 'denied' | 'blocked';

/** One decision about a call, in order. */
export interface DecisionView {
  readonly stage: 'policy' | 'approval';
  readonly decision: 'allow' | 'deny' | 'ask';
  readonly by: DecisionBy;
  readonly reason?: string;
}

/** The result of a call, as logged. */
export interface ResultView {
  readonly isError: boolean;
  readonly value?: JsonValue;
  readonly content: readonly ContentBlock[];
  readonly additionalContexts: readonly string[];
  readonly denied?: { readonly by: DeniedBy; readonly reason: string; readonly index?: number };
  readonly blocked?: { readonly reason: string; readonly index: number };
  readonly error?: { readonly kind: ToolErrorKind; readonly message: string };
  readonly durationMs: number;
}

/** A PTC run hosted by a call (run_code). */
export interface RunView {
  readonly tokenId: string;
  readonly outcome?: 'ok' | 'thrown' | 'limit' | 'crash' | 'aborted';
  readonly limit?: { readonly name: string; readonly value: number };
  readonly calls?: number;
  /** Calls its program made after the token was revoked (refused). */
  readonly refused: readonly { readonly toolName: string; readonly reason: string }[];
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

/** Nesting depth beyond which a value is replaced by a placeholder in the view. */
export const MAX_VIEW_DEPTH = 256;

/** The value itself, or a placeholder when it is nested deeper than {@link MAX_VIEW_DEPTH}. */
function showable<T>(value: T): T | string {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_VIEW_DEPTH) return `[nested deeper than ${MAX_VIEW_DEPTH} levels: not shown]`;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return value;
}

interface CallState {
  callId: string;
  toolName: string;
  origin: EventOrigin;
  agent?: AgentRef;
  args: JsonValue;
  argsValid: boolean;
  startedAt: number;
  dispatch?: { args: JsonValue };
  decisions: DecisionView[];
  result?: ResultView;
  pendingCard?: PendingCard;
  resultCard?: ResultCard;
  run?: { tokenId: string; outcome?: RunView['outcome']; limit?: RunView['limit']; calls?: number; refused: { toolName: string; reason: string }[] };
  children: string[];
}

function lookup(source: PresenterSource | undefined): (name: string) => Tool | undefined {
  if (!source) return () => undefined;
  if (Array.isArray(source)) {
    const byName = new Map((source as readonly Tool[]).map((t) => [t.name, t]));
    return (name) => byName.get(name);
  }
  return (name) => (source as { get(name: string): Tool | undefined }).get(name);
}

function statusOf(call: CallState): CallStatus {
  const r = call.result;
  if (!r) return 'pending';
  if (r.denied) return 'denied';
  if (r.blocked) return 'blocked';
  return r.isError ? 'error' : 'ok';
}

/** Builds the session view from events, in order. */
export class SessionViewBuilder {
  private readonly calls = new Map<string, CallState>();
  private readonly roots: string[] = [];
  private readonly dispatches = new Map<string, { toolName: string; args: JsonValue }>();
  private readonly jobs = new Map<string, JobView>();
  private readonly tool: (name: string) => Tool | undefined;

  constructor(presenters?: PresenterSource) {
    this.tool = lookup(presenters);
  }

  /** Applies one event. Events it does not show are ignored. */
  apply(event: ToolEvent): void {
    switch (event.type) {
      case 'tool/ptc-dispatch':
        this.dispatches.set(event.pairId, { toolName: event.toolName, args: showable(event.args) });
        return;
      case 'tool/call': {
        if (this.calls.has(event.callId)) return; // a duplicated id keeps its first call
        const dispatch = this.dispatches.get(event.callId);
        this.dispatches.delete(event.callId);
        const call: CallState = {
          callId: event.callId,
          toolName: event.toolName,
          origin: event.origin,
          ...(event.agent ? { agent: event.agent } : {}),
          args: showable(event.args),
          argsValid: event.argsValid,
          startedAt: event.time,
          ...(dispatch ? { dispatch: { args: dispatch.args } } : {}),
          decisions: [],
          children: [],
        };
        const pending = event.argsValid ? this.tool(event.toolName)?.presentCall?.(call.args) : undefined;
        if (pending) call.pendingCard = pending;
        this.calls.set(call.callId, call);
        const parent = event.origin.kind === 'ptc' ? this.calls.get(event.origin.parentCallId) : undefined;
        if (parent && parent !== call) parent.children.push(call.callId);
        else this.roots.push(call.callId);
        return;
      }
      case 'tool/decision': {
        const call = this.calls.get(event.callId);
        call?.decisions.push({ stage: event.stage, decision: event.decision, by: event.by, ...(event.reason !== undefined ? { reason: event.reason } : {}) });
        return;
      }
      case 'tool/result': {
        const call = this.calls.get(event.callId);
        if (!call || call.result) return;
        call.result = {
          isError: event.isError,
          ...(event.value !== undefined ? { value: showable(event.value) } : {}),
          content: showable(event.content) as ResultView['content'],
          additionalContexts: event.additionalContexts,
          ...(event.denied ? { denied: event.denied } : {}),
          ...(event.blocked ? { blocked: event.blocked } : {}),
          ...(event.error ? { error: event.error } : {}),
          durationMs: event.durationMs,
        };
        if (!event.isError && event.value !== undefined && call.argsValid) {
          const card = this.tool(call.toolName)?.presentResult?.(call.args, event.value);
          if (card) call.resultCard = card;
        }
        return;
      }
      case 'ptc/run-start': {
        const call = this.calls.get(event.callId);
        if (call && !call.run) call.run = { tokenId: event.tokenId, refused: [] };
        return;
      }
      case 'ptc/run-end': {
        const run = this.calls.get(event.callId)?.run;
        if (!run) return;
        run.outcome = event.outcome;
        if (event.limit) run.limit = event.limit;
        run.calls = event.calls;
        return;
      }
      case 'ptc/call-refused':
        this.calls.get(event.parentCallId)?.run?.refused.push({ toolName: event.toolName, reason: event.reason });
        return;
      case 'job/start':
        if (!this.jobs.has(event.jobId)) {
          this.jobs.set(event.jobId, { jobId: event.jobId, kind: event.kind, label: event.label, ...(event.owner ? { owner: event.owner } : {}), status: 'running' });
        }
        return;
      case 'job/progress': {
        const job = this.jobs.get(event.jobId);
        if (job && job.status === 'running') this.jobs.set(event.jobId, { ...job, progress: event.progress });
        return;
      }
      case 'job/end': {
        const job = this.jobs.get(event.jobId);
        if (!job || job.status !== 'running') return;
        this.jobs.set(event.jobId, {
          ...job,
          status: event.status,
          ...(event.value !== undefined ? { value: showable(event.value) } : {}),
          ...(event.error !== undefined ? { error: event.error } : {}),
          outputBytes: event.outputBytes,
          droppedBytes: event.droppedBytes,
        });
        return;
      }
      default:
        return;
    }
  }

  /** The session as shown now: a fresh plain value. */
  snapshot(): SessionView {
    return structuredClone({
      calls: this.roots.map((id) => this.view(id, new Set())),
      jobs: [...this.jobs.values()],
      unmatchedDispatches: [...this.dispatches].map(([pairId, d]) => ({ pairId, toolName: d.toolName, args: d.args })),
    });
  }

  private view(callId: string, path: Set<string>): CallView {
    const call = this.calls.get(callId)!;
    path.add(callId);
    const children = call.children.filter((id) => !path.has(id)).map((id) => this.view(id, path));
    path.delete(callId);
    const status = statusOf(call);
    return {
      callId: call.callId,
      toolName: call.toolName,
      origin: call.origin,
      ...(call.agent ? { agent: call.agent } : {}),
      args: call.args,
      argsValid: call.argsValid,
      startedAt: call.startedAt,
      ...(call.dispatch ? { dispatch: call.dispatch } : {}),
      decisions: call.decisions,
      status,
      ...(call.result ? { result: call.result } : {}),
      card: withChildren(cardOf(call, status), children),
      ...(call.run ? { run: call.run } : {}),
      children,
    };
  }
}

function cardOf(call: CallState, status: CallStatus): Card {
  if (status === 'pending') return call.pendingCard ?? genericCard('pending', call.toolName);
  if (status === 'ok') return call.resultCard ?? genericCard('result', call.toolName);
  const why = call.result?.denied ? `denied: ${call.result.denied.reason}` : call.result?.blocked ? `blocked: ${call.result.blocked.reason}` : (call.result?.error?.message ?? 'failed');
  return genericCard('result', call.toolName, why);
}

/** A `code` card lists its program's calls; the presenter cannot know them, the log does. */
function withChildren(card: Card, children: readonly CallView[]): Card {
  if (card.card !== 'code') return card;
  const calls: CodeChildCall[] = children.map((c) => ({ callId: c.callId, toolName: c.toolName, status: c.status }));
  return { ...card, calls };
}
