/**
 * The tool index: one line per tool, `- <callable>: <first sentence of its description>`, the
 * form run_code's description takes for a catalog too large to declare in full.
 *
 * Descriptions come from tool authors and remote MCP servers, so the summary is one bounded line
 * whatever they send: whitespace collapsed, control characters dropped, and characters that
 * could hide or reorder text (bidi overrides, zero-width characters, line separators) shown as
 * `\u{...}` escapes instead of passed through. An index over its budget is cut with a note that
 * says how many tools are not listed: tools are never dropped silently.
 */
import { estimateTokens } from './description-budget.js';

/** Longest summary of one tool's description in the index, in characters. */
export const MAX_SUMMARY_CHARS = 120;

/** One tool in the index. */
export interface IndexEntry {
  /** The name a program calls it by (`tools.<callable>`). */
  readonly callable: string;
  readonly description: string;
}

/** An index fitted to a budget. */
export interface ToolIndexListing {
  /** The lines, joined with `\n` (the cut note last when some were left out). */
  readonly text: string;
  readonly listed: number;
  /** Tools not listed because the index would pass its budget. */
  readonly omitted: number;
}

const SENTENCE_END = /[.!?](?=\s+[\p{Lu}\p{Lt}(["'`]|\s*$)/u;

function visible(text: string): string {
  return text
    .replace(/[\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`)
    .replace(/[\p{Cc}\s]+/gu, ' ')
    .trim();
}

/** The first sentence of a description, on one line, at most {@link MAX_SUMMARY_CHARS} characters. */
export function summaryOf(description: string): string {
  const firstParagraph = description.trim().split(/\n\s*\n|\r\n\s*\r\n/)[0] ?? '';
  const line = visible(firstParagraph);
  const end = SENTENCE_END.exec(line);
  let summary = end ? line.slice(0, end.index + 1) : line;
  if (summary.length > MAX_SUMMARY_CHARS) {
    const cut = summary.slice(0, MAX_SUMMARY_CHARS - 1);
    const space = cut.lastIndexOf(' ');
    // Never leave a lone high surrogate at the cut.
    summary = `${(space > MAX_SUMMARY_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\uD800-\uDBFF]$/, '')}…`;
  }
  return summary || '(no description)';
}

/** The index line of one tool. */
export function indexLine(entry: IndexEntry): string {
  return `- ${entry.callable}: ${summaryOf(entry.description)}`;
}

/**
 * The index of `entries` in their order, cut to `maxTokens` (estimated): when not every line
 * fits, the last line is `cutNote(omitted)` and the lines before it fit with it.
 */
export function toolIndexListing(entries: readonly IndexEntry[], maxTokens: number, cutNote: (omitted: number) => string): ToolIndexListing {
  const lines = entries.map(indexLine);
  const cost = lines.map((line) => estimateTokens(line) + 1); // + the newline
  const total = cost.reduce((a, b) => a + b, 0);
  if (total <= maxTokens) return { text: lines.join('\n'), listed: lines.length, omitted: 0 };
  // The note's own size depends on the count; the widest count is the whole list.
  let room = maxTokens - estimateTokens(cutNote(entries.length)) - 1;
  let listed = 0;
  while (listed < lines.length && cost[listed]! <= room) room -= cost[listed++]!;
  const omitted = lines.length - listed;
  return { text: [...lines.slice(0, listed), cutNote(omitted)].join('\n'), listed, omitted };
}
