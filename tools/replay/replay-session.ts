/**
 * `replaySession(jsonl)`: the session view rebuilt from a log alone. It reads both formats the
 * project writes, told apart by their lines:
 *
 * - `ptc-events/1`: the plain session log (`jsonlFileSink`, `memoryJsonlSink`): one event per
 *   line, `{ seq, time, type, ... }`, no header. A log with no header and no chain line is read
 *   as this format.
 * - `ptc-trace/1`: the hash-chained trace (`createTraceWriter`): a `trace/header` line, events
 *   carrying `prevHash` (and `hostSeq` when the host's numbering differs), a `trace/end` line.
 *   A log is read as a trace when any line is a header or carries `prevHash`.
 *   The chain is checked with `verifyTrace` and its verdict returned beside the view; replay
 *   shows what the lines say either way.
 *
 * It never throws. A truncated last line, a line that is not JSON, an unknown event type, an
 * event missing a field, prototype keys (`__proto__`, `constructor`): each becomes a problem
 * with its line number and the rest of the log is still shown.
 */
import { errorText } from '../errors.js';
import { readJsonl } from '../jsonl.js';
import { TRACE_FORMAT } from '../trace-chain.js';
import type { TraceKey } from '../trace-hash.js';
import { verifyTrace, type TraceProblem } from '../trace-verify.js';
import { readEvent } from './read-event.js';
import { SessionViewBuilder } from './session-view.js';
import type { PresenterSource, SessionView } from './view-types.js';

/** The plain session log format. */
export const EVENT_LOG_FORMAT = 'ptc-events/1';

/** Log formats replay reads. */
export type LogFormat = typeof EVENT_LOG_FORMAT | typeof TRACE_FORMAT;

/** A line replay could not show, and why. */
export interface ReplayProblem {
  /** 1-based line number in the log. */
  readonly line: number;
  readonly problem: string;
}

/** A replayed session: the view, the format read, and what could not be read. */
export interface ReplayedSession extends SessionView {
  readonly format: LogFormat;
  readonly problems: readonly ReplayProblem[];
  /** For a trace: whether its hash chain is intact, and where it is not. */
  readonly chain?: { readonly ok: boolean; readonly headHash: string; readonly problems: readonly TraceProblem[] };
}

/** Options of {@link replaySession}. */
export interface ReplayOptions {
  /** Tools whose presenters make the cards (a list, or a host). Without them every card is generic. */
  readonly tools?: PresenterSource;
  /** The key of a keyed trace, to check its chain (without it, `chain` says the key is needed). */
  readonly key?: TraceKey;
}

const EMPTY_VIEW: SessionView = { calls: [], jobs: [], unmatchedDispatches: [] };

/** Rebuilds the session view from a log's text (or bytes). Never throws. */
export function replaySession(jsonl: string | Uint8Array, options: ReplayOptions = {}): ReplayedSession {
  let text: string;
  try {
    text = typeof jsonl === 'string' ? jsonl : new TextDecoder('utf-8', { fatal: false }).decode(jsonl);
  } catch {
    return { ...EMPTY_VIEW, format: EVENT_LOG_FORMAT, problems: [{ line: 0, problem: 'the log is neither text nor bytes' }] };
  }
  const problems: ReplayProblem[] = [];
  const { events, problems: parseProblems } = readJsonl(text);
  for (const p of parseProblems) problems.push({ line: p.line, problem: p.problem });

  // Line numbers of the events readJsonl returned (non-blank lines that parsed as objects).
  const bad = new Set(parseProblems.map((p) => p.line));
  const lineOf: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() !== '' && !bad.has(i + 1)) lineOf.push(i + 1);
  });

  let format: LogFormat = EVENT_LOG_FORMAT;
  let chain: ReplayedSession['chain'];
  // Any line with a chain field makes the log a trace, so a line put before its header cannot
  // make it read as a plain log (whose chain nobody checks).
  const headerAt = events.findIndex((e) => Object.hasOwn(e, 'type') && e.type === 'trace/header');
  const isTrace = headerAt !== -1 || events.some((e) => Object.hasOwn(e, 'prevHash'));
  if (isTrace) {
    format = TRACE_FORMAT;
    const header = events[headerAt];
    if (header && header.format !== TRACE_FORMAT) problems.push({ line: lineOf[headerAt] ?? 1, problem: `unknown trace format ${JSON.stringify(header.format)}; reading the events it recognizes` });
    try {
      // The bytes when given: a changed byte that decodes to the same text still breaks the chain.
      const verdict = verifyTrace(jsonl, options.key !== undefined ? { key: options.key } : {});
      chain = { ok: verdict.ok, headHash: verdict.headHash, problems: verdict.problems };
    } catch (err) {
      chain = { ok: false, headHash: '', problems: [{ line: 0, kind: 'malformed', message: `could not verify: ${errorText(err)}` }] };
    }
  }

  const builder = new SessionViewBuilder(options.tools);
  events.forEach((raw, i) => {
    const line = lineOf[i] ?? 0;
    if (isTrace && (raw.type === 'trace/header' || raw.type === 'trace/end')) return;
    const record = isTrace && typeof raw.hostSeq === 'number' ? { ...raw, seq: raw.hostSeq } : raw;
    const read = readEvent(record);
    if (!read.ok) {
      problems.push({ line, problem: read.problem });
      return;
    }
    try {
      builder.apply(read.event);
    } catch (err) {
      problems.push({ line, problem: `${read.event.type}: could not be shown (${errorText(err)})` });
    }
  });

  let view: SessionView;
  try {
    view = builder.snapshot();
  } catch (err) {
    problems.push({ line: 0, problem: `the view could not be built (${errorText(err)})` });
    view = EMPTY_VIEW;
  }
  problems.sort((a, b) => a.line - b.line);
  return { ...view, format, problems, ...(chain ? { chain } : {}) };
}
