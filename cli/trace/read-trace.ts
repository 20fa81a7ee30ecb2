/**
 * Loads a trace file for `ptc trace show|html`: a hash-chained trace (verified on the way) or a
 * plain JSONL session log (shown, with a note that it cannot be verified).
 */
import { readFileSync, statSync } from 'node:fs';
import { readJsonl, verifyTrace, type TraceVerification } from '../../tools/index.js';
import { CliError } from '../errors.js';

/** A loaded trace. */
export interface LoadedTrace {
  readonly path: string;
  /** Event objects in file order (header and end lines excluded). */
  readonly events: readonly Record<string, unknown>[];
  /** Present for a hash-chained trace. */
  readonly verification?: TraceVerification;
  /** Unreadable lines of a plain log. */
  readonly unreadable: readonly { line: number; problem: string }[];
}

/** Largest trace file the CLI reads (they are read whole). */
export const MAX_TRACE_BYTES = 256 * 1024 * 1024;

/** Reads `path`. Throws {@link CliError} (exit 2) when it cannot be read. */
export function readTraceText(path: string): string {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new CliError(`cannot read trace ${path}: no such file`);
  }
  if (size > MAX_TRACE_BYTES) throw new CliError(`trace ${path} is ${size} bytes; the limit is ${MAX_TRACE_BYTES}`);
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read trace ${path}: ${(err as Error).message}`);
  }
}

const CHAINED_LINE = /^\s*\{.*"prevHash"\s*:\s*"[0-9a-f]{64}"/;

/** Loads a trace or plain session log. */
export function loadTrace(path: string): LoadedTrace {
  const text = readTraceText(path);
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  // Lines that carry `prevHash` are a hash-chained trace even when its header was cut off:
  // verified (and reported broken), never shown as an unverifiable plain log.
  if (firstLine.includes('"trace/header"') || CHAINED_LINE.test(firstLine)) {
    const verification = verifyTrace(text);
    return { path, events: verification.events, verification, unreadable: [] };
  }
  const { events, problems } = readJsonl(text);
  if (events.length === 0) throw new CliError(`${path} holds no events (expected a ptc trace or a JSONL session log)`);
  return { path, events, unreadable: problems };
}
