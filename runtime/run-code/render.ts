/**
 * What the model reads of a run_code result. The canonical value keeps everything (the call
 * list, stats) for programs, UIs and audits; the model's content is only what it needs to go on:
 * the result, the logs, one line of call counts, and the calls that did not succeed. Listing
 * every call and the timing stats would put back into the context much of what PTC keeps out.
 */
import type { ContentBlock, JsonValue } from '../../tools/index.js';

/** Calls that did not succeed, listed by name in the content at most. */
const MAX_LISTED_FAILURES = 10;

type Rendered = { calls?: { tool: string; status: string; settlement?: string }[]; [key: string]: JsonValue | undefined };

/** Renders run_code's value (a run, a rejection or a background handle) as one text block. */
export function renderRunCode(value: JsonValue): ContentBlock[] {
  return [{ type: 'text', text: renderText(value) }];
}

function renderText(value: JsonValue): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return JSON.stringify(value);
  const v = value as Rendered;
  if (v.kind === 'background') return `Started in the background: ${JSON.stringify(value)}. Read the outcome with job_read.`;
  if (typeof v.rejected === 'string') return [v.rejected, ...diagnosticLines(v.diagnostics)].join('\n');

  const out: string[] = [];
  out.push(`result: ${JSON.stringify(v.result ?? null, null, 2)}`);
  const logs = v.logs;
  if (Array.isArray(logs) && logs.length > 0) out.push('logs:', ...logs.map((l) => `  ${String(l)}`));
  else if (logs && !Array.isArray(logs)) out.push(`logs: ${JSON.stringify(logs)}`);
  const counts = (v.stats as { calls?: Record<string, number> } | undefined)?.calls;
  if (counts && typeof counts.total === 'number') {
    const parts = (['ok', 'error', 'denied', 'refused', 'interrupted'] as const).filter((k) => (counts[k] ?? 0) > 0).map((k) => `${counts[k]} ${k}`);
    out.push(`calls: ${counts.total}${parts.length ? ` (${parts.join(', ')})` : ''}`);
  }
  const failed = (v.calls ?? []).filter((c) => c.status !== 'ok' || (c.settlement && c.settlement !== 'completed'));
  for (const c of failed.slice(0, MAX_LISTED_FAILURES)) out.push(`  ${c.tool}: ${c.status}${c.settlement && c.settlement !== 'completed' ? `, ${c.settlement}` : ''}`);
  if (failed.length > MAX_LISTED_FAILURES) out.push(`  … and ${failed.length - MAX_LISTED_FAILURES} more`);
  if (Array.isArray(v.diagnostics) && v.diagnostics.length > 0) out.push('type warnings:', ...diagnosticLines(v.diagnostics));
  return out.join('\n');
}

function diagnosticLines(diagnostics: JsonValue | undefined): string[] {
  if (!Array.isArray(diagnostics)) return [];
  return diagnostics.map((d) => {
    const x = d as { line?: number; column?: number; message?: string };
    return `  line ${x.line ?? '?'}, column ${x.column ?? '?'}: ${x.message ?? ''}`;
  });
}
