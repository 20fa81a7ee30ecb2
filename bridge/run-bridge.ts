/**
 * The host side of one PTC run. Invariants it owns:
 *
 * - Token: each run gets a fresh token (crypto random) that stays here. Every child call re-enters
 *   `host.call` with origin `{ kind: 'ptc', parentCallId, token }`, for the parent's agent, so every
 *   listener, guard, approval and event applies exactly as to a direct call.
 * - Revocation: the token is revoked the moment the run ends, whichever way (result, throw,
 *   limit, abort, crash). A call arriving after that (a leaked promise, a misbehaving sandbox
 *   process) is refused and recorded as `ptc/call-refused` (a flood under a cap: late-calls.ts); in-flight children get their abort
 *   signal and queued ones never start.
 * - Dispatch record: before any policy runs, `tool/ptc-dispatch` records only the pair id, the
 *   tool name and the normalized args.
 * - Names: the program's callable name maps to a tool name through the codegen mapping (a `Map`),
 *   so `constructor` or `__proto__` is an unknown tool, never a prototype lookup.
 * - Untrusted guest: argument caps are checked again on the JSON text; nothing the guest sends is
 *   trusted to be small, shallow or well-formed.
 * - Scheduling: children go through a per-run `CallScheduler` (exclusive tools never overlap a
 *   sibling; parallel ones are bounded by `maxInFlight`).
 * - Limits: `maxCalls`, `maxLogBytes`, `hostMs` (host-budget.ts) and the wall clock (run-clock.ts) are enforced here; the
 *   wall clock pauses while any child waits for a person (seen as the child's `ask` decision
 *   event, routed by one sink per host: approval-waits.ts) and while the runner waits for a
 *   sandbox process. A limit aborts `signal` with a
 *   {@link RunLimitError} naming it.
 * - Time: every reading and timer (the deadline, the waits, call durations, the grace `close`
 *   gives aborted children, the program's sleeps) is on the one injected clock.
 * - Sleep: a call to the reserved name `#sleep` is the program's `await sleep(ms)`, settled by a
 *   timer (run-sleeps.ts), not a tool call: no pipeline, not in `calls`, not in `maxCalls`.
 */
import { setMaxListeners } from 'node:events';
import { APPROVAL_BUDGET, CallScheduler, DURABLE_CALL, RESULT_TEXT_STREAM, type DurableCallOptions, type ResultTextStream, type ResultTextStreamOptions, type ApprovalBudget, errorText, subscribeAbort, tokenIdOf, type AgentRef, type CallOptions, type DurableCall, type JsonValue, type ToolHost, type ToolResult } from '../tools/index.js';
import { openApprovalWaits } from './approval-waits.js';
import { ChildCalls, type ChildCallRecord } from './child-calls.js';
import { RunAbortedError, RunLimitError, RunStoppedError } from './errors.js';
import { parseGuestArgs, type ArgCaps } from './guest-args.js';
import { limitMessage, limitText } from './limit-failure.js';
import { HostWorkBudget } from './host-budget.js';
import { guestFailure, guestOutcomeOf, type ChildOutcome } from './guest-outcome.js';
import { realClock, type DeadlineClock } from './pausable-deadline.js';
import { RunClock } from './run-clock.js';
import { createRunToken } from './run-token.js';
import { LateCallLog, MORE_LATE_CALLS } from './late-calls.js';
import { RunSleeps } from './run-sleeps.js';
import { SLEEP_CALL } from '../codegen/index.js';

/** The runner's gate on a run's waits for people (structurally the runtime's `PersonWaitGate`). */
export interface PersonWaitGate {
  admit(): string | undefined;
  waiting(waiting: boolean): void;
}

/** The limits the bridge enforces (a subset of the runtime's `RunLimits`). */
export interface BridgeLimits extends ArgCaps {
  readonly wallMs: number;
  readonly maxCalls: number;
  readonly maxInFlight: number;
  readonly maxLogBytes: number;
  /** Host work the run's calls may cost before their tools run, ms (host-budget.ts); absent: unbounded. */
  readonly hostMs?: number;
  /**
   * Wall time the run's children may wait for people in all, ms (absent: unbounded). Past it,
   * pending and later asks are denied as `unavailable`, naming the limit; the run goes on.
   */
  readonly approvalWaitMs?: number;
}

/** Options of {@link openRunBridge}. */
export interface RunBridgeOptions {
  readonly host: ToolHost;
  /** The run_code call's id: the parent of every child. */
  readonly parentCallId: string;
  /** The agent the run is for; children run for it too. */
  readonly agent?: AgentRef;
  /** The run_code call's own signal: aborting it aborts the run. */
  readonly signal?: AbortSignal;
  readonly limits: BridgeLimits;
  /** Callable name (as the program wrote it) to tool name; the codegen mapping. */
  readonly toolNames: ReadonlyMap<string, string>;
  /** How long `close` waits for aborted in-flight children to settle (default 250 ms). */
  readonly cancelGraceMs?: number;
  /** The run's clock: its readings and timers (the deadline, waits, call durations, the close grace); inject in tests. */
  readonly clock?: DeadlineClock;
  /**
   * A durable run's stable call-id tag: each child's id is `<parentCallId>/<idTag>.<n>` with `n`
   * the program's own call number ({@link ChildCallMeta.seq}), the same in every replay.
   */
  readonly idTag?: string;
  /** Wall time the run spent before its bridge opened that counts against `wallMs` (its wait for the type checker), ms. */
  readonly wallSpentMs?: number;
}

/** What a durable run's relay says about one call it passes on (runtime/durable). */
export interface ChildCallMeta {
  /** The program's number of the call (ids are built from it with `idTag`; a durable run's relay sets it). */
  readonly seq?: number;
  /** A large array result's text streamed to the program's sandbox process as it is made (tools/result-text-stream.ts). */
  readonly textStream?: ResultTextStream;
  /** The pipeline hooks of a durable run's call (tools/durable-call.ts). */
  readonly durable?: DurableCall;
  /** Hears the pipeline's result (not called for a call the bridge refused itself). */
  readonly onResult?: (result: ToolResult) => void;
}

/** A call a replay answered from the journal: recorded in `calls`, counted in `maxCalls`, never dispatched. */
export interface ReplayedCall {
  readonly seq: number;
  /** The tool's name (or the callable name, for a call the bridge had refused). */
  readonly tool: string;
  readonly status: ChildCallRecord['status'];
  readonly ms: number;
}

/** A console line captured from the program. */
export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

/** How the run ended, as reported in `ptc/run-end`. */
export interface RunEnd {
  /** `suspended`: a durable run freed its process to wait for a person; `diverged`: its replay did not match its journal. */
  readonly outcome: 'ok' | 'thrown' | 'limit' | 'crash' | 'aborted' | 'suspended' | 'diverged';
  readonly limit?: { readonly name: string; readonly value: number };
}

/** What the bridge knows once a run is over. */
export interface RunReport {
  readonly calls: ChildCallRecord[];
  readonly logs: string[];
  readonly logBytes: number;
  /** Bytes of JSON handed to the program by child calls (kept out of the model's context). */
  readonly childResultBytes: number;
  /** Wall time spent with at least one child waiting for approval. */
  readonly approvalWaitMs: number;
  /** Wall time the runner spent waiting for room to start the program (a free sandbox process). */
  readonly queuedMs: number;
  /** Host work charged to the run's calls (`hostMs`), ms. */
  readonly hostMs: number;
}

/** The host side of one run. */
export interface RunBridge {
  /** What the runner calls (structurally the runtime's `GuestBridge`). */
  readonly guest: {
    /** One call of the program (`meta`: from a durable run's relay). */
    call(name: string, argsJson: string, meta?: ChildCallMeta): Promise<ChildOutcome>;
    /** Records a call a durable run's replay answered from its journal. */
    replayed(call: ReplayedCall): void;
    log(level: LogLevel, text: string): void;
    /**
     * A runner dropped a call that arrived after the run settled (or `count` of them): recorded as
     * `ptc/call-refused`, at most MAX_RECORDED_LATE_CALLS of a run one by one (late-calls.ts).
     */
    onLateCall(event: { readonly name: string; readonly reason: string; readonly count?: number }): void;
    /** The runner waits for room to start the program: the wall clock stops meanwhile. */
    queued(waiting: boolean): void;
    /** The runner's gate on waits for a person (runtime's `GuestBridge.personWaits`). */
    personWaits(gate: PersonWaitGate): void;
  };
  /** Give this to the runner: aborted on a limit, on the parent's abort, and at close. */
  readonly signal: AbortSignal;
  /** Digest of the token, as logged. */
  readonly tokenId: string;
  /** Why the bridge stopped the run (limit, outside abort, or a durable run's own stop), if it did. */
  readonly stopReason: RunLimitError | RunAbortedError | RunStoppedError | undefined;
  /** Stops the run as a durable run's journal decides (suspended, diverged, journal failed). */
  stopRun(reason: RunStoppedError): void;
  /** Revokes the token, cancels what is still in flight, emits `ptc/run-end`, reports. */
  close(end: RunEnd): Promise<RunReport>;
}

let runCounter = 0;

/** Opens the bridge for one run and emits `ptc/run-start`. */
export function openRunBridge(options: RunBridgeOptions): RunBridge {
  const { host, parentCallId, agent, limits, toolNames } = options;
  const token = createRunToken();
  const tokenId = tokenIdOf(token);
  const origin = Object.freeze({ kind: 'ptc' as const, parentCallId, token });
  const runTag = `${tokenId.slice(0, 8)}${(++runCounter).toString(36)}`;
  // The run's approval budget: once its children have waited approvalWaitMs for people, their
  // asks are denied (approval-budget.ts) and the run goes on without them.
  const approvalCutoff = new AbortController();
  setMaxListeners(0, approvalCutoff.signal);
  const clock = new RunClock({
    wallMs: Math.max(0, limits.wallMs - (options.wallSpentMs ?? 0)),
    clock: options.clock,
    onExpire: () => stop(new RunLimitError('wallMs', limits.wallMs, limitMessage('wallMs', limits.wallMs))),
    ...(limits.approvalWaitMs !== undefined ? { approvalWaitMs: limits.approvalWaitMs, onApprovalBudgetSpent: () => approvalCutoff.abort() } : {}),
  });
  const now = clock.now;
  const calls = new ChildCalls(now);
  const sleeps = new RunSleeps({ clock: options.clock ?? realClock });
  const scheduler = new CallScheduler(limits.maxInFlight);
  const runAbort = new AbortController();
  // Every in-flight child listens on this signal (bounded by maxInFlight): not a leak.
  setMaxListeners(0, runAbort.signal);
  const logs: string[] = [];
  let logBytes = 0;
  let childResultBytes = 0;
  let dispatched = 0;
  let revoked = false;
  let stopReason: RunLimitError | RunAbortedError | RunStoppedError | undefined;

  const stop = (reason: RunLimitError | RunAbortedError | RunStoppedError) => {
    if (revoked || stopReason) return;
    stopReason = reason;
    revoked = true;
    sleeps.end(`the run ended (${reason.message})`);
    calls.revoke();
    scheduler.cancelPending(reason);
    clock.stop();
    runAbort.abort(reason);
  };

  const hostWork = new HostWorkBudget({ limitMs: limits.hostMs ?? Number.POSITIVE_INFINITY, onExceeded: stop });
  // The same options for every child: the run's agent, its signal and its origin.
  // The runner's gate on waits for a person (its fairness between agents), once it gives one.
  let personGate: PersonWaitGate | undefined;
  const admit = () => personGate?.admit();
  const approvalBudget: ApprovalBudget = Object.freeze({
    signal: approvalCutoff.signal,
    reason: limits.approvalWaitMs === undefined ? 'unavailable' : `unavailable: the run already waited ${limitText('approvalWaitMs', limits.approvalWaitMs)} ms in all for approvals`,
    admit,
  });
  const childOptions = Object.freeze({ ...(agent ? { agent } : {}), signal: runAbort.signal, origin, [APPROVAL_BUDGET]: approvalBudget });

  // Approval waits pause the wall clock: an `ask` for one of our children starts a wait, its
  // approval decision (or result) ends it. One sink per host routes them (approval-waits.ts).
  // The runner hears when the run starts and stops waiting for people (its gate, above).
  const asking = new Set<string>();
  const tellGate = (waiting: boolean) => {
    try {
      personGate?.waiting(waiting);
    } catch {
      // the runner's problem
    }
  };
  const approvalWaits = openApprovalWaits(host, {
    approvalWait(callId, waiting) {
      clock.approvalWait(callId, waiting);
      const before = asking.size > 0;
      if (waiting) asking.add(callId);
      else asking.delete(callId);
      if (before !== asking.size > 0) tellGate(!before);
    },
  });
  const personWaits = (gate: PersonWaitGate) => {
    personGate = gate;
    if (asking.size > 0) tellGate(true);
  };

  const parentSignal = options.signal;
  const onParentAbort = () => stop(new RunAbortedError(reasonText(parentSignal?.reason)));
  // One listener per signal however many runs share it (a server's shutdown signal, say).
  let unsubscribeParent: (() => void) | undefined;
  if (parentSignal?.aborted) onParentAbort();
  else if (parentSignal) unsubscribeParent = subscribeAbort(parentSignal, onParentAbort);

  host.emit({ type: 'ptc/run-start', callId: parentCallId, tokenId });

  // Late calls, at most MAX_RECORDED_LATE_CALLS one by one (late-calls.ts).
  const lateCalls = new LateCallLog({
    refused: (name, reason) => host.emit({ type: 'ptc/call-refused', parentCallId, tokenId, toolName: safeName(name), reason }),
    summary: (count, reason) => host.emit({ type: 'ptc/call-refused', parentCallId, tokenId, toolName: MORE_LATE_CALLS, reason, count }),
  });
  const refuseLate = (name: string): ChildOutcome => {
    const reason = stopReason ? `the run already ended (${stopReason.message})` : 'the run already ended; its token is revoked';
    lateCalls.add(name, reason);
    return guestFailure(safeName(name), `The call to "${safeName(name)}" was refused: ${reason}.`);
  };
  const onLateCall = (event: { readonly name: string; readonly reason: string; readonly count?: number }) => {
    if (event?.name === SLEEP_CALL) return; // a sleep is not a tool call: nothing was refused
    lateCalls.add(event?.name, `the run already ended; the runner dropped the call (${String(event?.reason).slice(0, 50)})`, event?.count);
  };

  const recordCancelled = async (id: string, toolName: string, args: JsonValue, reason: unknown): Promise<void> => {
    try {
      await host.call({ id, name: toolName, args }, { ...(agent ? { agent } : {}), signal: AbortSignal.abort(reason), origin });
    } catch {
      // the host's own failure; the call is settled as an error either way
    }
  };

  const idOf = options.idTag === undefined ? () => `${parentCallId}/${runTag}.${dispatched}` : (seq: number) => `${parentCallId}/${options.idTag}.${seq}`;
  const replayed = ({ seq, tool, status, ms }: ReplayedCall) => {
    ++dispatched;
    const entry = calls.add(idOf(seq), safeName(tool));
    calls.started(entry);
    calls.settle(entry, status, undefined, entry.startedAt + ms);
  };

  // A call's own parts of its options: a durable run's hooks, a runner's text stream.
  const optionsFor = (meta: ChildCallMeta): CallOptions => {
    if (meta.durable === undefined && meta.textStream === undefined) return childOptions;
    const withParts: CallOptions & DurableCallOptions & ResultTextStreamOptions = {
      ...childOptions,
      ...(meta.durable !== undefined ? { [DURABLE_CALL]: meta.durable } : {}),
      ...(meta.textStream !== undefined ? { [RESULT_TEXT_STREAM]: meta.textStream } : {}),
    };
    return withParts;
  };

  const call = async (name: string, argsJson: string, meta?: ChildCallMeta): Promise<ChildOutcome> => {
    if (name === SLEEP_CALL) return sleeps.sleep(argsJson);
    if (revoked) return refuseLate(name);
    const label = safeName(name);
    ++dispatched;
    const id = idOf(meta?.seq ?? dispatched);
    if (dispatched > limits.maxCalls) {
      stop(new RunLimitError('maxCalls', limits.maxCalls, limitMessage('maxCalls', limits.maxCalls)));
      calls.refused(id, label);
      return guestFailure(label, limitMessage('maxCalls', limits.maxCalls, { by: 'call', toolName: label }));
    }
    const toolName = typeof name === 'string' ? toolNames.get(name) : undefined;
    if (toolName === undefined) {
      calls.refused(id, label);
      const available = [...toolNames.keys()];
      return guestFailure(label, `Unknown tool "${label}". Available tools: ${available.length ? available.join(', ') : '(none)'}.`);
    }
    // Host work (hostMs) is charged section by section as it was done, without a closure each.
    const parseStarted = now();
    const parsed = parseGuestArgs(toolName, argsJson, limits);
    if (!parsed.ok) {
      hostWork.charge(now() - parseStarted);
      calls.refused(id, toolName);
      return guestFailure(toolName, parsed.message);
    }
    hostWork.charge(now() - parseStarted);
    const args: JsonValue = parsed.args;
    const dispatchStarted = now();
    host.emit({ type: 'tool/ptc-dispatch', pairId: id, toolName, args });
    const mode = host.executionMode({ name: toolName, args });
    const dispatchEnded = now();
    hostWork.charge(dispatchEnded - dispatchStarted);
    const entry = calls.add(id, toolName, dispatchEnded);
    approvalWaits.watch(id);
    let result: ToolResult;
    try {
      result = await scheduler.submit(mode, () => {
        calls.started(entry);
        // Until its first await the pipeline looks the tool up, validates and records: host work.
        const started = now();
        try {
          return host.call({ id, name: toolName, args }, meta === undefined ? childOptions : optionsFor(meta));
        } finally {
          hostWork.charge(now() - started);
        }
      });
    } catch (err) {
      // Cancelled before it started (the run ended), or the host itself failed. A cancelled call
      // still goes through host.call, with its signal already aborted: the pipeline records it
      // (`tool/call`, then `tool/result` "cancelled before it started") without running any
      // policy or the tool, so every `tool/ptc-dispatch` in the trace has its result.
      if (revoked) await recordCancelled(id, toolName, args, err);
      calls.settle(entry, 'error');
      const why = revoked ? 'the run ended before it started' : `the host failed: ${reasonText(err)}`;
      return guestFailure(toolName, `The call to "${toolName}" did not run: ${why}.`);
    } finally {
      approvalWaits.unwatch(id);
      clock.approvalWait(id, false);
    }
    if (meta?.onResult !== undefined) {
      try {
        meta.onResult(result);
      } catch {
        // the relay's problem
      }
    }
    const outcomeStarted = now();
    const mapped = guestOutcomeOf(result);
    const outcomeEnded = now();
    hostWork.charge(outcomeEnded - outcomeStarted);
    hostWork.charge(mapped.madeMs);
    calls.settle(entry, mapped.status, result, outcomeEnded);
    if (mapped.outcome.ok) childResultBytes += mapped.bytes;
    return mapped.outcome;
  };

  const queued = (waiting: boolean) => clock.queued(waiting === true);

  const log = (level: LogLevel, text: string) => {
    if (revoked) return;
    const known = level === 'info' || level === 'warn' || level === 'error' || level === 'debug' ? level : 'log';
    const line = `${known === 'log' ? '' : `[${known}] `}${typeof text === 'string' ? text : '(not text)'}`;
    const bytes = Buffer.byteLength(line, 'utf8') + 1;
    if (logBytes + bytes > limits.maxLogBytes) {
      stop(new RunLimitError('maxLogBytes', limits.maxLogBytes, limitMessage('maxLogBytes', limits.maxLogBytes)));
      return;
    }
    logBytes += bytes;
    logs.push(line);
  };

  const close = async (end: RunEnd): Promise<RunReport> => {
    sleeps.end('the run ended');
    if (!revoked) {
      revoked = true;
      calls.revoke();
      scheduler.cancelPending(new RunAbortedError('the run ended'));
      clock.stop();
    }
    unsubscribeParent?.();
    if (!runAbort.signal.aborted) runAbort.abort(new RunAbortedError('the run ended; its token is revoked'));
    // Aborted children settle as their pipeline sees the abort: wait for that, at most the grace.
    await clock.within(options.cancelGraceMs ?? 250, calls.allSettled());
    approvalWaits.close();
    if (asking.size > 0) {
      asking.clear();
      tellGate(false);
    }
    personGate = undefined;
    const { approvalWaitMs, queuedMs, durationMs } = clock.times();
    lateCalls.close();
    const report: RunReport = { calls: calls.snapshot(), logs, logBytes, childResultBytes, approvalWaitMs, queuedMs, hostMs: hostWork.spentMs };
    host.emit({
      type: 'ptc/run-end',
      callId: parentCallId,
      tokenId,
      outcome: end.outcome,
      ...(end.limit ? { limit: end.limit } : {}),
      calls: calls.count,
      durationMs,
    });
    return report;
  };

  return {
    guest: { call, replayed, log, onLateCall, queued, personWaits },
    signal: runAbort.signal,
    tokenId,
    get stopReason() {
      return stopReason;
    },
    stopRun: (reason: RunStoppedError) => stop(reason),
    close,
  };
}

function safeName(name: unknown): string {
  return typeof name === 'string' ? name.slice(0, 200) : '(not a name)';
}

function reasonText(reason: unknown): string {
  return reason === undefined ? 'aborted' : errorText(reason, 'aborted');
}
