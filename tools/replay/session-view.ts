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
 * `__proto__` or `constructor` is just a call. A `snapshot()` is built afresh every time; the
 * leaf values it shares (args, results, job values, decisions) are deep-frozen, so a UI cannot
 * change what the builder holds.
 * A value nested deeper than {@link MAX_VIEW_DEPTH} (args, a result, a job's value) is shown
 * as a placeholder string, live and on replay alike, so one absurd value cannot take the
 * whole view down with a stack overflow.
 */
import type { Tool } from '../tool-types.js';
import type { AgentRef, ContentBlock } from '../types.js';
import type { EventOrigin, ToolEvent } from '../events.js';
import { deepFreeze, type JsonValue } from '../json.js';
import { genericCard, type Card, type CodeChildCall, type PendingCard, type ResultCard } from '../cards/card-schema.js';
import type { CallStatus, CallView, DecisionView, JobView, PresenterSource, ResultView, RunView, SessionView } from './view-types.js';

/** Nesting depth beyond which a value is replaced by a placeholder in the view. */
export const MAX_VIEW_DEPTH = 256;

/** The value deep-frozen, or a placeholder when it is nested deeper than {@link MAX_VIEW_DEPTH}. */
function showable<T extends JsonValue | readonly ContentBlock[]>(value: T): T | string {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_VIEW_DEPTH) return `[nested deeper than ${MAX_VIEW_DEPTH} levels: not shown]`;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepFreeze(value as JsonValue) as T;
}

/** Sets `key` only when `value` is defined (plain assignment: object spread is slow in V8). */
function put<T extends object>(target: T, key: string, value: unknown): T {
  if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  return target;
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
  run?: { tokenId: string; outcome?: RunView['outcome']; limit?: RunView['limit']; calls?: number; refused: { toolName: string; reason: string; count?: number }[] };
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

/** A copy of a logged origin, frozen (the event's object stays the sink's). */
function viewOrigin(origin: EventOrigin): EventOrigin {
  switch (origin.kind) {
    case 'ptc':
      return Object.freeze({ kind: 'ptc', parentCallId: origin.parentCallId, tokenId: origin.tokenId });
    case 'provider-program':
      return Object.freeze({ kind: 'provider-program', provider: origin.provider, callerId: origin.callerId });
    default:
      return Object.freeze({ kind: 'model' });
  }
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
          origin: viewOrigin(event.origin),
          args: showable(event.args),
          argsValid: event.argsValid,
          startedAt: event.time,
          decisions: [],
          children: [],
        };
        if (event.agent) call.agent = Object.freeze(put({ id: event.agent.id }, 'name', event.agent.name)); // a copy: the caller's object stays theirs
        if (dispatch) call.dispatch = Object.freeze({ args: dispatch.args });
        const pending = event.argsValid ? this.tool(event.toolName)?.presentCall?.(call.args) : undefined;
        if (pending) call.pendingCard = pending;
        this.calls.set(call.callId, call);
        const parent = event.origin.kind === 'ptc' ? this.calls.get(event.origin.parentCallId) : undefined;
        if (parent && parent !== call) parent.children.push(call.callId);
        else this.roots.push(call.callId);
        return;
      }
      case 'tool/decision': {
        const decision = put({ stage: event.stage, decision: event.decision, by: event.by }, 'reason', event.reason);
        this.calls.get(event.callId)?.decisions.push(deepFreeze(decision as unknown as JsonValue) as unknown as DecisionView);
        return;
      }
      case 'tool/result': {
        const call = this.calls.get(event.callId);
        if (!call || call.result) return;
        const result: Record<string, unknown> = { isError: event.isError };
        if (event.value !== undefined) result.value = showable(event.value);
        result.content = showable(event.content);
        result.additionalContexts = event.additionalContexts;
        put(result, 'denied', event.denied);
        put(result, 'blocked', event.blocked);
        put(result, 'error', event.error);
        result.durationMs = event.durationMs;
        call.result = deepFreeze(result as JsonValue) as unknown as ResultView;
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
        if (event.limit) run.limit = { name: event.limit.name, value: event.limit.value };
        run.calls = event.calls;
        return;
      }
      case 'ptc/call-refused':
        this.calls.get(event.parentCallId)?.run?.refused.push(Object.freeze(put({ toolName: event.toolName, reason: event.reason }, 'count', event.count)));
        return;
      case 'job/start':
        if (!this.jobs.has(event.jobId)) {
          const job = put({ jobId: event.jobId, kind: event.kind, label: event.label }, 'owner', event.owner);
          this.jobs.set(event.jobId, deepFreeze({ ...job, status: 'running' } as unknown as JsonValue) as unknown as JobView);
        }
        return;
      case 'job/progress': {
        const job = this.jobs.get(event.jobId);
        if (job && job.status === 'running') this.jobs.set(event.jobId, deepFreeze({ ...job, progress: event.progress } as unknown as JsonValue) as unknown as JobView);
        return;
      }
      case 'job/end': {
        const job = this.jobs.get(event.jobId);
        if (!job || job.status !== 'running') return;
        const ended: Record<string, unknown> = { ...job, status: event.status };
        if (event.value !== undefined) ended.value = showable(event.value);
        put(ended, 'error', event.error);
        ended.outputBytes = event.outputBytes;
        ended.droppedBytes = event.droppedBytes;
        this.jobs.set(event.jobId, deepFreeze(ended as JsonValue) as unknown as JobView);
        return;
      }
      default:
        return;
    }
  }

  /** The session as shown now: fresh containers over frozen leaf values. */
  snapshot(): SessionView {
    return {
      calls: this.roots.map((id) => this.view(id, new Set())),
      jobs: [...this.jobs.values()],
      unmatchedDispatches: [...this.dispatches].map(([pairId, d]) => ({ pairId, toolName: d.toolName, args: d.args })),
    };
  }

  private view(callId: string, path: Set<string>): CallView {
    const call = this.calls.get(callId)!;
    path.add(callId);
    const children = call.children.filter((id) => !path.has(id)).map((id) => this.view(id, path));
    path.delete(callId);
    const status = statusOf(call);
    const view: Record<string, unknown> = { callId: call.callId, toolName: call.toolName, origin: call.origin };
    put(view, 'agent', call.agent);
    view.args = call.args;
    view.argsValid = call.argsValid;
    view.startedAt = call.startedAt;
    put(view, 'dispatch', call.dispatch);
    view.decisions = [...call.decisions];
    view.status = status;
    put(view, 'result', call.result);
    view.card = withChildren(cardOf(call, status), children);
    if (call.run) view.run = { ...call.run, refused: [...call.run.refused] };
    view.children = children;
    return view as unknown as CallView;
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
