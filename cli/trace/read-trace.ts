/**
 * Loads trace files for `ptc trace verify|show|html`: hash-chained traces (verified on the way,
 * as bytes, with the links between them checked) or plain JSONL session logs (shown, with a note
 * that they cannot be verified). A file is a chain when any of its lines carries `prevHash`, so a
 * line put before a header never turns a trace into a plain log.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { MIN_TRACE_KEY_BYTES, readJsonl, verifyTraceSet, type TraceKey, type TraceSetVerification, type TraceVerification } from '../../tools/index.js';
import { CliError } from '../errors.js';
import type { EventSource } from './call-tree.js';

/** One loaded file. */
export interface LoadedTrace {
  readonly path: string;
  /** How the file is named in output: its base name, or the path when two files share one. */
  readonly name: string;
  /** Event objects in file order (header and end lines excluded). */
  readonly events: readonly Record<string, unknown>[];
  /** The 1-based line of each event. */
  readonly eventLines: readonly number[];
  /** Present for a hash-chained trace. */
  readonly verification?: TraceVerification;
  /** Unreadable lines of a plain log. */
  readonly unreadable: readonly { line: number; problem: string }[];
}

/** Several files read together: each one, the links between them, and their events as one stream. */
export interface LoadedTraces {
  readonly files: readonly LoadedTrace[];
  readonly set: TraceSetVerification;
  /** Every file's events in chain order (a file after those it links to), and where each was read. */
  readonly events: readonly Record<string, unknown>[];
  readonly sources: readonly EventSource[];
  /** True when a chain is broken, a link is broken or two files name one chain (plain logs and unverified links do not count). */
  readonly failed: boolean;
}

/** Largest trace file the CLI reads (they are read whole). */
export const MAX_TRACE_BYTES = 256 * 1024 * 1024;

/** Reads `path` as bytes. Throws {@link CliError} (exit 2) when it cannot be read. */
export function readTraceBytes(path: string): Buffer {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new CliError(`cannot read trace ${path}: no such file`);
  }
  if (size > MAX_TRACE_BYTES) throw new CliError(`trace ${path} is ${size} bytes; the limit is ${MAX_TRACE_BYTES}`);
  try {
    return readFileSync(path);
  } catch (err) {
    throw new CliError(`cannot read trace ${path}: ${(err as Error).message}`);
  }
}

/**
 * The key of `--key-env NAME` (or `--trace-key-env NAME`): the variable's value, as its UTF-8
 * bytes (never from argv, never printed).
 * Throws {@link CliError} when the variable is unset or the key too short.
 */
export function keyFromEnv(name: string, flag = '--key-env', env: NodeJS.ProcessEnv = process.env): TraceKey {
  const value = env[name];
  if (value === undefined || value === '') throw new CliError(`${flag} ${name}: the environment variable ${name} is not set`);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes < MIN_TRACE_KEY_BYTES) throw new CliError(`${flag} ${name}: the key in ${name} is ${bytes} bytes; a trace key is at least ${MIN_TRACE_KEY_BYTES} (e.g. \`openssl rand -hex 32\`)`);
  return value;
}

/** Loads traces or plain session logs; checks every chain and the links between them. */
export function loadTraces(paths: readonly string[], options: { readonly key?: TraceKey } = {}): LoadedTraces {
  const bytes = paths.map(readTraceBytes);
  const bases = paths.map((p) => basename(p));
  const names = paths.map((p, i) => (bases.filter((b) => b === bases[i]).length > 1 ? p : bases[i]!));
  const set = verifyTraceSet(
    bytes.map((input, i) => ({ name: names[i]!, input })),
    options.key !== undefined ? { key: options.key } : {},
  );
  const files = paths.map((path, i): LoadedTrace => {
    const v = set.files[i]!;
    if (v.chained) return { path, name: names[i]!, events: v.events, eventLines: v.eventLines, verification: v, unreadable: [] };
    const text = bytes[i]!.toString('utf8');
    const { events, problems } = readJsonl(text);
    if (events.length === 0) throw new CliError(`${path} holds no events (expected a ptc trace or a JSONL session log)`);
    const bad = new Set(problems.map((p) => p.line));
    const eventLines = text.split('\n').flatMap((line, j) => (line.trim() !== '' && !bad.has(j + 1) ? [j + 1] : []));
    return { path, name: names[i]!, events, eventLines, unreadable: problems };
  });
  const linkAt = new Map(set.links.map((l) => [`${l.file}:${l.line}`, l]));
  const events: Record<string, unknown>[] = [];
  const sources: EventSource[] = [];
  for (const i of set.order) {
    const f = files[i]!;
    f.events.forEach((e, j) => {
      const line = f.eventLines[j]!;
      const link = linkAt.get(`${i}:${line}`);
      events.push(e);
      sources.push({
        file: f.name,
        line,
        ...(link
          ? { link: { status: link.status, message: link.message, ...(link.to ? { to: link.to } : {}), ...(link.target ? { target: { file: names[link.target.file]!, line: link.target.line } } : {}) } }
          : {}),
      });
    });
  }
  const failed = set.problems.length > 0 || set.links.some((l) => l.status === 'broken') || files.some((f) => f.verification !== undefined && !f.verification.ok);
  return { files, set, events, sources, failed };
}
