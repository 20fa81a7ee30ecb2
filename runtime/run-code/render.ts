/**
 * What the model reads of a run_code result. The canonical value keeps everything (the call
 * list, stats) for programs, UIs and audits; the model's content is only what it needs to go on:
 * the result, the logs, one line of call counts, and the calls that did not succeed. Listing
 * every call and the timing stats would put back into the context much of what PTC keeps out.
 *
 * The report's structure is its lines: `result:`, `logs:`, `calls:` start at column 0, and
 * nothing a program controls may make a line of its own. So every log entry is one line framed
 * as `  | text`, with line breaks and control characters in it shown as escapes
 * (`console.log('a\nresult: "FORGED"')` cannot forge a result line), and every other untrusted
 * text (a tool name the sandbox sent, a diagnostic) is escaped the same way. JSON text has no
 * raw line breaks except U+2028/U+2029, which are escaped too.
 *
 * The part renderers are exported because the output cap (output-cap.ts) sizes what it keeps by
 * the bytes of this very text.
 */
import { readableJson, type ContentBlock, type JsonValue } from '../../tools/index.js';
import type { SpilledPart } from './output-cap.js';

/** Calls that did not succeed, listed by name in the content at most. */
const MAX_LISTED_FAILURES = 10;

type Rendered = { calls?: { tool: string; status: string; settlement?: string }[]; [key: string]: JsonValue | undefined };

/**
 * Renders run_code's value (a run, a rejection or a background handle) as one text block.
 * `maxBytes` (the run's `maxOutputBytes`): the result is indented only if the whole text then
 * fits, else compact.
 */
export function renderRunCode(value: JsonValue, maxBytes = Number.POSITIVE_INFINITY): ContentBlock[] {
  return [{ type: 'text', text: renderText(value, maxBytes) }];
}

/** The whole text of {@link renderRunCode}. */
export function renderText(value: JsonValue, maxBytes = Number.POSITIVE_INFINITY): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return oneLine(JSON.stringify(value));
  const v = value as Rendered;
  if (v.kind === 'background') return `Started in the background: ${oneLine(JSON.stringify(value))}. Read the outcome with job_read.`;
  if (typeof v.rejected === 'string') return [oneLine(v.rejected), ...diagnosticLines(v.diagnostics)].join('\n');
  if (typeof v.suspended === 'object' && v.suspended !== null && !Array.isArray(v.suspended)) return suspendedText(v.suspended as Record<string, JsonValue>);
  const result = v.result ?? null;
  const rest = [logsPart(v.logs), framePart(v)];
  const compact = resultPart(result, 'compact');
  // Indentation is a courtesy: never when it would push the report over its cap.
  if (isSpilledPart(result) || Buffer.byteLength(compact, 'utf8') > maxBytes) return joinParts([compact, ...rest]);
  const readable = joinParts([resultPart(result), ...rest]);
  return Buffer.byteLength(readable, 'utf8') <= maxBytes ? readable : joinParts([compact, ...rest]);
}

/** Parts joined as the report shows them (empty parts left out). */
export function joinParts(parts: readonly string[]): string {
  return parts.filter((p) => p !== '').join('\n');
}

/** The `result:` part: readable (or `'compact'`) JSON, or a spill notice with the start and end of the JSON. */
export function resultPart(result: JsonValue | SpilledPart, form: 'readable' | 'compact' = 'readable'): string {
  if (isSpilledPart(result)) return spilledText('result', result);
  return `result: ${escapeLineBreaks(form === 'compact' ? JSON.stringify(result) : readableJson(result))}`;
}

/** The `logs:` part, one framed line per entry (empty when there are none). */
export function logsPart(logs: JsonValue | SpilledPart | undefined): string {
  if (isSpilledPart(logs)) return spilledText('logs', logs);
  if (Array.isArray(logs)) return logs.length === 0 ? '' : ['logs:', ...logLines(logs.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))))].join('\n');
  return logs === undefined || logs === null ? '' : `logs: ${oneLine(JSON.stringify(logs))}`;
}

/** Log entries as the report frames them: `  | text`, one line each. */
export function logLines(logs: readonly string[]): string[] {
  return logs.map((line) => `  | ${oneLine(line)}`);
}

/** The call counts, the calls that did not succeed and type warnings. */
export function framePart(v: { calls?: JsonValue; stats?: JsonValue; diagnostics?: JsonValue }): string {
  const out: string[] = [];
  const counts = (v.stats as { calls?: Record<string, number> } | undefined)?.calls;
  if (counts && typeof counts.total === 'number') {
    const parts = (['ok', 'error', 'denied', 'refused', 'interrupted'] as const).filter((k) => (counts[k] ?? 0) > 0).map((k) => `${counts[k]} ${k}`);
    out.push(`calls: ${counts.total}${parts.length ? ` (${parts.join(', ')})` : ''}`);
  }
  const calls = Array.isArray(v.calls) ? (v.calls as Rendered['calls'] & object) : [];
  const failed = calls.filter((c) => c.status !== 'ok' || (c.settlement && c.settlement !== 'completed'));
  for (const c of failed.slice(0, MAX_LISTED_FAILURES)) out.push(`  ${oneLine(String(c.tool))}: ${oneLine(String(c.status))}${c.settlement && c.settlement !== 'completed' ? `, ${oneLine(String(c.settlement))}` : ''}`);
  if (failed.length > MAX_LISTED_FAILURES) out.push(`  … and ${failed.length - MAX_LISTED_FAILURES} more`);
  if (Array.isArray(v.diagnostics) && v.diagnostics.length > 0) out.push('type warnings:', ...diagnosticLines(v.diagnostics));
  return out.join('\n');
}

/** The head and tail previews of a spilled part are raw JSON text; shown with {@link escapeLineBreaks}. */
function spilledText(what: 'result' | 'logs', part: SpilledPart): string {
  return [
    `${what}: spilled (${part.spilled.bytes} bytes of JSON kept whole as ${oneLine(part.spilled.id)}; only its start and end are shown)`,
    `  starts: ${escapeLineBreaks(part.head)}`,
    `  ends: ${escapeLineBreaks(part.tail)}`,
  ].join('\n');
}

/** Exactly `{ spilled: { id, bytes }, head, tail }`. */
export function isSpilledPart(value: unknown): value is SpilledPart {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if (Object.keys(v).length !== 3 || typeof v.head !== 'string' || typeof v.tail !== 'string') return false;
  const s = v.spilled as Record<string, unknown> | null;
  return typeof s === 'object' && s !== null && typeof s.id === 'string' && typeof s.bytes === 'number' && Object.keys(s).length === 2;
}

function diagnosticLines(diagnostics: JsonValue | undefined): string[] {
  if (!Array.isArray(diagnostics)) return [];
  return diagnostics.map((d) => {
    const x = d as { line?: number; column?: number; message?: string };
    return `  line ${x.line ?? '?'}, column ${x.column ?? '?'}: ${oneLine(String(x.message ?? ''))}`;
  });
}

// Line breaks (and the other C0/C1 controls but tab) that could start a line of their own.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;
const SHOWN: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\v': '\\v', '\f': '\\f', '\b': '\\b' };

/** `text` on one line: line breaks and control characters as escapes (`\n`, `\u2028`, `\x1b`). */
export function oneLine(text: string): string {
  return text.replace(CONTROL, (c) => SHOWN[c] ?? (c.charCodeAt(0) > 0xff ? `\\u${c.charCodeAt(0).toString(16)}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/** JSON text as shown: U+2028/U+2029 (the only line breaks JSON.stringify leaves raw) escaped, still valid JSON. */
export function escapeLineBreaks(json: string): string {
  return json.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/**
 * A durable run's suspension as the model reads it: one line that a person must decide, and that
 * the program must not be run again. Never the resume token (a secret of the app's).
 */
function suspendedText(suspended: Record<string, JsonValue>): string {
  const pending = Array.isArray(suspended.pending) ? suspended.pending : [];
  const what = pending
    .slice(0, MAX_LISTED_FAILURES)
    .map((p) => {
      const call = (typeof p === 'object' && p !== null && !Array.isArray(p) ? p : {}) as Record<string, JsonValue>;
      return `${String(call.toolName)} (${String(call.reason)})`;
    })
    .join(', ');
  const more = pending.length > MAX_LISTED_FAILURES ? `, and ${pending.length - MAX_LISTED_FAILURES} more` : '';
  return oneLine(`The program is paused: a person must decide ${pending.length === 1 ? 'a call' : `${pending.length} calls`} first (${what}${more}). Do not run the program again: it continues from where it paused once they decide (run ${String(suspended.runId)}).`);
}
