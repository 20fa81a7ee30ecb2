/**
 * Hash-chained traces: the session log (JSONL, one event per line) in a form a reviewer can
 * check for tampering without trusting whoever kept the file.
 *
 * Format `ptc-trace/1`, one JSON object per line:
 * - line 1 is the header `{ seq: 0, time, prevHash: GENESIS_HASH, type: 'trace/header', format, hash: 'sha256' }`;
 * - every event line is `{ seq, time, prevHash, ...event }`: `seq` counts lines of this trace
 *   (1, 2, 3, ... contiguous), `time` is the event's epoch-ms stamp, and when the host's own
 *   sequence number differs from `seq` it is kept as `hostSeq`. A `tool/call` line also carries
 *   `mode` (`parallel` | `exclusive`) when the writer was given the host, so a viewer can draw
 *   exclusive barriers;
 * - `close()` appends `{ seq, time, prevHash, type: 'trace/end', events }`; a trace without it
 *   was cut short (crash, or its end was deleted).
 *
 * Canonical form: `prevHash` is the lowercase hex SHA-256 of the previous line's exact UTF-8
 * bytes as written, without its trailing `\n`. Nothing is re-serialized before hashing, so any
 * changed byte of a line (even whitespace or key order) breaks the link to the next line.
 *
 * What it proves, and what it does not: editing, deleting, inserting or reordering lines is
 * detected, and {@link verifyTrace} names the line (the attribution is a best guess from `seq`
 * and the surviving links; the verdict itself is exact). Someone who rewrites a line *and*
 * recomputes every later hash produces a valid chain: anchor the head hash that verification
 * reports (store it elsewhere, sign it) when that matters. Lines never hold a live run token:
 * events carry `tokenId`, a one-way digest, and an origin that still holds a `token` is
 * replaced by its digest before writing.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import type { EventSink, ToolEvent } from './events.js';
import { tokenIdOf } from './events.js';
import type { ToolHost } from './tool-types.js';

/** Format tag written in the header. */
export const TRACE_FORMAT = 'ptc-trace/1';
/** `prevHash` of the header line. */
export const GENESIS_HASH = '0'.repeat(64);

/** SHA-256 (hex) of a line's exact UTF-8 bytes: the canonical form `prevHash` refers to. */
export function hashLine(line: string): string {
  return createHash('sha256').update(line, 'utf8').digest('hex');
}

/** Options of {@link createTraceWriter}. */
export interface TraceWriterOptions {
  /** Receives each finished line (without `\n`), synchronously, in order. */
  readonly write: (line: string) => void;
  /** When given, `tool/call` lines record the call's execution mode. */
  readonly host?: Pick<ToolHost, 'executionMode'>;
  /** Clock for the header and end lines (default `Date.now`). */
  readonly now?: () => number;
}

/** An event sink writing a hash-chained trace; `close()` writes the end line. */
export type TraceWriter = EventSink & {
  /** Writes the `trace/end` line; later events are refused. Calling it twice is harmless. */
  close(): void;
  /** Hash of the last line written (the head of the chain). */
  readonly headHash: string;
};

/** Creates a trace writer over any line sink (a file, memory, a socket). Writes the header at once. */
export function createTraceWriter(options: TraceWriterOptions): TraceWriter {
  const now = options.now ?? Date.now;
  let prevHash = GENESIS_HASH;
  let seq = 0;
  let events = 0;
  let closed = false;
  const put = (record: Record<string, unknown>) => {
    const line = JSON.stringify(record);
    options.write(line);
    prevHash = hashLine(line);
  };
  put({ seq: 0, time: now(), prevHash, type: 'trace/header', format: TRACE_FORMAT, hash: 'sha256' });

  const sink = (event: ToolEvent) => {
    if (closed) throw new Error(`trace writer is closed; ${event.type} not written`);
    const { seq: hostSeq, time, ...rest } = event as ToolEvent & Record<string, unknown>;
    const body: Record<string, unknown> = { ...rest };
    const origin = body.origin as Record<string, unknown> | undefined;
    if (origin && typeof origin === 'object' && typeof origin.token === 'string') {
      const { token, ...safe } = origin;
      body.origin = { ...safe, tokenId: tokenIdOf(token as string) };
    }
    if (event.type === 'tool/call' && options.host) {
      let mode: string;
      try {
        mode = options.host.executionMode({ name: event.toolName, args: event.args }).kind;
      } catch {
        mode = 'exclusive';
      }
      body.mode = mode;
    }
    seq += 1;
    events += 1;
    put({ seq, time, prevHash, ...body, ...(hostSeq !== seq ? { hostSeq } : {}) });
  };
  return Object.defineProperties(
    Object.assign(sink, {
      close() {
        if (closed) return;
        put({ seq: ++seq, time: now(), prevHash, type: 'trace/end', events });
        closed = true;
      },
    }),
    { headHash: { get: () => prevHash, enumerable: true } },
  ) as TraceWriter;
}

/** A trace writer appending to a new file at `path` (refuses to extend an existing file). */
export function traceFileSink(path: string, options: Omit<TraceWriterOptions, 'write'> = {}): TraceWriter {
  const fd = openSync(path, 'wx');
  let open = true;
  const writer = createTraceWriter({ ...options, write: (line) => writeSync(fd, line + '\n') });
  const close = writer.close;
  return Object.defineProperties(
    Object.assign((event: ToolEvent) => writer(event), {
      close() {
        if (!open) return;
        close();
        closeSync(fd);
        open = false;
      },
    }),
    { headHash: { get: () => writer.headHash, enumerable: true } },
  ) as TraceWriter;
}

/** What kind of damage a problem points to. */
export type TraceProblemKind = 'malformed' | 'not-a-trace' | 'edited' | 'deleted' | 'inserted' | 'reordered' | 'truncated';

/** One problem, with the 1-based line it is about. */
export interface TraceProblem {
  readonly line: number;
  readonly kind: TraceProblemKind;
  readonly message: string;
}

/** The result of {@link verifyTrace}. */
export interface TraceVerification {
  /** True when the chain is intact from header to end line. */
  readonly ok: boolean;
  /** Number of non-empty lines read. */
  readonly lines: number;
  /** Event lines that parsed (header and end excluded), in file order. */
  readonly events: readonly Record<string, unknown>[];
  /** Problems in line order; the first one is the primary finding. */
  readonly problems: readonly TraceProblem[];
  /** Hash of the last line: anchor it elsewhere to detect a rewritten suffix. */
  readonly headHash: string;
}

/**
 * Checks a trace's chain and names the first damaged line. Never throws on bad input: a file
 * that is not a trace at all is reported as `not-a-trace`.
 */
export function verifyTrace(text: string): TraceVerification {
  const raw = text.split('\n');
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop();
  const problems: TraceProblem[] = [];
  const seen = new Set<string>();
  const report = (line: number, kind: TraceProblemKind, message: string) => {
    const key = `${line}:${kind}`;
    if (!seen.has(key)) problems.push({ line, kind, message }), seen.add(key);
  };
  const parsed: (Record<string, unknown> | undefined)[] = raw.map((line, i) => {
    if (line.trim() === '') return report(i + 1, 'malformed', `line ${i + 1} is empty`), undefined;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* reported below */
    }
    report(i + 1, 'malformed', `line ${i + 1} is not a JSON object${i === raw.length - 1 ? ' (a truncated last line?)' : ''}`);
    return undefined;
  });
  const hashes = raw.map(hashLine);
  const indexOf = new Map<string, number>();
  hashes.forEach((h, i) => indexOf.has(h) || indexOf.set(h, i));
  const headHash = hashes.length ? hashes[hashes.length - 1]! : GENESIS_HASH;

  const first = parsed[0];
  if (raw.length === 0) report(1, 'not-a-trace', 'the file is empty');
  else if (first && typeof first.prevHash !== 'string') report(1, 'not-a-trace', 'line 1 has no prevHash: this is not a hash-chained ptc trace');
  else if (first && (first.type !== 'trace/header' || first.prevHash !== GENESIS_HASH)) {
    report(1, 'deleted', 'line 1 is not the trace header: the start of the trace was deleted');
  } else if (first && first.format !== TRACE_FORMAT) report(1, 'not-a-trace', `unknown trace format ${JSON.stringify(first.format)} (expected ${TRACE_FORMAT})`);
  // A file that is not a trace has no chain to check: every line would be reported as edited.
  const notATrace = problems.find((p) => p.kind === 'not-a-trace');
  if (notATrace !== undefined) return { ok: false, lines: raw.length, events: [], problems: [notATrace], headHash };

  for (let i = 1; i < raw.length; i++) {
    const cur = parsed[i];
    const prev = parsed[i - 1];
    if (!cur) continue;
    const n = i + 1;
    const prevSeq = typeof prev?.seq === 'number' ? prev.seq : undefined;
    const seq = typeof cur.seq === 'number' ? cur.seq : undefined;
    if (cur.prevHash === hashes[i - 1]) {
      if (prevSeq !== undefined && seq !== prevSeq + 1) report(n, 'edited', `line ${n} has seq ${String(cur.seq)}, expected ${prevSeq + 1}`);
      continue;
    }
    const target = typeof cur.prevHash === 'string' ? indexOf.get(cur.prevHash) : undefined;
    if (target !== undefined && target === i - 2) {
      report(i, 'inserted', `line ${i} was inserted: line ${n} follows line ${i - 1} directly in the chain`);
    } else if (target !== undefined) {
      report(n, 'reordered', `line ${n} is out of order: in the chain it follows line ${target + 1}, not line ${i}`);
    } else if (i + 1 < raw.length && parsed[i + 1]?.prevHash === hashes[i - 1]) {
      report(n, 'inserted', `line ${n} was inserted: line ${n + 1} follows line ${i} directly in the chain`);
    } else if (prevSeq !== undefined && seq !== undefined && seq > prevSeq + 1) {
      const missing = seq - prevSeq - 1;
      report(n, 'deleted', `${missing} line${missing === 1 ? ' is' : 's are'} missing before line ${n} (seq jumps from ${prevSeq} to ${seq})`);
    } else {
      report(i, 'edited', `line ${i} was changed after it was written (line ${n} recorded a different hash for it)`);
    }
  }

  const lastIndex = raw.length - 1;
  const last = parsed[lastIndex];
  const endAt = parsed.findIndex((p) => p?.type === 'trace/end');
  const eventLines = parsed.filter((p, i) => p && i > 0 && p.type !== 'trace/end' && p.type !== 'trace/header') as Record<string, unknown>[];
  if (raw.length > 0 && first?.type === 'trace/header') {
    if (endAt === -1) {
      report(raw.length, 'truncated', `no trace/end line: the trace stops at line ${raw.length} (the writer did not close, or the end was deleted)`);
    } else if (endAt !== lastIndex) {
      report(endAt + 2, 'inserted', `line ${endAt + 2} comes after the trace/end line`);
    } else if (last && last.events !== eventLines.length) {
      report(raw.length, 'deleted', `the end line counts ${String(last.events)} events but ${eventLines.length} are present`);
    }
  }
  problems.sort((a, b) => a.line - b.line);
  return { ok: problems.length === 0, lines: raw.length, events: eventLines, problems, headHash };
}
