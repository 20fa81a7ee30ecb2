/**
 * Linked chains: one trace per process or replica, and a run that moves between them. A run
 * suspended on host A and resumed on host B writes its second part to B's trace; B's
 * `ptc/run-resumed` event (or a `ptc/run-suspended` one) carries `prevTraceHead`, the
 * {@link TraceHead} of A's chain that the run left behind (A anchored it in the run's store).
 *
 * Given several trace files, {@link verifyTraceSet} verifies each chain and each link: a link is
 * `verified` when a given file has that trace id and its line with that `seq` has that chain
 * hash, `broken` when the file is given but has no such line (or a different one, or the link is
 * malformed, or missing: a run resumed in one file that another file given shows suspended, with
 * no `prevTraceHead`), and `unverified` when no given file has that trace id (or it is keyed and no key
 * was given): that is not a failure, only a part of the run this check did not see.
 *
 * A link is inside its own chain, so it cannot be changed without breaking that chain; the line
 * it names proves that A's trace reached that point before B went on. It proves nothing about
 * what A wrote after it.
 */
import { readChain, type ChainReading, type TraceVerification, type VerifyTraceOptions } from './trace-verify.js';
import type { TraceHead } from './trace-chain.js';

/** Event types that may carry `prevTraceHead`. */
export const TRACE_LINK_EVENTS: readonly string[] = ['ptc/run-resumed', 'ptc/run-suspended'];

/** One file of a set of traces: a name for messages, and its bytes (or text). */
export interface TraceFile {
  readonly name: string;
  readonly input: string | Uint8Array;
}

/** What checking a link found. */
export type TraceLinkStatus = 'verified' | 'broken' | 'unverified';

/** A link from an event of one file to a line of another chain. */
export interface TraceLink {
  /** Index (in the files given) of the file holding the event, and its 1-based line. */
  readonly file: number;
  readonly line: number;
  /** The event's type and run_code call id. */
  readonly type: string;
  readonly callId?: string;
  /** The head it names; absent when the link is malformed. */
  readonly to?: TraceHead;
  readonly status: TraceLinkStatus;
  /** Where it points, when that file was given and has the line: file index and 1-based line. */
  readonly target?: { readonly file: number; readonly line: number };
  readonly message: string;
}

/** The result of {@link verifyTraceSet}. */
export interface TraceSetVerification {
  /** Every file intact, no broken link, no trace id in two files. Unverified links do not count against it. */
  readonly ok: boolean;
  /** Each file's own verification, in the order given. */
  readonly files: readonly TraceVerification[];
  readonly links: readonly TraceLink[];
  /** Problems of the set itself (two files naming the same chain). */
  readonly problems: readonly string[];
  /** File indexes in chain order: each after the files its links point to, otherwise as given. */
  readonly order: readonly number[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** `prevTraceHead` as a {@link TraceHead}, or undefined when it is not one. */
export function readTraceHead(value: unknown): TraceHead | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { traceId, seq, hash } = value as Record<string, unknown>;
  if (typeof traceId !== 'string' || traceId === '' || !Number.isSafeInteger(seq) || (seq as number) < 0 || typeof hash !== 'string' || !HEX64.test(hash)) return undefined;
  return { traceId, seq: seq as number, hash };
}

/** Verifies each trace and the links between them. Never throws on bad input. */
export function verifyTraceSet(files: readonly TraceFile[], options: VerifyTraceOptions = {}): TraceSetVerification {
  const readings: ChainReading[] = files.map((f) => readChain(f.input, options));
  const problems: string[] = [];
  const byTraceId = new Map<string, number>();
  readings.forEach((r, i) => {
    const id = r.verification.traceId;
    if (id === undefined) return;
    const other = byTraceId.get(id);
    if (other !== undefined) problems.push(`${files[other]!.name} and ${files[i]!.name} both name trace ${id}: a trace id names one chain`);
    else byTraceId.set(id, i);
  });

  // Where each run was suspended (file, line) in a chained file: a resume of it in another file
  // given must link there, or its link is missing.
  const suspendedAt = new Map<string, { file: number; line: number }>();
  readings.forEach((r, file) => {
    if (r.verification.traceId === undefined) return;
    r.parsed.forEach((e, index) => {
      if (e?.type === 'ptc/run-suspended' && typeof e.runId === 'string') suspendedAt.set(e.runId, { file, line: index + 1 });
    });
  });

  const links: TraceLink[] = [];
  readings.forEach((r, file) => {
    r.parsed.forEach((e, index) => {
      if (!e || typeof e.type !== 'string' || !TRACE_LINK_EVENTS.includes(e.type)) return;
      const at = { file, line: index + 1, type: e.type, ...(typeof e.callId === 'string' ? { callId: e.callId } : {}) };
      if (!Object.hasOwn(e, 'prevTraceHead')) {
        const from = e.type === 'ptc/run-resumed' && typeof e.runId === 'string' ? suspendedAt.get(e.runId) : undefined;
        if (from !== undefined && from.file !== file) {
          links.push({ ...at, status: 'broken', target: from, message: `resumes run ${e.runId}, suspended at line ${from.line} of ${files[from.file]!.name}, but records no link to that chain (no prevTraceHead): the link is missing` });
        }
        return;
      }
      const to = readTraceHead(e.prevTraceHead);
      if (!to) return links.push({ ...at, status: 'broken', message: 'prevTraceHead is not { traceId, seq, hash } (a 64-digit hex hash)' });
      const target = byTraceId.get(to.traceId);
      const named = `trace ${to.traceId} seq ${to.seq}`;
      if (target === undefined) return links.push({ ...at, to, status: 'unverified', message: `links to ${named}, which is in none of the files given` });
      const t = readings[target]!;
      const tName = files[target]!.name;
      if (t.hashes.length === 0) return links.push({ ...at, to, status: 'unverified', message: `links to ${named} in ${tName}, which is keyed: its lines can only be checked with its key` });
      const j = t.parsed.findIndex((p) => p?.seq === to.seq && p.type !== undefined);
      if (j === -1) return links.push({ ...at, to, status: 'broken', message: `links to ${named}, but ${tName} has no line with seq ${to.seq}: the line the run left from is missing` });
      if (t.hashes[j] !== to.hash) {
        return links.push({ ...at, to, status: 'broken', target: { file: target, line: j + 1 }, message: `links to ${named}, but line ${j + 1} of ${tName} (seq ${to.seq}) does not have the hash the link records: one of the two files was changed` });
      }
      links.push({ ...at, to, status: 'verified', target: { file: target, line: j + 1 }, message: `links to line ${j + 1} of ${tName} (${named}): verified` });
    });
  });

  return {
    ok: problems.length === 0 && readings.every((r) => r.verification.ok) && links.every((l) => l.status !== 'broken'),
    files: readings.map((r) => r.verification),
    links,
    problems,
    order: chainOrder(files.length, links),
  };
}

/** Files ordered so each comes after the files it links to (a stable topological order; a cycle keeps the given order). */
function chainOrder(count: number, links: readonly TraceLink[]): number[] {
  const after = Array.from({ length: count }, () => new Set<number>());
  for (const l of links) if (l.target && l.target.file !== l.file) after[l.file]!.add(l.target.file);
  const placed = new Set<number>();
  const order: number[] = [];
  while (order.length < count) {
    const next = [...Array(count).keys()].find((i) => !placed.has(i) && [...after[i]!].every((d) => placed.has(d))) ?? [...Array(count).keys()].find((i) => !placed.has(i))!;
    placed.add(next);
    order.push(next);
  }
  return order;
}
