/**
 * The attribute names the sink writes, in one place, and the readers of untrusted event fields. `gen_ai.*` and `error.type` are the
 * OpenTelemetry GenAI semantic conventions' execute-tool span (semantic-conventions-genai,
 * `docs/gen-ai/gen-ai-spans.md`, "Execute tool span"; status Development). They are copied as
 * strings, as the conventions advise while they are not stable: `@opentelemetry/semantic-conventions`
 * exports them only from its `incubating` entry point. Ours are under `ptc.`.
 */
import type { Attributes } from '@opentelemetry/api';
import { MAX_TEXT_CHARS, textField } from './bounded-text.js';

/** GenAI semantic-convention names (execute-tool span). */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolDescription: 'gen_ai.tool.description',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
} as const;

/** The operation name and span-name prefix of a tool call. */
export const EXECUTE_TOOL = 'execute_tool';

/** Our attributes. */
export const PTC = {
  originKind: 'ptc.origin.kind',
  parentCallId: 'ptc.parent_call_id',
  originProvider: 'ptc.origin.provider',
  originCallerId: 'ptc.origin.caller_id',
  runTokenId: 'ptc.run.token_id',
  argsValid: 'ptc.args.valid',
  decision: 'ptc.decision',
  decisionBy: 'ptc.decision.by',
  decisionIndex: 'ptc.decision.index',
  decisionStage: 'ptc.decision.stage',
  decisionReason: 'ptc.decision.reason',
  approval: 'ptc.approval',
  approvalVia: 'ptc.approval.via',
  approvalFramework: 'ptc.approval.framework',
  approvalId: 'ptc.approval.id',
  deniedBy: 'ptc.denied.by',
  blocked: 'ptc.blocked',
  blockedIndex: 'ptc.blocked.index',
  postExecute: 'ptc.post_execute',
  durationMs: 'ptc.duration_ms',
  incomplete: 'ptc.incomplete',
  pairId: 'ptc.pair_id',
  reason: 'ptc.reason',
  runOutcome: 'ptc.run.outcome',
  runCalls: 'ptc.run.calls',
  runDurationMs: 'ptc.run.duration_ms',
  limitName: 'ptc.limit.name',
  limitValue: 'ptc.limit.value',
  jobId: 'ptc.job.id',
  jobKind: 'ptc.job.kind',
  jobLabel: 'ptc.job.label',
  jobStatus: 'ptc.job.status',
  jobDone: 'ptc.job.done',
  jobTotal: 'ptc.job.total',
  jobMessage: 'ptc.job.message',
  jobValue: 'ptc.job.value',
  jobOutputBytes: 'ptc.job.output_bytes',
  jobDroppedBytes: 'ptc.job.dropped_bytes',
} as const;

/** Span event names (on the run_code span, on job spans, and decisions on every call span). */
export const SPAN_EVENT = {
  decision: 'ptc.decision',
  runStart: 'ptc.run.start',
  runEnd: 'ptc.run.end',
  dispatch: 'ptc.dispatch',
  callRefused: 'ptc.call_refused',
  jobProgress: 'ptc.job.progress',
} as const;

/** Identifiers are short; a longer one is cut (an id is never a place for a value). */
const MAX_ID_CHARS = 256;

/**
 * An origin as attributes, read field by field so a kind this version does not know (the
 * provider-program origin, say, or one added later) still gives its kind and whatever known
 * fields it has: `parentCallId` and `tokenId` (a PTC run), `provider` and `callerId` (a
 * provider-run program). The token itself never reaches an event, so it cannot reach a span.
 */
export function originAttributes(origin: unknown): Attributes {
  if (typeof origin !== 'object' || origin === null) return { [PTC.originKind]: 'unknown' };
  const o = origin as Record<string, unknown>;
  const attributes: Attributes = { [PTC.originKind]: textField(o.kind, 64) ?? 'unknown' };
  const put = (name: string, value: unknown) => {
    const text = textField(value, MAX_ID_CHARS);
    if (text !== undefined) attributes[name] = text;
  };
  put(PTC.parentCallId, o.parentCallId);
  put(PTC.runTokenId, o.tokenId);
  put(PTC.originProvider, o.provider);
  put(PTC.originCallerId, o.callerId);
  return attributes;
}

/** An id or name as an attribute value. */
export function idText(value: unknown): string | undefined {
  return textField(value, MAX_ID_CHARS);
}

/** A reason or message as an attribute value or status message. */
export function messageText(value: unknown): string | undefined {
  return textField(value, MAX_TEXT_CHARS);
}

/** A finite number, or undefined. */
export function numberField(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** An event as untrusted fields: each is checked before use (`host.emit` is public). */
export type Fields = Record<string, unknown>;

/** Handlers by event type. */
export type EventHandlers = Record<string, (event: Fields) => void>;

/** The event's time (the host's `now`, epoch ms by default), when it is a usable number. */
export function timeOf(e: Fields): number | undefined {
  return typeof e.time === 'number' && Number.isFinite(e.time) && e.time >= 0 ? e.time : undefined;
}

/** `{ startTime }` for span options, or nothing (the SDK then takes its own clock). */
export function startTime(e: Fields): { startTime?: number } {
  const time = timeOf(e);
  return time === undefined ? {} : { startTime: time };
}

/** Attributes without the undefined ones (the API would drop each with a diagnostic line). */
export function defined(attributes: Record<string, Attributes[string]>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}
