/**
 * The messages between the host and a sandbox process, one per frame (frames.ts), as two closed
 * unions: encoders take only these, and each side reads what arrives into them or fails with a
 * {@link WireProtocolError} naming what was wrong. The host treats every worker frame as
 * hostile (a compromised sandbox process sends anything): {@link readWorkerMessage} checks each
 * field's type and shape, and the run (process-run.ts) then checks what the message means (the
 * run it is for, call ids that only grow, visible tool names, byte caps, the host's own limit
 * values). The worker reads the host's frames with {@link readHostMessage} the same way.
 *
 * Host -> worker: `run` (one program), `results` (a batch of call outcomes; in a durable run with
 * the clock the program reads meanwhile), `abort`.
 * Worker -> host: `ready` (once, after start-up), `calls` (a batch of the program's calls),
 * `log` (one console line), `slice` (a durable run's slice ended, after its calls and logs),
 * `late` (calls the program made after its run ended, which the worker dropped: for the host to
 * record), `done` (the run's outcome).
 * The flat lists are the guest's own layouts (isolate/guest/protocol.ts), relayed as they are.
 */
import { isLimitName, type LimitName } from '../../bridge/limit-failure.js';
import { MAX_RECORDED_LATE_CALLS } from '../../bridge/late-calls.js';
import { PtcError } from '../../tools/errors.js';
import { LOG_LEVELS, MAX_CALL_BATCH, type CallItems, type LogLevel, type OutcomeBatch } from '../isolate/guest/protocol.js';
import type { RunDeterminism, RunFailure, RunLimits, RunRequest } from '../program-runner.js';

/** A frame that is not one of the messages this side can receive. */
export class WireProtocolError extends PtcError {
  override readonly name = 'WireProtocolError';
  constructor(readonly problem: string) {
    super(`malformed message: ${problem}`);
  }
}

/** The host's messages to a sandbox process. */
export type HostToWorker =
  | { readonly t: 'run'; readonly runId: number; readonly request: RunRequest }
  | { readonly t: 'results'; readonly runId: number; readonly items: OutcomeBatch; readonly clock?: number }
  | { readonly t: 'abort'; readonly runId: number };

/** How a run ended, as the worker reports it (the host rebuilds it: see process-run.ts). */
export type WireOutcome =
  | { readonly ok: true; readonly resultJson: string; readonly cpuMs: number; readonly wallMs: number }
  | { readonly ok: false; readonly failure: RunFailure; readonly cpuMs: number; readonly wallMs: number };

/** A sandbox process's messages to the host. */
export type WorkerToHost =
  | { readonly t: 'ready'; readonly pid: number }
  | { readonly t: 'calls'; readonly runId: number; readonly items: CallItems }
  | { readonly t: 'log'; readonly runId: number; readonly level: LogLevel; readonly text: string }
  /** A durable run's slice ended; `calls` is the highest call id its program has made. */
  | { readonly t: 'slice'; readonly runId: number; readonly calls: number }
  /** A run alone in the process ended a slice of outcomes without sending anything (it awaits more of them). */
  | { readonly t: 'idle'; readonly runId: number }
  /** Late calls: the names of at most MAX_RECORDED_LATE_CALLS of a run (each up to 200 characters), and how many more. */
  | { readonly t: 'late'; readonly runId: number; readonly names: readonly string[]; readonly more: number }
  | { readonly t: 'done'; readonly runId: number; readonly outcome: WireOutcome };

/** Either direction. */
export type WireMessage = HostToWorker | WorkerToHost;

type Raw = Record<string, unknown>;

const isRecord = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isMeasure = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const LEVELS = new Set<unknown>(LOG_LEVELS);
const FAILURES = new Set<unknown>(['thrown', 'limit', 'crash', 'aborted']);

/** A received `t` for a message (never runs anything of it: a hostile `t` may be any JSON). */
function typeName(t: unknown): string {
  return typeof t === 'string' ? JSON.stringify(t).slice(0, 40) : `of type ${t === null ? 'null' : typeof t}`;
}

function runIdOf(m: Raw): number {
  if (!isCount(m.runId)) throw new WireProtocolError(`a ${typeName(m.t)} message has no run id`);
  return m.runId;
}

/** Checks a frame from a sandbox process; throws a {@link WireProtocolError} for anything else. */
export function readWorkerMessage(m: Raw): WorkerToHost {
  switch (m.t) {
    case 'ready':
      if (!isCount(m.pid)) throw new WireProtocolError('"ready" has no pid');
      return { t: 'ready', pid: m.pid };
    case 'calls': {
      const runId = runIdOf(m);
      const items = m.items;
      if (!Array.isArray(items) || items.length === 0 || items.length % 3 !== 0) throw new WireProtocolError('"calls" is not a list of id, name, arguments triples');
      // The guest sends at most MAX_CALL_BATCH calls a frame; a frame of 200,000 held the host 4.5 s.
      if (items.length > 3 * MAX_CALL_BATCH) throw new WireProtocolError(`"calls" has more than ${MAX_CALL_BATCH} calls`);
      for (let i = 0; i < items.length; i += 3) {
        if (typeof items[i] !== 'number' || typeof items[i + 1] !== 'string' || typeof items[i + 2] !== 'string') {
          throw new WireProtocolError('a call in "calls" is not a numeric id, a name and JSON text');
        }
      }
      return { t: 'calls', runId, items: items as CallItems };
    }
    case 'log': {
      const runId = runIdOf(m);
      if (!LEVELS.has(m.level) || typeof m.text !== 'string') throw new WireProtocolError('"log" has a bad level or text');
      return { t: 'log', runId, level: m.level as LogLevel, text: m.text };
    }
    case 'slice': {
      const runId = runIdOf(m);
      if (!isCount(m.calls)) throw new WireProtocolError('"slice" has no call count');
      return { t: 'slice', runId, calls: m.calls };
    }
    case 'idle':
      return { t: 'idle', runId: runIdOf(m) };
    case 'late':
      return readLate(runIdOf(m), m.names, m.more);
    case 'done':
      return { t: 'done', runId: runIdOf(m), outcome: readOutcome(m.outcome) };
    default:
      throw new WireProtocolError(`unknown message type ${typeName(m.t)}`);
  }
}

function readLate(runId: number, names: unknown, more: unknown): WorkerToHost {
  if (!Array.isArray(names) || names.length > MAX_RECORDED_LATE_CALLS || !isCount(more) || (names.length === 0 && more === 0)) {
    throw new WireProtocolError(`"late" is not up to ${MAX_RECORDED_LATE_CALLS} names and a count`);
  }
  for (const name of names) if (typeof name !== 'string' || name.length > 200) throw new WireProtocolError('a name in "late" is not text of up to 200 characters');
  return { t: 'late', runId, names: names as string[], more };
}

function readOutcome(o: unknown): WireOutcome {
  if (!isRecord(o)) throw new WireProtocolError('"done" has no outcome');
  if (!isMeasure(o.cpuMs) || !isMeasure(o.wallMs)) throw new WireProtocolError('"done" has no CPU or wall time');
  const { cpuMs, wallMs } = o;
  if (o.ok === true) {
    if (typeof o.resultJson !== 'string') throw new WireProtocolError('"done" has a result that is not JSON text');
    return { ok: true, resultJson: o.resultJson, cpuMs, wallMs };
  }
  if (o.ok !== false) throw new WireProtocolError('"done" is neither a result nor a failure');
  return { ok: false, failure: readFailure(o.failure), cpuMs, wallMs };
}

function readFailure(f: unknown): RunFailure {
  if (!isRecord(f) || !FAILURES.has(f.kind) || typeof f.message !== 'string') throw new WireProtocolError('"done" has a failure of unknown shape');
  const { message } = f;
  switch (f.kind as RunFailure['kind']) {
    case 'thrown': {
      const line = isCount(f.line) && f.line > 0 ? f.line : undefined;
      const column = isCount(f.column) && f.column > 0 ? f.column : undefined;
      return { kind: 'thrown', message, ...(line !== undefined ? { line } : {}), ...(line !== undefined && column !== undefined ? { column } : {}) };
    }
    case 'limit':
      if (!isLimitName(f.limit) || typeof f.value !== 'number') throw new WireProtocolError('"done" names no known limit');
      return { kind: 'limit', limit: f.limit as LimitName, value: f.value, message };
    case 'crash':
      return { kind: 'crash', message };
    case 'aborted':
      return { kind: 'aborted', message };
  }
}

/** Checks a frame from the host (the worker's side). */
export function readHostMessage(m: Raw): HostToWorker {
  switch (m.t) {
    case 'run':
      return { t: 'run', runId: runIdOf(m), request: readRequest(m.request) };
    case 'results': {
      const runId = runIdOf(m);
      if (!Array.isArray(m.items) || m.items.length % 4 !== 0) throw new WireProtocolError('"results" is not a list of outcomes');
      if (m.clock !== undefined && !isMeasure(m.clock)) throw new WireProtocolError('"results" has a clock that is not a time');
      return { t: 'results', runId, items: m.items as OutcomeBatch, ...(m.clock !== undefined ? { clock: m.clock } : {}) };
    }
    case 'abort':
      return { t: 'abort', runId: runIdOf(m) };
    default:
      throw new WireProtocolError(`unknown message type ${typeName(m.t)}`);
  }
}

/** The shape of a request; its values are checked by the runner (validateRunRequest). */
function readRequest(r: unknown): RunRequest {
  if (!isRecord(r) || typeof r.js !== 'string' || !Array.isArray(r.toolNames) || !isRecord(r.limits)) throw new WireProtocolError('"run" has no program, tool names or limits');
  const determinism = r.determinism === undefined ? undefined : (r.determinism as RunDeterminism);
  if (r.group !== undefined && typeof r.group !== 'string') throw new WireProtocolError('"run" has a group that is not text');
  return {
    js: r.js,
    toolNames: r.toolNames as string[],
    limits: r.limits as unknown as RunLimits,
    ...(r.lineOffset !== undefined ? { lineOffset: r.lineOffset as number } : {}),
    ...(determinism !== undefined ? { determinism } : {}),
    ...(r.group !== undefined ? { group: r.group as string } : {}),
  };
}
