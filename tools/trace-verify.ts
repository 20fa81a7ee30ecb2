/**
 * Checking a trace's chain (format in trace-chain.ts) and naming the damaged line.
 *
 * - **Bytes, not text.** Each line is hashed as the bytes in the file, so a change that decodes
 *   to the same text (a real U+FFFD's bytes EF BF BD replaced by one invalid byte) still breaks
 *   the link; a line that is not valid UTF-8 is also named, since the writer never writes one.
 * - **Any chain line makes a chain.** A file is a trace when any line carries `prevHash`, so a
 *   line put before the header, or a header cut off, is reported as inserted or deleted, never
 *   read as a plain session log.
 * - **Keyed traces need their key.** A header naming `hmac-sha256` is checked only with the
 *   key (a `key` problem otherwise); a key given for an unkeyed trace is a `key` problem too,
 *   since anyone could have recomputed that chain.
 *
 * The verdict (intact or not) is exact; which line is to blame is a best reading of `seq` and of
 * the surviving links. Never throws on bad input.
 */
import { isUtf8 } from 'node:buffer';
import { GENESIS_HASH, TRACE_FORMAT, type TraceHead } from './trace-chain.js';
import { chainHasher, hashLine, type ChainHasher, type TraceHashName, type TraceKey } from './trace-hash.js';

/** What kind of damage a problem points to; `key` is a key missing, not matching, or given for an unkeyed trace. */
export type TraceProblemKind = 'malformed' | 'not-a-trace' | 'key' | 'edited' | 'deleted' | 'inserted' | 'reordered' | 'truncated';

/** One problem, with the 1-based line it is about. */
export interface TraceProblem {
  readonly line: number;
  readonly kind: TraceProblemKind;
  readonly message: string;
}

/** The result of {@link verifyTrace}. */
export interface TraceVerification {
  /** True when the chain is intact from header to end line (and, keyed, checked with its key). */
  readonly ok: boolean;
  /** Number of lines read. */
  readonly lines: number;
  /** True when any line carries `prevHash`: the file is a trace, whatever else is wrong with it. */
  readonly chained: boolean;
  /** Event lines that parsed (header and end excluded), in file order. */
  readonly events: readonly Record<string, unknown>[];
  /** The 1-based line of each of {@link events}. */
  readonly eventLines: readonly number[];
  /** Problems in line order; the first one is the primary finding. */
  readonly problems: readonly TraceProblem[];
  /**
   * Chain hash of the last line: anchor it elsewhere to detect a rewritten suffix. Empty for a
   * keyed trace read without its key (nothing about its chain can be computed).
   */
  readonly headHash: string;
  /** The chain function its header names. */
  readonly hash?: TraceHashName;
  /** The chain's id, from its header (traces written before trace ids have none). */
  readonly traceId?: string;
  /** The last line as a {@link TraceHead}, when the header names the chain and the hash is known. */
  readonly head?: TraceHead;
}

/** Options of {@link verifyTrace}. */
export interface VerifyTraceOptions {
  /** The key of a keyed trace (as given to `traceFileSink`). */
  readonly key?: TraceKey;
}

/** A chain read line by line: the verdict plus what linking chains to each other needs. */
export interface ChainReading {
  readonly verification: TraceVerification;
  /** Parsed lines (undefined where a line is not a JSON object). */
  readonly parsed: readonly (Record<string, unknown> | undefined)[];
  /** Chain hash of each line; empty when it cannot be computed (a keyed trace without its key). */
  readonly hashes: readonly string[];
}

const NEWLINE = 0x0a;

/** The lines of `bytes` (split at `\n`; a final newline ends the last line, it does not start one). */
function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end === -1) {
      lines.push(bytes.subarray(start));
      break;
    }
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  return lines;
}

const asBuffer = (input: string | Uint8Array): Buffer =>
  typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);

/**
 * Checks a trace's chain and names the first damaged line. `input` is the file's bytes (read it
 * as a Buffer: text decoded from bytes can no longer show a changed byte) or its text. Never
 * throws on bad input: a file that is not a trace at all is reported as `not-a-trace`.
 */
export function verifyTrace(input: string | Uint8Array, options: VerifyTraceOptions = {}): TraceVerification {
  return readChain(input, options).verification;
}

/** {@link verifyTrace}, keeping the parsed lines and their hashes (for checking links between chains). */
export function readChain(input: string | Uint8Array, options: VerifyTraceOptions = {}): ChainReading {
  const raw = splitLines(asBuffer(input));
  const problems: TraceProblem[] = [];
  const seen = new Set<string>();
  const report = (line: number, kind: TraceProblemKind, message: string) => {
    const key = `${line}:${kind}`;
    if (!seen.has(key)) problems.push({ line, kind, message }), seen.add(key);
  };
  const parsed: (Record<string, unknown> | undefined)[] = raw.map((bytes, i) => {
    const text = bytes.toString('utf8');
    if (text.trim() === '') return report(i + 1, 'malformed', `line ${i + 1} is empty`), undefined;
    try {
      const v: unknown = JSON.parse(text);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* reported below */
    }
    report(i + 1, 'malformed', `line ${i + 1} is not a JSON object${i === raw.length - 1 ? ' (a truncated last line?)' : ''}`);
    return undefined;
  });
  const chained = parsed.some((p) => p !== undefined && Object.hasOwn(p, 'prevHash'));
  const notATrace = (message: string): ChainReading => ({
    // Lines that are not JSON stay named (a garbage file reads "line 1 is not a JSON object" first).
    verification: { ok: false, lines: raw.length, chained, events: [], eventLines: [], problems: [...problems.filter((p) => p.kind === 'malformed'), { line: 1, kind: 'not-a-trace' as const, message }].sort((a, b) => a.line - b.line), headHash: raw.length ? hashLine(raw.at(-1)!) : GENESIS_HASH },
    parsed,
    hashes: [],
  });
  if (raw.length === 0) return notATrace('the file is empty');
  // A file with no chain line is not a trace: every line would be reported as edited.
  if (!chained) return notATrace('no line carries prevHash: this is not a hash-chained ptc trace');

  const h = parsed.findIndex((p) => p?.type === 'trace/header');
  const header = h === -1 ? undefined : parsed[h]!;
  if (header === undefined) report(1, 'deleted', 'no trace/header line: the start of the trace was deleted');
  else {
    for (let i = 0; i < h; i++) report(i + 1, 'inserted', `line ${i + 1} was inserted before the trace header (line ${h + 1})`);
    if (header.format !== TRACE_FORMAT) return notATrace(`unknown trace format ${JSON.stringify(header.format)} (expected ${TRACE_FORMAT})`);
    if (header.prevHash !== GENESIS_HASH || header.seq !== 0) report(h + 1, 'edited', `line ${h + 1}, the header, does not start the chain (seq 0, prevHash of zeros): it was changed`);
  }
  const hashName = header?.hash ?? (options.key !== undefined ? 'hmac-sha256' : 'sha256');
  if (hashName !== 'sha256' && hashName !== 'hmac-sha256') return notATrace(`unknown chain function ${JSON.stringify(hashName)} (expected "sha256" or "hmac-sha256")`);
  const headerLine = h + 1;
  const traceId = typeof header?.traceId === 'string' ? header.traceId : undefined;
  const base = { lines: raw.length, chained, hash: hashName, ...(traceId !== undefined ? { traceId } : {}) } as const;
  const eventIndexes = parsed.flatMap((p, i) => (p && p.type !== 'trace/header' && p.type !== 'trace/end' ? [i] : []));
  const events = eventIndexes.map((i) => parsed[i]!);
  const eventLines = eventIndexes.map((i) => i + 1);

  let hasher: ChainHasher;
  if (hashName === 'hmac-sha256') {
    const keyId = typeof header?.keyId === 'string' ? header.keyId : '?';
    if (options.key === undefined) {
      report(headerLine, 'key', `the trace is keyed (HMAC-SHA256, key id ${keyId}): it can only be verified with its key (ptc trace verify --key-env NAME)`);
      problems.sort((a, b) => a.line - b.line);
      return { verification: { ...base, ok: false, events, eventLines, problems, headHash: '' }, parsed, hashes: [] };
    }
    hasher = chainHasher(options.key, 'verifyTrace');
    if (header !== undefined && keyId !== hasher.keyId) {
      report(headerLine, 'key', `line ${headerLine} names key id ${keyId}, but the key given has id ${hasher.keyId}: the trace was written with another key, or its header was changed`);
      problems.sort((a, b) => a.line - b.line);
      return { verification: { ...base, ok: false, events, eventLines, problems, headHash: '' }, parsed, hashes: [] };
    }
  } else {
    hasher = chainHasher(undefined, 'verifyTrace');
    if (options.key !== undefined) report(Math.max(1, headerLine), 'key', 'a key was given, but the trace is not keyed (sha256): anyone could have recomputed its chain');
  }

  const hashes = raw.map((bytes) => hasher.hash(bytes));
  const indexOf = new Map<string, number>();
  hashes.forEach((hash, i) => indexOf.has(hash) || indexOf.set(hash, i));
  for (let i = Math.max(1, h + 1); i < raw.length; i++) {
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
  const endAt = parsed.findIndex((p, i) => i > h && p?.type === 'trace/end');
  if (header !== undefined) {
    if (endAt === -1) {
      report(raw.length, 'truncated', `no trace/end line: the trace stops at line ${raw.length} (the writer did not close, or the end was cut)`);
    } else if (endAt !== lastIndex) {
      report(endAt + 2, 'inserted', `line ${endAt + 2} comes after the trace/end line`);
    } else {
      const counted = eventIndexes.filter((i) => i > h).length;
      if (last && last.events !== counted) report(raw.length, 'deleted', `the end line counts ${String(last.events)} events but ${counted} are present`);
    }
  }
  // Reported after the chain's findings, so a changed byte reads "edited" first.
  raw.forEach((bytes, i) => {
    if (!isUtf8(bytes)) report(i + 1, 'malformed', `line ${i + 1} is not valid UTF-8 (a trace writer writes only UTF-8)`);
  });
  problems.sort((a, b) => a.line - b.line);
  const headHash = hashes[lastIndex]!;
  const lastSeq = typeof last?.seq === 'number' ? last.seq : undefined;
  return {
    verification: { ...base, ok: problems.length === 0, events, eventLines, problems, headHash, ...(traceId !== undefined && lastSeq !== undefined ? { head: { traceId, seq: lastSeq, hash: headHash } } : {}) },
    parsed,
    hashes,
  };
}
