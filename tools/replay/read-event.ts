/**
 * Reading one logged event back, defensively. A log is a file: it may be old, cut short, edited
 * or hostile. Each known event type is checked field by field and copied into a fresh plain
 * object (through the JSON copier, keeping prototype keys as ordinary own keys: a log is read for
 * display, never handed to a tool); anything that
 * does not fit is reported as a problem naming the event type and field, never thrown.
 */
import { errorText } from '../errors.js';
import { toJson, type JsonValue } from '../json.js';
import type { AgentRef } from '../types.js';
import type {
  DecisionBy,
  EventOrigin,
  JobEndEvent,
  JobProgressEvent,
  JobStartEvent,
  PtcCallRefusedEvent,
  PtcRunResumedEvent,
  PtcRunSuspendedEvent,
  PtcDispatchEvent,
  PtcRunEndEvent,
  PtcRunStartEvent,
  ToolCallEvent,
  ToolDecisionEvent,
  ToolEvent,
  ToolLogEvent,
  ToolProgressEvent,
  ToolResultEvent,
} from '../events.js';
import { LOG_LEVELS } from '../events.js';

/** A field check failed, or the type is unknown. */
export type ReadEventResult = { readonly ok: true; readonly event: ToolEvent } | { readonly ok: false; readonly problem: string };

const own = (o: Record<string, unknown>, key: string): unknown => (Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined);

class FieldError extends Error {}

function str(o: Record<string, unknown>, key: string): string {
  const v = own(o, key);
  if (typeof v !== 'string') throw new FieldError(`${key} is not a string`);
  return v;
}
function num(o: Record<string, unknown>, key: string): number {
  const v = own(o, key);
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new FieldError(`${key} is not a number`);
  return v;
}
function optStr(o: Record<string, unknown>, key: string): string | undefined {
  return own(o, key) === undefined ? undefined : str(o, key);
}
function json(o: Record<string, unknown>, key: string): JsonValue {
  try {
    return toJson(own(o, key) ?? null, '$', { prototypeKeys: 'keep' });
  } catch (err) {
    throw new FieldError(err instanceof RangeError ? `${key} is nested too deeply to read` : `${key} is not JSON`);
  }
}
function obj(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = own(o, key);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new FieldError(`${key} is not an object`);
  return v as Record<string, unknown>;
}
/** Sets `key` on `target` only when `value` is defined (plain assignment: no spread, which is slow in V8). */
function put<T extends object>(target: T, key: string, value: unknown): T {
  if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  return target;
}

function origin(o: Record<string, unknown>): EventOrigin {
  const raw = obj(o, 'origin');
  const kind = own(raw, 'kind');
  if (kind === 'model') return { kind: 'model' };
  if (kind === 'ptc') return { kind: 'ptc', parentCallId: str(raw, 'parentCallId'), tokenId: typeof own(raw, 'tokenId') === 'string' ? str(raw, 'tokenId') : '' };
  if (kind === 'provider-program') {
    const provider = own(raw, 'provider');
    if (provider !== 'anthropic' && provider !== 'openai') throw new FieldError('origin.provider is neither "anthropic" nor "openai"');
    return { kind, provider, callerId: str(raw, 'callerId') };
  }
  throw new FieldError('origin.kind is not "model", "ptc" or "provider-program"');
}
function agent(o: Record<string, unknown>, key = 'agent'): AgentRef | undefined {
  if (own(o, key) === undefined) return undefined;
  const raw = obj(o, key);
  return put({ id: str(raw, 'id') }, 'name', optStr(raw, 'name'));
}
function by(o: Record<string, unknown>): DecisionBy {
  const raw = obj(o, 'by');
  const kind = own(raw, 'kind');
  if (kind === 'approval' && own(raw, 'via') === 'framework') {
    const framework: DecisionBy = { kind, via: 'framework', framework: str(raw, 'framework') };
    return put(put(framework, 'approvalId', optStr(raw, 'approvalId')), 'note', optStr(raw, 'note'));
  }
  if (kind === 'approval' && own(raw, 'via') === 'durable') {
    return put({ kind, via: 'durable', approvalId: str(raw, 'approvalId') } as DecisionBy, 'by', optStr(raw, 'by'));
  }
  if (kind === 'default') return { kind };
  if (kind === 'approval') return { kind };
  if (kind === 'listener' || kind === 'guard') return { kind, index: num(raw, 'index') };
  throw new FieldError('by.kind is unknown');
}
function optJson(o: Record<string, unknown>, key: string): JsonValue | undefined {
  return own(o, key) === undefined ? undefined : json(o, key);
}
function optNum(o: Record<string, unknown>, key: string): number | undefined {
  return own(o, key) === undefined ? undefined : num(o, key);
}

type Reader = (o: Record<string, unknown>, seq: number, time: number) => ToolEvent;

const readers = new Map<string, Reader>([
  ['tool/call', (o, seq, time) => {
    const event = { seq, time, type: 'tool/call', callId: str(o, 'callId'), toolName: str(o, 'toolName'), args: json(o, 'args'), argsValid: own(o, 'argsValid') !== false, origin: origin(o) };
    return put(event, 'agent', agent(o)) as ToolCallEvent;
  }],
  ['tool/decision', (o, seq, time) => {
    const stage = own(o, 'stage') === 'approval' ? 'approval' : 'policy';
    const decision = own(o, 'decision');
    if (decision !== 'allow' && decision !== 'deny' && decision !== 'ask' && decision !== 'defer') throw new FieldError('decision is not allow, deny, ask or defer');
    const event = { seq, time, type: 'tool/decision', callId: str(o, 'callId'), toolName: str(o, 'toolName'), stage, decision, by: by(o) };
    return put(event, 'reason', optStr(o, 'reason')) as ToolDecisionEvent;
  }],
  ['tool/result', (o, seq, time) => {
    if (!Array.isArray(own(o, 'content'))) throw new FieldError('content is not an array');
    const contexts = own(o, 'additionalContexts');
    const event: Record<string, unknown> = { seq, time, type: 'tool/result', callId: str(o, 'callId'), toolName: str(o, 'toolName'), isError: own(o, 'isError') === true };
    put(event, 'value', optJson(o, 'value'));
    event.content = json(o, 'content');
    event.additionalContexts = Array.isArray(contexts) ? contexts.filter((c): c is string => typeof c === 'string') : [];
    put(event, 'denied', optJson(o, 'denied'));
    put(event, 'blocked', optJson(o, 'blocked'));
    put(event, 'error', optJson(o, 'error'));
    put(event, 'deferred', optJson(o, 'deferred'));
    event.post = Array.isArray(own(o, 'post')) ? json(o, 'post') : [];
    event.durationMs = typeof own(o, 'durationMs') === 'number' ? num(o, 'durationMs') : 0;
    return event as unknown as ToolResultEvent;
  }],
  ['tool/ptc-dispatch', (o, seq, time): PtcDispatchEvent => ({ seq, time, type: 'tool/ptc-dispatch', pairId: str(o, 'pairId'), toolName: str(o, 'toolName'), args: json(o, 'args') })],
  ['ptc/run-start', (o, seq, time): PtcRunStartEvent => ({ seq, time, type: 'ptc/run-start', callId: str(o, 'callId'), tokenId: str(o, 'tokenId') })],
  ['ptc/run-end', (o, seq, time) => {
    const outcome = own(o, 'outcome');
    if (outcome !== 'ok' && outcome !== 'thrown' && outcome !== 'limit' && outcome !== 'crash' && outcome !== 'aborted' && outcome !== 'suspended' && outcome !== 'diverged') throw new FieldError('outcome is unknown');
    const limit = own(o, 'limit') === undefined ? undefined : { name: str(obj(o, 'limit'), 'name'), value: num(obj(o, 'limit'), 'value') };
    const event = { seq, time, type: 'ptc/run-end', callId: str(o, 'callId'), tokenId: str(o, 'tokenId'), outcome };
    put(event, 'limit', limit);
    return Object.assign(event, { calls: num(o, 'calls'), durationMs: num(o, 'durationMs') }) as PtcRunEndEvent;
  }],
  ['ptc/run-suspended', (o, seq, time) =>
    ({ seq, time, type: 'ptc/run-suspended', callId: str(o, 'callId'), tokenId: str(o, 'tokenId'), runId: str(o, 'runId'), pending: json(o, 'pending'), expiresAt: num(o, 'expiresAt') }) as unknown as PtcRunSuspendedEvent],
  ['ptc/run-resumed', (o, seq, time) =>
    put(
      { seq, time, type: 'ptc/run-resumed', callId: str(o, 'callId'), tokenId: str(o, 'tokenId'), runId: str(o, 'runId'), segment: num(o, 'segment'), replayedCalls: num(o, 'replayedCalls'), decisions: json(o, 'decisions') },
      'prevTraceHead',
      optJson(o, 'prevTraceHead'),
    ) as unknown as PtcRunResumedEvent],
  ['ptc/call-refused', (o, seq, time) =>
    put({ seq, time, type: 'ptc/call-refused', parentCallId: str(o, 'parentCallId'), tokenId: str(o, 'tokenId'), toolName: str(o, 'toolName'), reason: str(o, 'reason') }, 'count', optNum(o, 'count')) as PtcCallRefusedEvent],
  ['tool/progress', (o, seq, time) =>
    put(put({ seq, time, type: 'tool/progress', callId: str(o, 'callId'), toolName: str(o, 'toolName'), progress: num(o, 'progress') }, 'total', optNum(o, 'total')), 'message', optStr(o, 'message')) as ToolProgressEvent],
  ['tool/log', (o, seq, time): ToolLogEvent => {
    const level = own(o, 'level');
    if (!(LOG_LEVELS as readonly unknown[]).includes(level)) throw new FieldError('level is unknown');
    return { seq, time, type: 'tool/log', callId: str(o, 'callId'), toolName: str(o, 'toolName'), level: level as ToolLogEvent['level'], message: str(o, 'message') };
  }],
  ['job/start', (o, seq, time) => put({ seq, time, type: 'job/start', jobId: str(o, 'jobId'), kind: str(o, 'kind'), label: str(o, 'label') }, 'owner', agent(o, 'owner')) as JobStartEvent],
  ['job/progress', (o, seq, time): JobProgressEvent => {
    const p = obj(o, 'progress');
    const progress = put(put(put({}, 'message', optStr(p, 'message')), 'done', optNum(p, 'done')), 'total', optNum(p, 'total'));
    return { seq, time, type: 'job/progress', jobId: str(o, 'jobId'), progress };
  }],
  ['job/end', (o, seq, time) => {
    const status = own(o, 'status');
    if (status !== 'succeeded' && status !== 'failed' && status !== 'killed') throw new FieldError('status is unknown');
    const event: Record<string, unknown> = { seq, time, type: 'job/end', jobId: str(o, 'jobId'), status };
    put(event, 'value', optJson(o, 'value'));
    put(event, 'error', optStr(o, 'error'));
    event.outputBytes = num(o, 'outputBytes');
    event.droppedBytes = num(o, 'droppedBytes');
    event.durationMs = num(o, 'durationMs');
    return event as unknown as JobEndEvent;
  }],
]);

/** Checks and copies one parsed log object into a typed event; never throws. */
export function readEvent(raw: Record<string, unknown>): ReadEventResult {
  const type = own(raw, 'type');
  const reader = typeof type === 'string' ? readers.get(type) : undefined;
  if (!reader) return { ok: false, problem: `unknown event type ${JSON.stringify(typeof type === 'string' ? type.slice(0, 100) : String(type))}` };
  try {
    return { ok: true, event: reader(raw, num(raw, 'seq'), num(raw, 'time')) };
  } catch (err) {
    if (err instanceof FieldError) return { ok: false, problem: `${type as string}: ${err.message}` };
    return { ok: false, problem: `${type as string}: unreadable (${errorText(err)})` };
  }
}
