/**
 * Reading one logged event back, defensively. A log is a file: it may be old, cut short, edited
 * or hostile. Each known event type is checked field by field and copied into a fresh plain
 * object (through the JSON copier, so a `__proto__` key stays an ordinary key); anything that
 * does not fit is reported as a problem naming the event type and field, never thrown.
 */
import { toJson, type JsonValue } from '../json.js';
import type {
  DecisionBy,
  EventOrigin,
  JobEndEvent,
  JobProgressEvent,
  JobStartEvent,
  PtcCallRefusedEvent,
  PtcDispatchEvent,
  PtcRunEndEvent,
  PtcRunStartEvent,
  ToolCallEvent,
  ToolDecisionEvent,
  ToolEvent,
  ToolResultEvent,
} from '../events.js';

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
    return toJson(own(o, key) ?? null);
  } catch (err) {
    throw new FieldError(err instanceof RangeError ? `${key} is nested too deeply to read` : `${key} is not JSON`);
  }
}
function obj(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = own(o, key);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new FieldError(`${key} is not an object`);
  return v as Record<string, unknown>;
}
function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function origin(o: Record<string, unknown>): EventOrigin {
  const raw = obj(o, 'origin');
  const kind = own(raw, 'kind');
  if (kind === 'model') return { kind: 'model' };
  if (kind === 'ptc') return { kind: 'ptc', parentCallId: str(raw, 'parentCallId'), tokenId: typeof own(raw, 'tokenId') === 'string' ? str(raw, 'tokenId') : '' };
  throw new FieldError('origin.kind is neither "model" nor "ptc"');
}
function agent(o: Record<string, unknown>, key = 'agent') {
  if (own(o, key) === undefined) return undefined;
  const raw = obj(o, key);
  const name = optStr(raw, 'name');
  return name === undefined ? { id: str(raw, 'id') } : { id: str(raw, 'id'), name };
}
function by(o: Record<string, unknown>): DecisionBy {
  const raw = obj(o, 'by');
  const kind = own(raw, 'kind');
  if (kind === 'default' || kind === 'approval') return { kind };
  if (kind === 'listener' || kind === 'guard') return { kind, index: num(raw, 'index') };
  throw new FieldError('by.kind is unknown');
}
function content(o: Record<string, unknown>) {
  const raw = own(o, 'content');
  if (!Array.isArray(raw)) throw new FieldError('content is not an array');
  return json(o, 'content') as unknown as ToolResultEvent['content'];
}

const stamp = (o: Record<string, unknown>) => ({ seq: num(o, 'seq'), time: num(o, 'time') });

type Reader = (o: Record<string, unknown>) => ToolEvent;

const readers = new Map<string, Reader>([
  ['tool/call', (o): ToolCallEvent => ({
    ...stamp(o), type: 'tool/call', callId: str(o, 'callId'), toolName: str(o, 'toolName'), args: json(o, 'args'),
    argsValid: own(o, 'argsValid') !== false, origin: origin(o), ...opt('agent', agent(o)),
  })],
  ['tool/decision', (o): ToolDecisionEvent => {
    const stage = own(o, 'stage') === 'approval' ? 'approval' : 'policy';
    const decision = own(o, 'decision');
    if (decision !== 'allow' && decision !== 'deny' && decision !== 'ask') throw new FieldError('decision is not allow, deny or ask');
    return { ...stamp(o), type: 'tool/decision', callId: str(o, 'callId'), toolName: str(o, 'toolName'), stage, decision, by: by(o), ...opt('reason', optStr(o, 'reason')) };
  }],
  ['tool/result', (o): ToolResultEvent => ({
    ...stamp(o), type: 'tool/result', callId: str(o, 'callId'), toolName: str(o, 'toolName'), isError: own(o, 'isError') === true,
    ...(own(o, 'value') !== undefined ? { value: json(o, 'value') } : {}),
    content: content(o),
    additionalContexts: (Array.isArray(own(o, 'additionalContexts')) ? (own(o, 'additionalContexts') as unknown[]).filter((c): c is string => typeof c === 'string') : []),
    ...(own(o, 'denied') !== undefined ? { denied: json(o, 'denied') as unknown as ToolResultEvent['denied'] } : {}),
    ...(own(o, 'blocked') !== undefined ? { blocked: json(o, 'blocked') as unknown as ToolResultEvent['blocked'] } : {}),
    ...(own(o, 'error') !== undefined ? { error: json(o, 'error') as unknown as ToolResultEvent['error'] } : {}),
    post: (Array.isArray(own(o, 'post')) ? json(o, 'post') : []) as unknown as ToolResultEvent['post'],
    durationMs: typeof own(o, 'durationMs') === 'number' ? num(o, 'durationMs') : 0,
  })],
  ['tool/ptc-dispatch', (o): PtcDispatchEvent => ({ ...stamp(o), type: 'tool/ptc-dispatch', pairId: str(o, 'pairId'), toolName: str(o, 'toolName'), args: json(o, 'args') })],
  ['ptc/run-start', (o): PtcRunStartEvent => ({ ...stamp(o), type: 'ptc/run-start', callId: str(o, 'callId'), tokenId: str(o, 'tokenId') })],
  ['ptc/run-end', (o): PtcRunEndEvent => {
    const outcome = own(o, 'outcome');
    if (outcome !== 'ok' && outcome !== 'thrown' && outcome !== 'limit' && outcome !== 'crash' && outcome !== 'aborted') throw new FieldError('outcome is unknown');
    const limit = own(o, 'limit') === undefined ? undefined : { name: str(obj(o, 'limit'), 'name'), value: num(obj(o, 'limit'), 'value') };
    return { ...stamp(o), type: 'ptc/run-end', callId: str(o, 'callId'), tokenId: str(o, 'tokenId'), outcome, ...opt('limit', limit), calls: num(o, 'calls'), durationMs: num(o, 'durationMs') };
  }],
  ['ptc/call-refused', (o): PtcCallRefusedEvent => ({
    ...stamp(o), type: 'ptc/call-refused', parentCallId: str(o, 'parentCallId'), tokenId: str(o, 'tokenId'), toolName: str(o, 'toolName'), reason: str(o, 'reason'),
  })],
  ['job/start', (o): JobStartEvent => ({ ...stamp(o), type: 'job/start', jobId: str(o, 'jobId'), kind: str(o, 'kind'), label: str(o, 'label'), ...opt('owner', agent(o, 'owner')) })],
  ['job/progress', (o): JobProgressEvent => {
    const p = obj(o, 'progress');
    const progress = { ...opt('message', optStr(p, 'message')), ...opt('done', own(p, 'done') === undefined ? undefined : num(p, 'done')), ...opt('total', own(p, 'total') === undefined ? undefined : num(p, 'total')) };
    return { ...stamp(o), type: 'job/progress', jobId: str(o, 'jobId'), progress };
  }],
  ['job/end', (o): JobEndEvent => {
    const status = own(o, 'status');
    if (status !== 'succeeded' && status !== 'failed' && status !== 'killed') throw new FieldError('status is unknown');
    return {
      ...stamp(o), type: 'job/end', jobId: str(o, 'jobId'), status,
      ...(own(o, 'value') !== undefined ? { value: json(o, 'value') } : {}),
      ...opt('error', optStr(o, 'error')),
      outputBytes: num(o, 'outputBytes'), droppedBytes: num(o, 'droppedBytes'), durationMs: num(o, 'durationMs'),
    };
  }],
]);

/** Checks and copies one parsed log object into a typed event; never throws. */
export function readEvent(raw: Record<string, unknown>): ReadEventResult {
  const type = own(raw, 'type');
  const reader = typeof type === 'string' ? readers.get(type) : undefined;
  if (!reader) return { ok: false, problem: `unknown event type ${JSON.stringify(typeof type === 'string' ? type.slice(0, 100) : String(type))}` };
  try {
    return { ok: true, event: reader(raw) };
  } catch (err) {
    if (err instanceof FieldError) return { ok: false, problem: `${type as string}: ${err.message}` };
    return { ok: false, problem: `${type as string}: unreadable (${err instanceof Error ? err.message : String(err)})` };
  }
}
