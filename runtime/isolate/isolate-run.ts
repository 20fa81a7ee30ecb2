/**
 * One run of one program in one prepared isolate: the host half of the bootstrap's protocol.
 *
 * Why it is shaped this way:
 * - Guest code only ever runs inside a *slice*: a synchronous `applySync` into the isolate on
 *   this thread, under an isolated-vm timeout of the CPU budget left. A slice starts the program
 *   or pushes in a batch of call outcomes; V8 then runs the program's microtasks before the slice
 *   returns (inside the timeout, so `for(;;) await null` is stopped like a sync loop). What the
 *   guest sends meanwhile (calls batched per microtask turn, console lines, its end) arrives
 *   through a synchronous call back into the host and waits in an inbox until the slice returns;
 *   then the calls go to `bridge.call`. No thread hand-off anywhere: a sequential call costs two
 *   synchronous crossings instead of two isolate tasks (each an idle-thread wake-up), and
 *   `Promise.all` in the program still overlaps calls, since between slices the host is free.
 *   The price: while a program computes, this thread waits for it (at most the CPU budget). The
 *   sandbox process runner, the default, keeps that off the host's thread.
 * - After each slice the host knows exactly whether the program can progress: if it has not
 *   ended and none of its calls (a `sleep` is one) is pending here, nothing can ever resume it
 *   (there are no other timers in there), so the run ends at once instead of hanging to the deadline.
 * - A limit, an abort, or a disposal by isolated-vm (memory) settles the run exactly once, with
 *   a failure naming what happened; the isolate is then disposed (never inside a slice). Nothing
 *   a program does makes `run` reject, and nothing that arrives after the run settled reaches
 *   the bridge (calls are reported through `onLateCall`).
 * - Messages are checked even though only the bootstrap can send them: the bootstrap runs in
 *   the same heap as hostile code, so the host treats what it sends as data to validate.
 */
// The sandbox worker loads this module: import the one helper, not the tools package (zod and all).
import { subscribeAbort } from '../../tools/abort-subscription.js';
import { limitFailure, limitMessage } from '../../bridge/limit-failure.js';
import type { GuestBridge, GuestCallOutcome, RunFailure, RunRequest } from '../program-runner.js';
import { randomBytes } from 'node:crypto';
import { disposeQuietly, prepareContext, releaseContext, type PreparedIsolate } from './prepared-isolate.js';
import { SliceJournal } from './slice-journal.js';
import { OutcomeQueue } from '../outcome-queue.js';
import { abortMessage, overBytes, reportDroppedCalls, utf8Length, type StoppableRun } from '../run-checks.js';
import { OUTCOME_PART, type CallItems, type EntryArgs, type GuestCaps, type LogLevel, type OutcomeBatch } from './guest/protocol.js';
import { readGuestMessage, type GuestEnd } from './guest-message.js';
import { locateSyntaxError, programPosition } from './program-position.js';
import type { DisposalQueue } from './disposal-queue.js';
import type { IsolateRunOutcome, LateCallAwareBridge, LateCallEvent, RelayBridge, RunStartup } from './run-types.js';
import { errorText } from '../../tools/errors.js';
import { MAX_SLEEPS_AT_ONCE, SLEEP_CALL } from '../../codegen/sleep.js';

const COPY_ARGUMENTS = { arguments: { copy: true } } as const;
const TIMED_OUT = 'Script execution timed out.';

/** One run: the isolate, the program, the host's side, and the runner's bookkeeping. */
/**
 * Which slices of guest code run on isolated-vm's thread for the isolate instead of the calling
 * thread: every one (`true`), none (`false`, the default), or as a function decides for each
 * (asked as each slice begins: `start` runs the program's first slice, `outcomes` pushes
 * outcomes in). A hand-off costs ~0.2 ms of CPU per slice (about a quarter of a short run's CPU
 * in a sandbox process); on the calling thread a slice holds that thread until it ends.
 */
export type OffThreadSlices = boolean | ((slice: 'start' | 'outcomes') => boolean);

export interface IsolateRunOptions {
  /** The isolate prepared for this run (it is disposed when the run ends). */
  readonly prepared: PreparedIsolate;
  readonly request: RunRequest;
  readonly bridge: GuestBridge;
  /** Aborts the run. */
  readonly signal: AbortSignal;
  readonly onLateCall?: (event: LateCallEvent) => void;
  readonly startedAt: number;
  readonly source: RunStartup['source'];
  /**
   * After a clean end (a result or a thrown error): true if the isolate is kept for its group's
   * next run (isolate-reuse.ts), which then owns it; otherwise it is disposed.
   */
  readonly keep?: (prepared: PreparedIsolate) => boolean;
  /** Disposes the isolate after a result, off the outcome's path. */
  readonly disposal: DisposalQueue;
  /** The runner's runs in progress: this run is in it until it settles. */
  readonly runs: Set<StoppableRun>;
  /**
   * A batch of outcomes carrying more than this many characters of JSON is delivered in a slice
   * on isolated-vm's own thread (see {@link IsolateRun.sliceOffThread}); default: never.
   */
  readonly offThreadChars?: number;
  /** Which slices run on isolated-vm's thread (a sandbox process with several slots): see {@link OffThreadSlices}. */
  readonly offThreadSlices?: OffThreadSlices;
  /**
   * Bounded slices (a sandbox process with several slots; docs/run-life.md "Bounded slices"):
   * the run's slices run on this thread, each stopped after this many ms. The run reads a
   * durable run's clock and `Math.random` (a seed, the clock of each slice) and keeps a journal
   * of its slices and messages; when a slice reaches the bound, the program is replayed from the
   * journal in a fresh context of the same isolate, its slices on isolated-vm's thread from then
   * on (as `offThreadSlices` picks), so a program that computes holds this thread at most this
   * long, and no call is sent twice. Not for a durable run (it has its own clock), nor for a run
   * whose journal outgrows its cap: those run as `offThreadSlices` picks.
   */
  readonly sliceBoundMs?: number;
  /** Told once each time a run is replayed off this thread (counters for tests and benchmarks). */
  readonly onReplay?: () => void;
}

/** Runs one program in `options.prepared`; the returned promise never rejects. */
export function executeRun(options: IsolateRunOptions): Promise<IsolateRunOutcome> {
  return new IsolateRun(options).start();
}

class IsolateRun implements StoppableRun {
  private settled = false;
  private resolve!: (outcome: IsolateRunOutcome) => void;
  private readonly baseCpu: bigint;
  private lastCpuNs = 0;
  private readonly outcomes = new OutcomeQueue((items) => this.deliver(items));
  /** Calls sent to the bridge whose outcome has not arrived. */
  private inFlight = 0;
  /** A slice is running (guest code on this thread, or on isolated-vm's): what the guest sends waits in `inbox`. */
  private inSlice = false;
  /** The running slice is on isolated-vm's thread: this thread is free meanwhile. */
  private offThread = false;
  /** Guest messages of the running slice, as kind, items pairs. */
  private inbox: unknown[] = [];
  /**
   * Outcomes that became ready while a slice ran; delivered when it returns. A durable run's
   * batches (with their clocks) wait one by one: each must be exactly one slice.
   */
  private held: OutcomeBatch | undefined;
  private heldBatches: { readonly items: OutcomeBatch; readonly clockMs: number | undefined }[] = [];
  /** Calls the guest sent that are counted against maxCalls (dispatched or in the inbox). */
  private callsSeen = 0;
  /** Set when the guest passed a cap mid-slice: the slice was stopped and the run ends so. */
  private sliceStop: RunFailure | undefined;
  /**
   * The program's end, reported during the running slice. It takes effect once the slice is
   * over, after what stopped the slice: microtasks the program left behind run on after its
   * return, and their CPU time, memory, calls and logs count like any other.
   */
  private pendingEnd: GuestEnd | undefined;
  /** The run settled during a slice: dispose the isolate once the slice returns. */
  private disposeAfterSlice = false;
  /** Call ids only grow (the guest numbers calls in order), so a replayed id is refused without a set. */
  private lastId = 0;
  /** A syntax error is being located; the run settles when that is done. */
  private locating = false;
  private logBytes = 0;
  private startup: RunStartup = { source: 'cold', ms: 0 };
  private unsubscribeAbort: (() => void) | undefined;
  /** The run's journal while its slices are bounded (see {@link IsolateRunOptions.sliceBoundMs}). */
  private journal: SliceJournal | undefined;
  /** The run is being replayed: the next journal slice to run and the next message to match. */
  private replay: { readonly journal: SliceJournal; slice: number; message: number } | undefined;
  /** CPU the run spent before a replay, which the replay spends again: not counted twice. */
  private cpuCreditNs = 0;
  /** The run reads the clock of each slice (a bounded run's, from its start to its end, journal or not). */
  private clocked = false;

  /** Set when the bridge relays calls in batches (the sandbox worker). */
  private readonly relay: RelayBridge | undefined;
  /** The isolate and context the program runs in (a fresh context of the same isolate after a replay). */
  private prepared: PreparedIsolate;
  private readonly request: RunRequest;
  private readonly bridge: GuestBridge;
  private readonly signal: AbortSignal;

  constructor(private readonly options: IsolateRunOptions) {
    const { prepared, bridge } = options;
    this.prepared = prepared;
    this.request = options.request;
    this.bridge = bridge;
    this.signal = options.signal;
    this.baseCpu = readCpu(prepared) ?? 0n;
    const relay = bridge as Partial<RelayBridge>;
    this.relay = typeof relay.relayCalls === 'function' && typeof relay.attach === 'function' ? (relay as RelayBridge) : undefined;
    if (options.sliceBoundMs !== undefined && options.request.determinism === undefined) {
      this.journal = new SliceJournal();
      this.clocked = true;
    }
  }

  start(): Promise<IsolateRunOutcome> {
    return new Promise((resolve) => {
      this.resolve = resolve;
      if (this.signal.aborted) {
        this.finish({ kind: 'aborted', message: abortMessage(this.signal.reason) });
        return;
      }
      this.options.runs.add(this);
      const { prepared, request } = this;
      prepared.receiver = (kind, items) => this.receive(kind, items);
      if (this.relay !== undefined) this.relay.attach((items, clockMs) => this.onRelayed(items, clockMs));
      this.unsubscribeAbort = subscribeAbort(this.signal, this.onAbort);
      const { limits } = request;
      const caps: GuestCaps = {
        maxLogBytes: limits.maxLogBytes,
        maxResultBytes: limits.maxResultBytes,
        maxArgBytes: limits.maxArgBytes,
        maxArgDepth: limits.maxArgDepth,
        maxArgNodes: limits.maxArgNodes,
        maxSleeps: MAX_SLEEPS_AT_ONCE,
      };
      this.startup = { source: this.options.source, ms: performance.now() - this.options.startedAt };
      // A run with a journal reads a durable run's clock and random numbers, so a replay sees
      // what the first pass saw.
      const determinism =
        request.determinism !== undefined
          ? JSON.stringify({ seed: request.determinism.seed, clockMs: request.determinism.clockMs })
          : this.journal !== undefined
            ? JSON.stringify({ seed: randomBytes(16).toString('hex'), clockMs: Date.now() })
            : '';
      this.slice(['start', [request.js, JSON.stringify(request.toolNames), JSON.stringify(caps), determinism]], COPY_ARGUMENTS);
    });
  }

  /**
   * A guest message during a slice: queued for the slice's end. A cap passed mid-slice (the
   * guest's log limit, more calls than maxCalls) stops the slice at once by disposing the isolate
   * (isolated-vm terminates the running code), so a flood cannot keep this thread busy or fill
   * the inbox until the CPU budget runs out.
   */
  private receive(kind: unknown, items: unknown): void {
    const replay = this.replay;
    if (replay !== undefined && replay.message < replay.journal.messageCount) {
      // Sent before the replay: already handled. The first message that differs stops the run.
      if (replay.journal.matches(replay.message, kind, items)) {
        replay.message++;
        // The program's end, reached again: what its leftover microtasks do still counts.
        if (kind === 'end') {
          const message = readGuestMessage(kind, items);
          if (message.kind === 'end') this.pendingEnd = message.end;
        }
        return;
      }
      return this.stopSlice({ kind: 'crash', message: `The program could not be moved off the process's shared thread: its replay sent a different message (the ${replay.message + 1}th) than its first pass.` });
    }
    this.inbox.push(kind, items);
    this.journal?.addMessage(kind, items);
    if (this.sliceStop !== undefined) return;
    if (kind === 'calls' && Array.isArray(items)) {
      this.callsSeen += toolCallsIn(items);
      const { maxCalls } = this.request.limits;
      if (this.callsSeen > maxCalls) {
        this.stopSlice(limitFailure('maxCalls', maxCalls));
      }
    } else if (kind === 'limit') {
      const { maxLogBytes } = this.request.limits;
      this.stopSlice(limitFailure('maxLogBytes', maxLogBytes));
    }
  }

  private stopSlice(failure: RunFailure): void {
    this.sliceStop = failure;
    if (this.inSlice) disposeQuietly(this.prepared.isolate);
  }

  private readonly onAbort = () => this.stop(this.signal.reason);

  /** Ends the run as aborted (an abort of its signal, or its runner closing). */
  stop(reason: unknown): void {
    this.finish({ kind: 'aborted', message: abortMessage(reason) });
  }

  private usedCpuMs(): number {
    const now = readCpu(this.prepared);
    if (now !== undefined) this.lastCpuNs = Math.max(0, Number(now - this.baseCpu) - this.cpuCreditNs);
    return this.lastCpuNs / 1e6;
  }

  /**
   * Runs guest code: `entry(...args)` and the microtasks it releases, synchronously, under a
   * timeout of the CPU budget left. Then handles what the guest sent, and checks that the
   * program can still progress.
   */
  private slice(args: EntryArgs, options?: typeof COPY_ARGUMENTS): void {
    const journal = this.journal;
    const offThread = this.options.offThreadSlices;
    if (journal === undefined && (offThread === true || (typeof offThread === 'function' && offThread(args[0] === 'start' ? 'start' : 'outcomes')))) return this.sliceOffThread(args);
    const budget = this.sliceTimeout();
    if (budget === undefined) return this.failCpu();
    const bound = journal === undefined ? undefined : this.options.sliceBoundMs;
    const bounded = bound !== undefined && bound < budget;
    const timeout = bounded ? bound : budget;
    journal?.addSlice(args);
    const began = performance.now();
    let failure: unknown;
    let failed = false;
    this.inSlice = true;
    try {
      // (isolated-vm types arguments by transfer option; these are primitives or copied lists)
      this.prepared.entry.applySync(undefined, args as never, options === undefined ? { timeout } : { ...options, timeout });
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      this.inSlice = false;
    }
    this.afterSlice(failed, failure, !bounded && performance.now() - began >= timeout - 1, bounded);
  }

  /**
   * A slice on isolated-vm's thread instead of this one, for outcomes so large that parsing them
   * in the isolate would hold this thread (10 MB of JSON: ~0.1 s). Everything else is as in
   * {@link slice}: the same timeout, messages queued until it ends, outcomes held meanwhile; an
   * abort or a limit disposes the isolate at once (which stops it) instead of after the slice.
   */
  private sliceOffThread(args: EntryArgs): void {
    const timeout = this.sliceTimeout();
    if (timeout === undefined) return this.failCpu();
    if (this.replay === undefined) this.journal?.addSlice(args);
    const began = performance.now();
    this.inSlice = true;
    this.offThread = true;
    const after = (failed: boolean, failure?: unknown) => {
      this.inSlice = false;
      this.offThread = false;
      this.afterSlice(failed, failure, performance.now() - began >= timeout - 1);
    };
    this.prepared.entry.apply(undefined, args as never, { ...COPY_ARGUMENTS, timeout }).then(
      () => after(false),
      (err: unknown) => after(true, err),
    );
  }

  /** The timeout of the next slice: the CPU budget left (undefined when none is left). */
  private sliceTimeout(): number | undefined {
    // Guest code runs only inside slices, so the reading taken after the last one is current.
    const budgetMs = this.request.limits.cpuMs - this.lastCpuNs / 1e6;
    return budgetMs <= 0 ? undefined : Math.max(1, Math.ceil(budgetMs));
  }

  /**
   * After a slice: handles what the guest sent, then what stopped the slice, then the CPU time it
   * used, then the program's end, held outcomes, or the check that it can still progress.
   */
  private afterSlice(failed: boolean, failure: unknown, ranFullBudget: boolean, bounded = false): void {
    // What the guest sent happened before the slice ended, so it is handled first (a limit it
    // reported, its calls; its end is kept, and what it sends after the end is late), then
    // whatever stopped the slice, then the CPU time it used, and only then the end.
    const inbox = this.inbox;
    this.inbox = [];
    for (let i = 0; i < inbox.length; i += 2) {
      if (this.pendingEnd === undefined) this.onMessage(inbox[i], inbox[i + 1]);
      else this.late(inbox[i], inbox[i + 1]);
    }
    if (this.sliceStop !== undefined) this.finish(this.sliceStop);
    else if (failed && !this.settled && bounded && errorText(failure) === TIMED_OUT && !this.prepared.isolate.isDisposed) return this.startReplay();
    // (A replayed slice's unhandled rejection was reported by the first pass; the last one, the
    // slice the bound stopped, runs on past that point.)
    else if (failed && !this.settled && !(this.replay !== undefined && this.replay.slice < this.replay.journal.sliceCount)) this.onSliceError(failure, ranFullBudget);
    if (this.disposeAfterSlice) {
      this.disposeAfterSlice = false;
      disposeQuietly(this.prepared.isolate);
    }
    if (this.settled) return;
    if (this.usedCpuMs() > this.request.limits.cpuMs) return this.failCpu();
    if (this.pendingEnd !== undefined) return this.onEnd(this.pendingEnd);
    if (this.replay !== undefined) return this.nextReplaySlice();
    // A journal that outgrew its cap is dropped: the run's slices run as offThreadSlices picks.
    if (this.journal?.full === true) this.journal = undefined;
    this.continueRun();
  }

  /** After a slice (or a replay): the relay hears of its end, then held outcomes go in, or the run is checked for a way to progress. */
  private continueRun(): void {
    // A durable run's relay hears of every slice's end, after the slice's calls and logs.
    if (this.request.determinism !== undefined) this.relay?.sliceEnded?.({ calls: this.lastId });
    if (this.settled) return;
    const batch = this.heldBatches.shift();
    if (batch !== undefined) return this.deliver(batch.items, batch.clockMs);
    if (this.held !== undefined) {
      const held = this.held;
      this.held = undefined;
      return this.deliver(held);
    }
    if (this.inFlight === 0 && this.outcomes.idle && !this.locating) {
      this.finish({
        kind: 'thrown',
        message: 'The program can never finish: it awaits a promise that nothing will settle (no tool call or sleep is pending).',
      });
    }
  }

  /**
   * A slice threw. isolated-vm throws for a timeout, a memory limit or a dead isolate, and also
   * rethrows a promise rejection the program left unhandled in that slice (after its
   * microtasks ran, so the run can go on): that one becomes a warning in the logs.
   */
  private onSliceError(err: unknown, ranFullBudget: boolean): void {
    const message = errorText(err);
    if (this.prepared.isolate.isDisposed) {
      this.failMemory();
    } else if (message === TIMED_OUT && ranFullBudget) {
      this.failCpu();
    } else if (this.pendingEnd === undefined) {
      // (One in the slice that ended the program is not reported: the run is over.)
      // isolated-vm's own words for a reason it could not read (a throwing getter, a Proxy).
      const reason = message.startsWith('An object was thrown from supplied code within isolated-vm') ? 'a value whose message could not be read' : message;
      this.onLog('warn', `Unhandled promise rejection: ${reason.length > 500 ? `${reason.slice(0, 500)}...` : reason}`);
    }
  }

  /**
   * A bounded slice reached its bound: the program's state is cut mid-slice, so it starts again
   * in a fresh context of the same isolate and gets its journal's slices again, one by one, on
   * isolated-vm's thread. What it sends that the first pass sent is checked and dropped (its
   * calls are not sent again, its logs not written twice); outcomes that arrive meanwhile wait.
   * The CPU the first pass spent is not counted again.
   */
  private startReplay(): void {
    const journal = this.journal!;
    this.journal = undefined;
    this.usedCpuMs();
    this.cpuCreditNs += this.lastCpuNs;
    this.lastCpuNs = 0;
    // An end the first pass reached is reached again in the replay (and set again then).
    this.pendingEnd = undefined;
    this.replay = { journal, slice: 0, message: 0 };
    this.options.onReplay?.();
    const used = this.prepared;
    releaseContext(used);
    prepareContext(used.isolate, used.memoryMb, { blocking: true, forWaitingRun: true }).then(
      (fresh) => {
        if (this.settled) return;
        fresh.uses = used.uses;
        fresh.receiver = (kind, items) => this.receive(kind, items);
        this.prepared = fresh;
        this.nextReplaySlice();
      },
      (err: unknown) => {
        if (this.settled) return;
        if (used.isolate.isDisposed) this.failMemory();
        else this.finish({ kind: 'crash', message: `The program could not be moved off the process's shared thread: ${errorText(err)}` });
      },
    );
  }

  /** Runs the journal's next slice, or ends the replay once every one has run. */
  private nextReplaySlice(): void {
    const replay = this.replay!;
    const next = replay.journal.sliceAt(replay.slice);
    if (next !== undefined) {
      replay.slice++;
      return this.sliceOffThread(next.args);
    }
    if (replay.message < replay.journal.messageCount) {
      return this.finish({ kind: 'crash', message: `The program could not be moved off the process's shared thread: its replay sent ${replay.message} of the ${replay.journal.messageCount} messages of its first pass.` });
    }
    this.replay = undefined;
    this.continueRun();
  }

  private failCpu(): void {
    this.finish(limitFailure('cpuMs', this.request.limits.cpuMs));
  }

  private failMemory(): void {
    this.finish(limitFailure('memoryMb', this.request.limits.memoryMb));
  }

  private protocolError(what: string): void {
    this.finish({ kind: 'crash', message: `The isolate sent a malformed message (${what}); the run was stopped.` });
  }

  private onMessage(kind: unknown, items: unknown): void {
    if (this.settled) return this.late(kind, items);
    const message = readGuestMessage(kind, items);
    switch (message.kind) {
      case 'calls':
        return this.onCalls(message.items);
      case 'log':
        return this.onLog(message.level, message.text);
      case 'limit':
        return this.failLogBytes();
      case 'end':
        this.pendingEnd = message.end;
        return;
      case 'malformed':
        return this.protocolError(message.problem);
    }
  }

  private late(kind: unknown, items: unknown): void {
    const aware = this.bridge as LateCallAwareBridge;
    const report = typeof aware.onLateCall === 'function' ? (event: LateCallEvent) => aware.onLateCall!(event) : this.options.onLateCall;
    reportDroppedCalls(kind, items, 'run-ended', report);
  }

  private onCalls(items: CallItems): void {
    const { maxArgBytes } = this.request.limits;
    const relayed: CallItems | undefined = this.relay === undefined ? undefined : [];
    for (let i = 0; i < items.length; i += 3) {
      const id = items[i] as number;
      const name = items[i + 1] as string;
      const argsJson = items[i + 2] as string;
      if (id <= this.lastId) return this.protocolError('a call id that is not larger than the previous one');
      this.lastId = id;
      if (overBytes(argsJson, maxArgBytes)) {
        this.queueDelivery(id, { ok: false, toolName: name, message: limitMessage('maxArgBytes', maxArgBytes, { by: 'call', toolName: name }) });
        continue;
      }
      if (relayed !== undefined) {
        relayed.push(id, name, argsJson);
        continue;
      }
      let pending: Promise<GuestCallOutcome>;
      try {
        pending = this.bridge.call(name, argsJson);
      } catch (err) {
        pending = Promise.reject(err);
      }
      this.inFlight++;
      pending.then(
        (outcome) => {
          this.inFlight--;
          this.queueDelivery(id, outcome);
        },
        () => {
          this.inFlight--;
          this.queueDelivery(id, { ok: false, toolName: name, message: `The host could not dispatch tools.${name}.` });
        },
      );
    }
    if (relayed !== undefined && relayed.length > 0) {
      this.inFlight += relayed.length / 3;
      this.relay!.relayCalls(relayed);
    }
  }

  /** Outcomes of relayed calls, already batched by the relay. */
  private onRelayed(items: OutcomeBatch, clockMs?: number): void {
    if (this.settled) return;
    this.inFlight = Math.max(0, this.inFlight - outcomesIn(items));
    this.deliver(items, clockMs);
  }

  /** Pushes a batch of outcomes into the isolate: a slice, in which the program resumes (reading `clockMs` in a durable run). */
  private deliver(items: OutcomeBatch, clockMs?: number): void {
    if (this.settled) return;
    if (this.inSlice || this.replay !== undefined) {
      // Never re-enter the isolate from inside a slice, nor during a replay: keep them for its
      // end (a durable run's batches one by one, each its own slice, with its own clock).
      if (this.request.determinism !== undefined) this.heldBatches.push({ items, clockMs });
      else this.held = this.held === undefined ? items : this.held.concat(items);
      return;
    }
    // A run with a journal reads the clock of each slice (see start()).
    if (clockMs === undefined && this.clocked) clockMs = Date.now();
    const offThread = this.options.offThreadChars;
    if (offThread !== undefined && jsonChars(items) > offThread) return this.sliceOffThread(clockMs === undefined ? ['deliver', items] : ['deliver', items, clockMs]);
    // One outcome (every sequential call) crosses as four primitives: no array to serialize.
    if (items.length === 4) {
      const [id, ok, jsonOrToolName, message] = items as [number, 0 | 1 | 2 | 3, string, string];
      this.slice(clockMs === undefined ? ['deliver1', id, ok, jsonOrToolName, message] : ['deliver1', id, ok, jsonOrToolName, message, clockMs]);
    } else this.slice(clockMs === undefined ? ['deliver', items] : ['deliver', items, clockMs], COPY_ARGUMENTS);
  }

  private queueDelivery(id: number, outcome: GuestCallOutcome): void {
    if (!this.settled) this.outcomes.push(id, outcome, this.inFlight > 0);
  }

  private onLog(level: LogLevel, text: string): void {
    const { maxLogBytes } = this.request.limits;
    this.logBytes += text.length * 3 > maxLogBytes ? utf8Length(text) : text.length;
    if (this.logBytes > maxLogBytes) return this.failLogBytes();
    try {
      this.bridge.log(level, text);
    } catch {
      // the bridge's problem; the run goes on
    }
  }

  private failLogBytes(): void {
    this.finish(limitFailure('maxLogBytes', this.request.limits.maxLogBytes));
  }

  private onEnd(end: GuestEnd): void {
    const { limits } = this.request;
    switch (end.what) {
      case 'return':
        if (overBytes(end.json, limits.maxResultBytes)) return this.failResultBytes();
        return this.finish(undefined, end.json);
      case 'throw': {
        const message = end.message.length > limits.maxResultBytes * 2 ? `${end.message.slice(0, limits.maxResultBytes)} ... [message cut]` : end.message;
        return this.finish({ kind: 'thrown', message, ...this.position(end.line, end.column) });
      }
      case 'syntax':
        this.locating = true;
        void this.locateSyntaxError(end.message);
        return;
      case 'limit':
        return this.failResultBytes();
    }
  }

  private failResultBytes(): void {
    this.finish(limitFailure('maxResultBytes', this.request.limits.maxResultBytes));
  }

  private position(line: number, column: number): { line?: number; column?: number } {
    return programPosition(line, column, this.request.lineOffset ?? 0);
  }

  private async locateSyntaxError(message: string): Promise<void> {
    const where = await locateSyntaxError(this.prepared.isolate, this.request.js, this.request.lineOffset ?? 0);
    this.finish({ kind: 'thrown', message, ...where });
  }

  private finish(failure: RunFailure | undefined, resultJson?: string): void {
    if (this.settled) return;
    this.settled = true;
    this.outcomes.close();
    this.held = undefined;
    this.usedCpuMs();
    this.unsubscribeAbort?.();
    this.options.runs.delete(this);
    const stats = { cpuMs: this.lastCpuNs / 1e6, wallMs: performance.now() - this.options.startedAt, startup: this.startup };
    this.resolve(failure === undefined ? { ok: true, resultJson: resultJson ?? 'null', ...stats } : { ok: false, failure, ...stats });
    // Nothing from the isolate reaches the run any more (settled), and guest code only runs in
    // slices, which a settled run never starts. Disposal takes ~0.5 ms: after a result or a throw
    // it happens later, off the outcome's critical path; after a limit or an abort at once (right
    // after the slice, if one is running).
    const { isolate } = this.prepared;
    if (failure === undefined || failure.kind === 'thrown') {
      if (!(this.options.keep?.(this.prepared) ?? false)) this.options.disposal.add(isolate);
    }
    else if (this.inSlice && !this.offThread) this.disposeAfterSlice = true;
    else disposeQuietly(isolate);
  }
}

/** Calls of a `calls` message that count against maxCalls: all but `sleep` (codegen/sleep.ts). */
function toolCallsIn(items: unknown[]): number {
  let calls = 0;
  for (let i = 1; i < items.length; i += 3) if (items[i] !== SLEEP_CALL) calls++;
  return calls;
}

/** Calls a batch settles: every outcome but a part of a large result (protocol.ts OUTCOME_PART). */
function outcomesIn(items: OutcomeBatch): number {
  let outcomes = 0;
  for (let i = 1; i < items.length; i += 4) if (items[i] !== OUTCOME_PART) outcomes++;
  return outcomes;
}

/** Characters of result JSON in a batch of outcomes (`[id, ok, jsonOrToolName, message, ...]`). */
function jsonChars(items: OutcomeBatch): number {
  let chars = 0;
  for (let i = 2; i < items.length; i += 4) {
    const text = items[i];
    if (typeof text === 'string') chars += text.length;
  }
  return chars;
}

function readCpu(prepared: PreparedIsolate): bigint | undefined {
  try {
    return prepared.isolate.isDisposed ? undefined : prepared.isolate.cpuTime;
  } catch {
    return undefined;
  }
}
