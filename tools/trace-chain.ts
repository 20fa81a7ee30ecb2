/**
 * Hash-chained traces: the session log (JSONL, one event per line) in a form a reviewer can
 * check for tampering without trusting whoever kept the file.
 *
 * Format `ptc-trace/1`, one JSON object per line:
 * - line 1 is the header `{ seq: 0, time, prevHash: GENESIS_HASH, type: 'trace/header', format,
 *   hash, traceId }`; `hash` names the chain function, `sha256` or (keyed) `hmac-sha256`, and a
 *   keyed header adds `keyId` (see trace-hash.ts); `traceId` names this chain, so another chain
 *   can link to one of its lines (a resumed run names the head its run left behind);
 * - every event line is `{ seq, time, prevHash, ...event }`: `seq` counts lines of this trace
 *   (1, 2, 3, ... contiguous), `time` is the event's epoch-ms stamp, and when the host's own
 *   sequence number differs from `seq` it is kept as `hostSeq`. A `tool/call` line also carries
 *   `mode` (`parallel` | `exclusive`) when the writer was given the host, so a viewer can draw
 *   exclusive barriers;
 * - `close()` appends `{ seq, time, prevHash, type: 'trace/end', events }`; a trace without it
 *   was cut short (crash, or its end was deleted).
 *
 * Canonical form: `prevHash` is the lowercase hex SHA-256 (keyed: HMAC-SHA256) of the previous
 * line's exact bytes as written (UTF-8), without its trailing `\n`. Nothing is re-serialized
 * before hashing, so any changed byte of a line (even whitespace or key order) breaks the link.
 *
 * What it proves, and what it does not: editing, deleting, inserting or reordering lines is
 * detected (trace-verify.ts). Unkeyed, someone who rewrites a line *and* recomputes every later
 * hash (or cuts the tail and writes a new end line) produces a valid chain; keyed, only a holder
 * of the key can. Neither proves the file is complete unless its head was anchored somewhere
 * its writer cannot change. Lines never hold a live run token or a resume token (trace-redact.ts).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import type { EventSink, ToolEvent } from './events.js';
import { tokenIdOf } from './events.js';
import type { ToolHost } from './tool-types.js';
import { chainHasher, type TraceKey } from './trace-hash.js';
import { createResumeTokenRedactor } from './trace-redact.js';

/** Format tag written in the header. */
export const TRACE_FORMAT = 'ptc-trace/1';
/** `prevHash` of the header line. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * A point in a trace chain: the chain's `traceId` (from its header), the `seq` of a line and that
 * line's chain hash (the `prevHash` the next line records). A host anchors its writer's head in a
 * store; a resumed run's `ptc/run-resumed` event carries the head its run left behind as
 * `prevTraceHead`, and `ptc trace verify a.jsonl b.jsonl` checks that the line exists.
 */
export interface TraceHead {
  readonly traceId: string;
  readonly seq: number;
  readonly hash: string;
}

/** Options of {@link createTraceWriter}. */
export interface TraceWriterOptions {
  /** Receives each finished line (without `\n`), synchronously, in order. */
  readonly write: (line: string) => void;
  /** When given, `tool/call` lines record the call's execution mode. */
  readonly host?: Pick<ToolHost, 'executionMode'>;
  /** Clock for the header and end lines (default `Date.now`). */
  readonly now?: () => number;
  /**
   * A secret of at least 32 bytes: the chain is HMAC-SHA256 under it, so only a holder of the key
   * can recompute it (and verify it: `ptc trace verify --key-env NAME`). Never written anywhere.
   */
  readonly key?: TraceKey;
  /** This chain's id in the header (default: 32 random hex characters). One chain per process or replica. */
  readonly traceId?: string;
}

/** An event sink writing a hash-chained trace; `close()` writes the end line. */
export type TraceWriter = EventSink & {
  /** Writes the `trace/end` line; later events are refused. Calling it twice is harmless. */
  close(): void;
  /** Hash of the last line written (the head of the chain). */
  readonly headHash: string;
  /** The last line written, as a {@link TraceHead}: read it right after an event to anchor that event's line. */
  readonly head: TraceHead;
  /** This chain's id, as in its header. */
  readonly traceId: string;
};

/** Creates a trace writer over any line sink (a file, memory, a socket). Writes the header at once. */
export function createTraceWriter(options: TraceWriterOptions): TraceWriter {
  const now = options.now ?? Date.now;
  const hasher = chainHasher(options.key, 'createTraceWriter');
  const traceId = options.traceId ?? randomBytes(16).toString('hex');
  const redact = createResumeTokenRedactor();
  let prevHash = GENESIS_HASH;
  let seq = 0;
  let events = 0;
  let closed = false;
  const put = (record: Record<string, unknown>) => {
    const line = redact(JSON.stringify(record));
    options.write(line);
    prevHash = hasher.hash(line);
  };
  put({ seq: 0, time: now(), prevHash, type: 'trace/header', format: TRACE_FORMAT, hash: hasher.name, ...(hasher.keyId !== undefined ? { keyId: hasher.keyId } : {}), traceId });

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
    {
      headHash: { get: () => prevHash, enumerable: true },
      head: { get: (): TraceHead => ({ traceId, seq, hash: prevHash }), enumerable: true },
      traceId: { value: traceId, enumerable: true },
    },
  ) as TraceWriter;
}

/** A trace writer appending to a new file at `path` (refuses to extend an existing file). */
export function traceFileSink(path: string, options: Omit<TraceWriterOptions, 'write'> = {}): TraceWriter {
  // Checks the key before the file exists: a refused key leaves no empty trace behind.
  if (options.key !== undefined) chainHasher(options.key, 'traceFileSink');
  const fd = openSync(path, 'wx');
  let open = true;
  let writer: TraceWriter;
  try {
    writer = createTraceWriter({ ...options, write: (line) => writeSync(fd, line + '\n') });
  } catch (err) {
    closeSync(fd);
    throw err;
  }
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
    {
      headHash: { get: () => writer.headHash, enumerable: true },
      head: { get: () => writer.head, enumerable: true },
      traceId: { value: writer.traceId, enumerable: true },
    },
  ) as TraceWriter;
}

