/**
 * The host half of one run in a sandbox process: relays the program's calls to the bridge and
 * their outcomes back, and supervises the process while the run lasts.
 *
 * Trust: the sandbox process is assumed compromised. Every message is checked before anything
 * reaches the bridge: its shape by readWorkerMessage (wire.ts; a malformed frame kills the
 * process), then what it means here: it must be for this run (anything for another run, or after this run
 * ended, is dropped and reported as a late call, as are the late calls the worker itself dropped), calls must name a tool the program can see
 * (or `#sleep`, the program's `sleep`),
 * with unique ids and arguments within `maxArgBytes`; logs count against `maxLogBytes`; the final
 * outcome is rebuilt field by field (a limit's value is the host's, not the child's). A
 * malformed message kills the process and ends the run as a crash.
 *
 * Supervision: resident memory (`rssMb`) and CPU time are read from /proc on a timer (a backstop
 * behind the worker's own CPU limit, see {@link cpuBackstopMs}). An abort resolves the run
 * at once; the process gets `abortGraceMs` to confirm, or is killed. A process that passed a
 * limit, died or misbehaved is never reused: one the host found at fault is killed; one whose
 * worker reported a limit or an isolate crash takes no new run and stops when its last run ends.
 */
import { subscribeAbort } from '../../tools/index.js';
import { jsonDepth, limitFailure, limitText, MAX_RECORDED_LATE_CALLS } from '../../bridge/index.js';
import { SLEEP_CALL } from '../../codegen/index.js';
import type { GuestBridge, GuestCallOutcome, RunFailure, RunOutcome, RunRequest } from '../program-runner.js';
import { OUTCOME_PART, type CallItems, type LogLevel } from '../isolate/guest/protocol.js';
import type { ResultTextStream } from '../../tools/index.js';
import type { LateCallAwareBridge, LateCallEvent, RelayBridge } from '../isolate/index.js';
import { OutcomeQueue } from '../outcome-queue.js';
import { abortMessage, overBytes, reportDroppedCalls, utf8Length, type StoppableRun } from '../run-checks.js';
import { describeExit, type SandboxExit, type SandboxProcess } from './sandbox-process.js';
import type { WireOutcome, WorkerToHost } from './wire.js';

const MAX_MESSAGE_CHARS = 16 * 1024;
/** Deepest result the guest sends (program.js converts a returned value at most 512 levels deep). */
const MAX_RESULT_DEPTH = 512;
/** How long a finished run still hears its process's frames (late calls named after its end). */
const LATE_ROUTE_MS = 1_000;
const OOM_PATTERN = /is_heap_oom = 1|heap out of memory|out-of-memory|Allocation failed|CALL_AND_RETRY_LAST|OOM/i;

/** A process runner's outcome, with which process ran it. */
export type ProcessRunOutcome = RunOutcome & { readonly pid: number | undefined };

/** One process run: the process, the program, the host's side, and the runner's bookkeeping. */
export interface ProcessRunOptions {
  /** The sandbox process this run has a slot in (its other slots hold runs of the same group only). */
  readonly process: SandboxProcess;
  readonly request: RunRequest;
  readonly bridge: GuestBridge;
  /** Aborts the run. */
  readonly signal: AbortSignal;
  readonly runId: number;
  readonly startedAt: number;
  readonly pollMs: number;
  readonly abortGraceMs: number;
  readonly onLateCall?: (event: LateCallEvent) => void;
  /** The run is over and the process may be reused (`reusable`) or was killed. */
  readonly onProcessFree: (process: SandboxProcess, reusable: boolean) => void;
  /** The runner's runs in progress: this run is in it until it settles. */
  readonly runs: Set<StoppableRun>;
}


/**
 * The sandbox process's CPU time (since its run started) past which the host kills it: three
 * times the program's budget plus 500 ms, plus 0.5 ms for each call it relayed. (A run replayed
 * after a bounded slice, docs/run-life.md "Bounded slices", spends the CPU of its first pass
 * twice, but is charged once: up to twice its budget is the program's own.) The worker's own work per
 * call (frames, JSON, its event loop, polling up to 0.2 ms for the reply) is not the program's CPU
 * time (~70 µs here without polling), so a run of many cheap calls must not reach this backstop
 * while its program is within budget.
 * (The caller counts at most `maxCalls`: a compromised process cannot buy time with a flood.)
 */
export function cpuBackstopMs(cpuMs: number, calls: number): number {
  return 3 * cpuMs + 500 + 0.5 * calls;
}

/** Runs `options.request` in `options.process`; never rejects. */
export function executeProcessRun(options: ProcessRunOptions): Promise<ProcessRunOutcome> {
  return new ProcessRun(options).start();
}

class ProcessRun implements StoppableRun {
  private settled = false;
  private finished = false; // the child confirmed the end, or was killed
  private resolve!: (outcome: ProcessRunOutcome) => void;
  /** Call ids only grow (the worker numbers calls in order): a replayed id is hostile. */
  private lastId = 0;
  /** Calls the process relayed: each costs it CPU time outside the program's own budget. */
  private callsReceived = 0;
  private readonly toolNames: Set<string>;
  /**
   * Set when the host's bridge takes calls and gives outcomes in batches itself (a durable run):
   * calls pass through as the worker sent them, and each batch goes out as one `results` frame.
   */
  private readonly relay: RelayBridge | undefined;
  /** Outcomes on their way to the process, batched as the in-process runner batches them. */
  private readonly results = new OutcomeQueue((items) => this.process.send({ t: 'results', runId: this.options.runId, items }));
  /** Calls sent to the bridge whose outcome has not arrived. */
  private inFlight = 0;
  private logBytes = 0;
  /** Late calls the process named (see {@link onLate}). */
  private lateNamed = 0;
  private baseCpuMs = 0;
  /**
   * Most runs the process held at once since this run started (it included): the process's
   * memory and CPU time are theirs together, so its `rssMb` and CPU backstop scale by it.
   */
  private peakActive = 1;
  private poll: NodeJS.Timeout | undefined;
  private grace: NodeJS.Timeout | undefined;
  private unsubscribeAbort: (() => void) | undefined;

  private readonly process: SandboxProcess;
  private readonly request: RunRequest;
  private readonly bridge: GuestBridge;
  private readonly signal: AbortSignal;

  constructor(private readonly options: ProcessRunOptions) {
    this.process = options.process;
    this.request = options.request;
    this.bridge = options.bridge;
    this.signal = options.signal;
    this.toolNames = new Set(options.request.toolNames);
    const relay = options.bridge as Partial<RelayBridge>;
    this.relay = typeof relay.relayCalls === 'function' && typeof relay.attach === 'function' ? (relay as RelayBridge) : undefined;
  }

  start(): Promise<ProcessRunOutcome> {
    return new Promise((resolve) => {
      this.resolve = resolve;
      const { process, request } = this;
      if (process.dead) {
        this.settle({ kind: 'crash', message: 'The sandbox process was gone before the run started.' });
        this.free(false);
        return;
      }
      const { limits } = request;
      // The frame cap is the process's: with other runs in it, it only grows.
      const cap = 6 * Math.max(limits.maxArgBytes + (1 << 20), limits.maxLogBytes, limits.maxResultBytes) + 65_536;
      process.setFrameCap(process.active > 1 ? Math.max(cap, process.frameCap) : cap);
      process.attach(this.options.runId, { message: (message) => this.onMessage(message), exit: (exit) => this.onExit(exit) });
      process.runs++;
      this.peakActive = Math.max(1, process.active);
      // Alone in the process, the reading taken as it went idle will do; with other runs, now.
      this.baseCpuMs = (process.active > 1 ? process.cpuMs() : process.takeStartCpuMs()) ?? 0;
      this.options.runs.add(this);
      this.unsubscribeAbort = subscribeAbort(this.signal, this.onAbort);
      this.poll = setInterval(() => this.supervise(), this.options.pollMs);
      this.poll.unref?.();
      this.relay?.attach((items, clockMs) => {
        if (!this.settled) this.process.send({ t: 'results', runId: this.options.runId, items, ...(clockMs !== undefined ? { clock: clockMs } : {}) });
      });
      const { determinism } = request;
      process.send({
        t: 'run',
        runId: this.options.runId,
        request: { js: request.js, toolNames: request.toolNames, limits: request.limits, lineOffset: request.lineOffset, ...(determinism ? { determinism: { seed: determinism.seed, clockMs: determinism.clockMs } } : {}), ...(request.group !== undefined ? { group: request.group } : {}) },
      });
      if (this.signal.aborted) this.onAbort();
    });
  }

  private readonly onAbort = () => this.stop(this.signal.reason);

  /** Ends the run as aborted (an abort of its signal, or its runner closing); the process gets a grace period to confirm. */
  stop(reason: unknown): void {
    if (this.settled) return;
    this.settle({ kind: 'aborted', message: abortMessage(reason) });
    this.process.send({ t: 'abort', runId: this.options.runId });
    this.grace = setTimeout(() => this.kill(`it did not stop within ${this.options.abortGraceMs} ms of an abort`), this.options.abortGraceMs);
    this.grace.unref?.();
  }

  private supervise(): void {
    if (this.finished) return;
    const { limits } = this.request;
    // One read of /proc for both (sandbox-process.ts, usage).
    const usage = this.process.usage();
    if (usage === undefined) return;
    const { rssMb: rss, cpuMs: cpu } = usage;
    const runs = (this.peakActive = Math.max(this.peakActive, this.process.active));
    if (rss > limits.rssMb * runs) {
      const over = runs > 1 ? `${limitText('rssMb', limits.rssMb)} x ${runs} runs` : limitText('rssMb', limits.rssMb);
      this.settle(limitFailure('rssMb', limits.rssMb, { by: 'process-killed', measured: `${Math.round(rss)} MB${runs > 1 ? ` for ${runs} runs` : ''}` }));
      return this.kill(`resident memory ${Math.round(rss)} MB over ${over}`);
    }
    if (cpu - this.baseCpuMs > runs * cpuBackstopMs(limits.cpuMs, Math.min(this.callsReceived, limits.maxCalls))) {
      this.settle(limitFailure('cpuMs', limits.cpuMs, { by: 'process-killed' }));
      this.kill(`CPU time over ${limitText('cpuMs', limits.cpuMs)}`);
    }
  }

  private kill(reason: string): void {
    this.process.kill(reason);
    this.free(false);
  }

  private onExit(exit: SandboxExit): void {
    if (this.finished) return;
    if (!this.settled) {
      const { memoryMb } = this.request.limits;
      const outOfMemory = exit.killedFor === undefined && OOM_PATTERN.test(exit.stderrTail);
      if (outOfMemory && this.peakActive > 1) {
        // Which of the process's runs ran out is not known: none is told it passed memoryMb.
        this.settle({ kind: 'crash', message: `The sandbox process ran out of memory while it held ${this.peakActive} runs of this agent (any of them may have caused it; ${describeExit(exit)}); it was replaced.` });
      } else if (outOfMemory) {
        this.settle(limitFailure('memoryMb', memoryMb, { by: 'process-died', exit: describeExit(exit) }));
      } else {
        this.settle({ kind: 'crash', message: `The sandbox process ${exit.killedFor ? `was killed: ${exit.killedFor}` : `died (${describeExit(exit)})`}; it was replaced.` });
      }
    }
    this.free(false);
  }

  private hostile(what: string): void {
    this.settle({ kind: 'crash', message: `The sandbox process sent a malformed message (${what}); it was killed and replaced.` });
    this.kill(`it sent a malformed message (${what})`);
  }

  private late(message: WorkerToHost, reason: LateCallEvent['reason']): void {
    const lateBridge = this.bridge as LateCallAwareBridge;
    const report = reason === 'run-ended' && typeof lateBridge.onLateCall === 'function' ? (event: LateCallEvent) => lateBridge.onLateCall!(event) : this.options.onLateCall;
    if (message.t === 'calls') reportDroppedCalls(message.t, message.items, reason, report);
    else if (message.t === 'late') this.onLate(message.names, message.more, reason, report);
  }

  /**
   * Calls the program made after its run ended, which the worker dropped: each is reported like a
   * call that arrives late here (the bridge records it). The worker names at most
   * MAX_RECORDED_LATE_CALLS of a run and counts the rest; a process that names more is hostile.
   */
  private onLate(names: readonly string[], more: number, reason: LateCallEvent['reason'], report: ((event: LateCallEvent) => void) | undefined): void {
    this.lateNamed += names.length;
    if (this.lateNamed > MAX_RECORDED_LATE_CALLS) return this.hostile(`it named over ${MAX_RECORDED_LATE_CALLS} late calls`);
    if (report === undefined) return;
    const events: LateCallEvent[] = names.map((name) => ({ name, reason }));
    if (more > 0) events.push({ name: '', reason, count: more });
    for (const event of events) {
      try {
        report(event);
      } catch {
        // the observer's problem
      }
    }
  }

  private onMessage(message: WorkerToHost): void {
    if (this.finished) {
      // The run is over: its late calls are recorded (the worker may name some after its end)
      // and the process takes no new run; anything else now is hostile.
      this.late(message, 'run-ended');
      if (message.t === 'late') this.process.retiring ??= 'it sent late calls after its run ended';
      else this.process.kill('it sent a message after its run ended');
      return;
    }
    if (message.t === 'ready') return this.hostile('a second "ready"');
    if (this.settled && message.t !== 'done') return this.late(message, 'run-ended');
    switch (message.t) {
      case 'calls':
        return this.onCalls(message.items);
      case 'log':
        return this.onLog(message.level, message.text);
      case 'slice':
        return this.onSlice(message.calls);
      case 'late':
        return this.late(message, 'run-ended');
      case 'done':
        return this.onDone(message.outcome);
    }
  }

  /** Calls of the right shape (wire.ts); here: ids that only grow, visible tools, `maxArgBytes`. */
  private onCalls(items: CallItems): void {
    const { maxArgBytes } = this.request.limits;
    for (let i = 0; i < items.length; i += 3) {
      const id = items[i] as number;
      const name = items[i + 1] as string;
      const argsJson = items[i + 2] as string;
      if (!Number.isSafeInteger(id) || id <= this.lastId) return this.hostile('a call id is not larger than the previous one');
      // `sleep` crosses as a call to its reserved name (codegen/sleep.ts); the bridge settles it.
      if (!this.toolNames.has(name) && name !== SLEEP_CALL) return this.hostile('a call names a tool the program cannot see');
      if (overBytes(argsJson, maxArgBytes)) return this.hostile(`call arguments are not text within ${limitText('maxArgBytes', maxArgBytes)}`);
      this.lastId = id;
      this.callsReceived++;
    }
    if (this.relay !== undefined) {
      try {
        this.relay.relayCalls(items);
      } catch {
        // the bridge's problem; its calls stay unanswered and the run's limits end it
      }
      return;
    }
    for (let i = 0; i < items.length; i += 3) {
      const id = items[i] as number;
      const name = items[i + 1] as string;
      const parts = new ResultParts((text) => this.sendPart(id, text), () => (this.settled ? undefined : this.process.writeBacklog(PART_BACKLOG_BYTES, PART_WAIT_MS)));
      let pending: Promise<GuestCallOutcome>;
      try {
        pending = this.bridge.call(name, items[i + 2] as string, { textStream: parts });
      } catch (err) {
        pending = Promise.reject(err);
      }
      this.inFlight++;
      pending.then(
        (outcome) => this.queueResult(id, outcome, parts),
        () => this.queueResult(id, { ok: false, toolName: name, message: `The host could not dispatch tools.${name}.` }),
      );
    }
  }

  /** A part of a large array result, sent at once: the worker parses it while the pipeline walks on. */
  private sendPart(id: number, text: string): void {
    if (!this.settled) this.process.send({ t: 'results', runId: this.options.runId, items: [id, OUTCOME_PART, text, ''] });
  }

  /**
   * A durable run's slice ended. Only such a run has slices reported, and the count must be the
   * highest call id this host received (the worker sends the slice's calls before its end).
   */
  private onSlice(calls: number): void {
    if (this.request.determinism === undefined || this.relay === undefined) return this.hostile('a slice report for a run that asked for none');
    if (calls !== this.lastId) return this.hostile(`a slice report of ${calls} calls after ${this.lastId}`);
    try {
      this.relay.sliceEnded?.({ calls });
    } catch {
      // the bridge's problem
    }
  }

  /**
   * A call's outcome, on its way to the process. A value whose parts were streamed goes as "the
   * parts" only if it is exactly the text streamed (the same string the walk made); any other
   * outcome (an error, a denial, another value) goes whole, and the worker drops the parts.
   */
  private queueResult(id: number, outcome: GuestCallOutcome, parts?: ResultParts): void {
    this.inFlight--;
    if (this.settled) return;
    if (parts?.text !== undefined && outcome.ok && outcome.json === parts.text) this.results.pushParts(id, this.inFlight > 0);
    else this.results.push(id, outcome, this.inFlight > 0);
  }

  private onLog(level: LogLevel, text: string): void {
    const { maxLogBytes } = this.request.limits;
    this.logBytes += text.length > maxLogBytes ? text.length : utf8Length(text);
    if (this.logBytes > maxLogBytes) {
      this.settle(limitFailure('maxLogBytes', maxLogBytes));
      return this.kill('console output over maxLogBytes');
    }
    try {
      this.bridge.log(level, text);
    } catch {
      // the bridge's problem
    }
  }

  private onDone(reported: WireOutcome): void {
    if (this.grace !== undefined) clearTimeout(this.grace);
    const outcome = this.checkOutcome(reported);
    if (outcome === undefined) return this.hostile('the run outcome has an unknown shape');
    const { cpuMs } = outcome;
    if (outcome.ok) this.settle(undefined, outcome.resultJson, cpuMs);
    else this.settle(outcome.failure, undefined, cpuMs);
    // A process whose program hit a limit or crashed its isolate is not trusted with another run.
    // It retires rather than dies: the worker reported the run's end, so it disposed that run's
    // isolate, and the runs of the agent in its other slots (each in an isolate of its own, or
    // one sent while the host had already ended this run and awaited this report) finish first.
    const clean = outcome.ok || outcome.failure.kind === 'thrown' || outcome.failure.kind === 'aborted';
    if (!clean) this.process.retiring ??= `its run ended with ${outcome.failure.kind}`;
    this.free(true);
  }

  /**
   * The outcome as the host reports it: a result within `maxResultBytes` that parses as JSON, a
   * message cut to a bounded length, and for a limit the host's own value of it. Undefined for a
   * result that is not JSON.
   */
  private checkOutcome(o: WireOutcome): { ok: true; resultJson: string; cpuMs: number } | { ok: false; failure: RunFailure; cpuMs: number } | undefined {
    const { cpuMs } = o;
    const { limits } = this.request;
    if (o.ok) {
      if (overBytes(o.resultJson, limits.maxResultBytes)) return { ok: false, failure: limitFailure('maxResultBytes', limits.maxResultBytes), cpuMs };
      // Before parsing: V8's JSON.parse took 11.5 s, on this thread, for 6 MB of `[[[...]]]`.
      if (jsonDepth(o.resultJson, MAX_RESULT_DEPTH) > MAX_RESULT_DEPTH) return undefined;
      try {
        JSON.parse(o.resultJson);
      } catch {
        return undefined;
      }
      return { ok: true, resultJson: o.resultJson, cpuMs };
    }
    const f = o.failure;
    const message = f.message.length > MAX_MESSAGE_CHARS ? `${f.message.slice(0, MAX_MESSAGE_CHARS)} ... [message cut]` : f.message;
    if (f.kind === 'limit') return { ok: false, failure: { kind: 'limit', limit: f.limit, value: limits[f.limit], message }, cpuMs };
    return { ok: false, failure: { ...f, message }, cpuMs };
  }

  private settle(failure: RunFailure | undefined, resultJson?: string, cpuMs?: number): void {
    if (this.settled) return;
    this.settled = true;
    this.results.close();
    if (this.poll !== undefined && failure?.kind !== 'aborted') clearInterval(this.poll);
    this.unsubscribeAbort?.();
    this.options.runs.delete(this);
    const used = cpuMs ?? Math.max(0, (this.process.cpuMs() ?? this.baseCpuMs) - this.baseCpuMs);
    const stats = { cpuMs: used, wallMs: performance.now() - this.options.startedAt, pid: this.process.pid };
    this.resolve(failure === undefined ? { ok: true, resultJson: resultJson ?? 'null', ...stats } : { ok: false, failure, ...stats });
  }

  private free(reusable: boolean): void {
    if (this.finished) return;
    this.finished = true;
    if (this.poll !== undefined) clearInterval(this.poll);
    if (this.grace !== undefined) clearTimeout(this.grace);
    // Still attached for a while: the worker may name late calls just after the end.
    const { process } = this;
    const runId = this.options.runId;
    setTimeout(() => process.detach(runId), LATE_ROUTE_MS).unref();
    this.options.onProcessFree(process, reusable && !process.dead);
  }
}

/**
 * A large result's walk pauses until its parts are in the pipe once more than this waits for it
 * (about one slice of text): the worker then parses each part while the walk makes the next,
 * instead of all of them after the walk (bench/README.md "large-result").
 */
const PART_BACKLOG_BYTES = 256 * 1024;
/**
 * The longest such a pause lasts. After one that ran out the walk stops waiting for that call's
 * parts: a process that does not read slows the walk by this once, and never strands it.
 */
const PART_WAIT_MS = 200;

/** The stream of one call's large array result (tools/result-text-stream.ts): its parts go out as made. */
class ResultParts implements ResultTextStream {
  /** The whole text, once the walk that streamed the parts made it. */
  text: string | undefined;

  /** A wait ran out: the process is not reading, so the walk no longer waits for it. */
  private unread = false;

  constructor(
    private readonly send: (text: string) => void,
    /** See `SandboxProcess.writeBacklog`. */
    private readonly backlog: () => Promise<boolean> | undefined,
  ) {}

  items(text: string): void {
    this.send(text);
  }

  behind(): Promise<void> | undefined {
    if (this.unread) return undefined;
    return this.backlog()?.then((drained) => {
      if (!drained) this.unread = true;
    });
  }

  end(text: string): void {
    this.text = text;
  }
}
