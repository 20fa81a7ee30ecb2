/**
 * The durable relay: the GuestBridge a runner gets for a durable run (docs/run-life.md). It sits
 * between the runner and the run's bridge, takes the program's calls as the runner relays them,
 * and decides itself what the program sees together, so that a replay can show it the same.
 *
 * Invariants:
 * - One batch, one slice. Outcomes go to the program only when its previous slice has ended
 *   (`sliceEnded`), all that are ready at that moment in one batch, with the clock the program
 *   reads meanwhile. The batch is journaled before the program sees it; once the run is persisted
 *   it reaches the store, in order, with the next call's start (flushed before that call's body
 *   runs) or the run's end: nothing the program does after seeing it reaches outside earlier.
 * - Every call is journaled as the program made it (number, callable name, digest of its
 *   arguments), its start before its body runs (written ahead once persisted), its settlement as
 *   the program would get it; the end of every slice with the calls made so far and a digest of
 *   its console lines.
 * - Replay (a resume) answers the journaled calls from the journal, in the journaled batches, at
 *   the journaled clocks, and checks at every step that the program does what it did: the same
 *   call at the same number with the same arguments, the same number of calls and the same logs
 *   by each slice's end. The first difference stops the run (`replay-diverged`) before anything
 *   live happens. At the frontier the relay goes live: deferred calls go through the pipeline
 *   with the person's decision; a call that had started without a settlement runs again with its
 *   idempotency key only if its tool is idempotent, else the program is told it may have
 *   completed; calls never started run; settled ones are delivered.
 * - Suspension: when calls were deferred and nothing else is in flight and the program's slice
 *   has ended (or `holdLiveMs` after the first deferral, whatever is in flight), the relay
 *   journals it and stops the run; the controller (durable-runs.ts) persists and reports it.
 */
import { SLEEP_CALL } from '../../codegen/index.js';
import { RunStoppedError, type ChildOutcome, type ChildStatus, type RunBridge } from '../../bridge/index.js';
import { errorText, PtcError, type DurableDecision, type ToolResult } from '../../tools/index.js';
import type { OutcomeBatch, RelayBridge, SliceReport } from '../isolate/index.js';
import type { LateCallEvent } from '../isolate/index.js';
import { sha256, type JournaledStatus, type JournalEntry } from './journal-entry.js';
import type { Journal } from './journal.js';
import type { ReplayPlan } from './replay-plan.js';
import type { PersonWaitGate } from '../program-runner.js';

/** A deferred call waiting for a person. */
export interface DeferredCall {
  readonly seq: number;
  readonly approvalId: string;
  readonly toolName: string;
  readonly argsJson: string;
  readonly reason: string;
}

/** Options of {@link DurableRelay}. */
export interface DurableRelayOptions {
  readonly bridge: RunBridge;
  readonly journal: Journal;
  readonly runId: string;
  /** Callable name -> tool name. */
  readonly toolNames: ReadonlyMap<string, string>;
  /** Whether the tool a callable name maps to declares itself idempotent. */
  readonly idempotent: (toolName: string) => boolean;
  /** The clock the program reads (ms since the epoch). */
  readonly now: () => number;
  /** How long a run that has deferred calls stays live for the rest in flight, ms. */
  readonly holdLiveMs: number;
  /** A resume: what the journal says, and the person's decisions. */
  readonly replay?: { readonly plan: ReplayPlan; readonly decisions: ReadonlyMap<string, DurableDecision> };
}

/** The journal failed (store down, cap passed) while the run was live. */
class RelayJournalError extends PtcError {
  override readonly name = 'RelayJournalError';
}

/** See the file note. */
export class DurableRelay implements RelayBridge {
  /** Deferred calls, in the order the channel deferred them. */
  readonly deferred = new Map<number, DeferredCall>();
  private deliver: ((items: OutcomeBatch, clockMs?: number) => void) | undefined;
  /** Live calls dispatched and not settled (deferred ones excluded). */
  private readonly inFlight = new Set<number>();
  /** Settled outcomes waiting for the next batch, in settlement order. */
  private readonly ready = new Map<number, ChildOutcome>();
  /** The program's slice is running (from the start, and from each delivered batch until its end). */
  private sliceRunning = true;
  private pumpScheduled = false;
  private sliceLogs: string[] = [];
  private stopped = false;
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  /** Replay: where it is, and the calls the program made that the journal answers (or the frontier settles). */
  private replaying: boolean;
  private batchIndex = 0;
  private sliceIndex = 0;
  private readonly madeInReplay = new Map<number, { readonly name: string; readonly argsJson: string }>();
  /** Why the relay stopped the run (suspended, diverged, journal), once it did. */
  stopReason: RunStoppedError | undefined;
  /** Calls the journal answered. */
  replayedCalls = 0;

  constructor(private readonly options: DurableRelayOptions) {
    this.replaying = options.replay !== undefined;
  }

  // --- GuestBridge / RelayBridge -----------------------------------------------------------

  call(): Promise<ChildOutcome> {
    return Promise.resolve({ ok: false, toolName: '', message: 'A durable run relays calls in batches.' });
  }

  attach(deliver: (items: OutcomeBatch, clockMs?: number) => void): void {
    this.deliver = deliver;
  }

  log(level: 'log' | 'info' | 'warn' | 'error' | 'debug', text: string): void {
    this.sliceLogs.push(`${level}\u0000${text}`);
    this.options.bridge.guest.log(level, text);
  }

  onLateCall(event: LateCallEvent): void {
    this.options.bridge.guest.onLateCall(event);
  }

  personWaits(gate: PersonWaitGate): void {
    this.options.bridge.guest.personWaits(gate);
  }

  queued(waiting: boolean): void {
    this.options.bridge.guest.queued(waiting);
  }

  relayCalls(items: (string | number)[]): void {
    for (let i = 0; i + 2 < items.length; i += 3) {
      if (this.stopped) return;
      const seq = items[i] as number;
      const name = items[i + 1] as string;
      const argsJson = items[i + 2] as string;
      if (this.replaying) {
        this.checkReplayedCall(seq, name, argsJson);
        continue;
      }
      if (!this.record({ k: 'call', seq, name, args: sha256(argsJson) })) return;
      this.dispatch(seq, name, argsJson);
    }
  }

  sliceEnded({ calls }: SliceReport): void {
    if (this.stopped) return;
    const logs = sha256(this.sliceLogs.join('\n'));
    this.sliceLogs = [];
    if (this.replaying) return this.replaySliceEnded(calls, logs);
    if (!this.record({ k: 'slice', calls, logs })) return;
    this.sliceRunning = false;
    this.pump();
  }

  // --- live ----------------------------------------------------------------------------------

  /** Records an entry; on a full or failed journal stops the run and says false. */
  private record(entry: JournalEntry): boolean {
    try {
      this.options.journal.append(entry);
      return true;
    } catch (err) {
      this.stop(new RunStoppedError('journal', errorText(err)));
      return false;
    }
  }

  private dispatch(seq: number, name: string, argsJson: string, decision?: DurableDecision): void {
    const { runId, journal, bridge } = this.options;
    this.inFlight.add(seq);
    let result: ToolResult | undefined;
    const key = `${runId}.${seq}`;
    bridge.guest
      .call(name, argsJson, {
        seq,
        durable: {
          deferrable: true,
          approvalId: key,
          idempotencyKey: key,
          ...(decision ? { decision } : {}),
          beforeBody: async () => {
            if (!this.record({ k: 'start', seq })) throw new RelayJournalError('the journal is full');
            await journal.flush();
          },
        },
        onResult: (r) => (result = r),
      })
      .then(
        (outcome) => this.settle(seq, name, argsJson, outcome, result),
        (err: unknown) => this.settle(seq, name, argsJson, { ok: false, toolName: name, message: `The host could not dispatch tools.${name}: ${errorText(err)}` }, undefined),
      );
  }

  private settle(seq: number, name: string, argsJson: string, outcome: ChildOutcome, result: ToolResult | undefined): void {
    this.inFlight.delete(seq);
    if (result?.deferred !== undefined) {
      const call: DeferredCall = { seq, approvalId: result.deferred.approvalId, toolName: result.toolName, argsJson, reason: result.deferred.reason };
      this.deferred.set(seq, call);
      this.record({ k: 'defer', seq, tool: call.toolName, approvalId: call.approvalId, argsJson, reason: call.reason });
      this.armHold();
      this.schedulePump();
      return;
    }
    const status = statusOf(result, outcome);
    const tool = result?.toolName ?? (outcome.ok ? name : outcome.toolName || name);
    const ms = 0;
    const entry: JournalEntry = outcome.ok
      ? { k: 'settle', seq, tool, status, ok: 1, text: outcome.json, message: '', ms }
      : { k: 'settle', seq, tool, status, ok: 0, text: outcome.toolName, message: outcome.message, ms };
    // A settlement after the run stopped (a call still running when it suspended) is journaled
    // too: a resume delivers it instead of running the call again.
    if (!this.record(entry)) return;
    if (this.stopped) {
      void this.options.journal.flush().catch(() => undefined);
      return;
    }
    this.ready.set(seq, outcome);
    this.schedulePump();
  }

  private schedulePump(): void {
    if (this.pumpScheduled || this.stopped) return;
    this.pumpScheduled = true;
    // Outcomes that settle in the same turn of the event loop cross together.
    const run = () => {
      this.pumpScheduled = false;
      this.pump();
    };
    if (this.inFlight.size > 0) setImmediate(run);
    else queueMicrotask(run);
  }

  private pump(): void {
    if (this.stopped || this.sliceRunning) return;
    if (this.ready.size > 0) {
      this.deliverReady();
      return;
    }
    if (this.deferred.size > 0 && this.inFlight.size === 0) this.suspend();
  }

  private deliverReady(): void {
    const items: OutcomeBatch = [];
    const seqs: number[] = [];
    for (const [seq, outcome] of this.ready) {
      seqs.push(seq);
      if (outcome.ok) items.push(seq, 1, outcome.json, '');
      else items.push(seq, 0, outcome.toolName, outcome.message);
    }
    this.ready.clear();
    const clock = this.options.now();
    // Not flushed here: nothing the program does next reaches outside before a call's start is
    // flushed (which writes this batch with it, in order), or before the run's end is.
    if (!this.record({ k: 'batch', seqs, clock })) return;
    if (this.stopped) return;
    this.sliceRunning = true;
    this.deliver?.(items, clock);
  }

  private armHold(): void {
    if (this.holdTimer !== undefined || this.stopped) return;
    this.holdTimer = setTimeout(() => this.suspend(), this.options.holdLiveMs);
    this.holdTimer.unref?.();
  }

  /** Stops the run to wait for a person (the controller persists and reports it). */
  private suspend(): void {
    if (this.stopped) return;
    const names = [...this.deferred.values()].map((d) => d.toolName);
    this.stop(new RunStoppedError('suspended', `waiting for a person to decide ${names.length === 1 ? `a call to "${names[0]}"` : `${names.length} calls (${[...new Set(names)].join(', ')})`}`));
  }

  private stop(reason: RunStoppedError): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopReason = reason;
    if (this.holdTimer !== undefined) clearTimeout(this.holdTimer);
    this.options.bridge.stopRun(reason);
  }

  /** Ends the relay's own timers (the run is over). */
  close(): void {
    if (this.holdTimer !== undefined) clearTimeout(this.holdTimer);
    this.stopped = true;
  }

  // --- replay --------------------------------------------------------------------------------

  private diverge(where: string): void {
    this.stop(new RunStoppedError('replay-diverged', where));
  }

  private checkReplayedCall(seq: number, name: string, argsJson: string): void {
    const { plan } = this.options.replay!;
    const journaled = plan.calls.get(seq);
    if (journaled === undefined) return this.diverge(`the program made call ${seq} (tools.${shortName(name)}), which the journal does not have`);
    if (journaled.name !== name) return this.diverge(`call ${seq} is tools.${shortName(name)} where the journal has tools.${shortName(journaled.name)}`);
    if (journaled.args !== sha256(argsJson)) return this.diverge(`call ${seq} (tools.${shortName(name)}) has other arguments than the journal records`);
    this.madeInReplay.set(seq, { name, argsJson });
  }

  private replaySliceEnded(calls: number, logs: string): void {
    const { plan } = this.options.replay!;
    const slice = plan.slices[this.sliceIndex];
    if (slice !== undefined) {
      if (slice.calls !== calls) return this.diverge(`by the end of slice ${this.sliceIndex} the program had made ${calls} calls where the journal has ${slice.calls}`);
      if (slice.logs !== logs) return this.diverge(`the console output of slice ${this.sliceIndex} differs from the journal`);
      this.sliceIndex++;
    }
    const batch = plan.batches[this.batchIndex];
    if (batch === undefined || slice === undefined) return this.goLive(calls);
    this.batchIndex++;
    const items: OutcomeBatch = [];
    for (const seq of batch.seqs) {
      const settled = plan.settles.get(seq);
      if (settled === undefined || !this.madeInReplay.has(seq)) return this.diverge(`the journal delivers call ${seq}, which the program has not made`);
      this.madeInReplay.delete(seq);
      items.push(seq, settled.ok, settled.text, settled.message);
      this.replayedCall(settled);
    }
    // Never deliver from inside the slice's own end (the runner is still in it).
    queueMicrotask(() => {
      if (!this.stopped) this.deliver?.(items, batch.clock);
    });
  }

  private replayedCall(settled: Extract<JournalEntry, { k: 'settle' }>): void {
    this.replayedCalls++;
    if (settled.tool !== SLEEP_CALL) this.options.bridge.guest.replayed({ seq: settled.seq, tool: settled.tool, status: settled.status, ms: settled.ms });
  }

  /** The journal is used up: from here the run is live (see the file note for each kind of call). */
  private goLive(calls: number): void {
    const { plan, decisions } = this.options.replay!;
    if (calls < plan.lastSeq) return this.diverge(`the program made ${calls} calls where the journal has ${plan.lastSeq}`);
    this.replaying = false;
    this.sliceRunning = false;
    for (const [seq, made] of [...this.madeInReplay].sort((a, b) => a[0] - b[0])) {
      const settled = plan.settles.get(seq);
      const defer = plan.defers.get(seq);
      if (settled !== undefined) {
        this.ready.set(seq, settled.ok === 1 ? { ok: true, json: settled.text } : { ok: false, toolName: settled.text, message: settled.message });
        this.replayedCall(settled);
      } else if (plan.starts.has(seq)) {
        // Its body had started when its host stopped: run again only what is safe to run again.
        const tool = this.options.toolNames.get(made.name) ?? made.name;
        if (this.options.idempotent(tool)) {
          const decision = defer === undefined ? undefined : decisions.get(defer.approvalId);
          this.dispatch(seq, made.name, made.argsJson, decision);
          continue;
        }
        const outcome: ChildOutcome = {
          ok: false,
          toolName: tool,
          message: `The call to "${tool}" may have completed: its host stopped while it ran, and it was not run again because "${tool}" is not marked idempotent. Check its effect before repeating it.`,
        };
        if (!this.record({ k: 'settle', seq, tool, status: 'error', ok: 0, text: tool, message: outcome.message, ms: 0 })) return;
        this.ready.set(seq, outcome);
      } else if (defer !== undefined) {
        const decision = decisions.get(defer.approvalId);
        if (decision === undefined) return this.diverge(`no decision was given for ${defer.approvalId}`);
        this.dispatch(seq, made.name, made.argsJson, decision);
      } else {
        this.dispatch(seq, made.name, made.argsJson);
      }
    }
    this.madeInReplay.clear();
    this.schedulePump();
  }

  /** Whether the replay reached the journal's end (a program that ended before it diverged). */
  get reachedFrontier(): boolean {
    return !this.replaying;
  }
}

function statusOf(result: ToolResult | undefined, outcome: ChildOutcome): JournaledStatus {
  if (result === undefined) return outcome.ok ? 'ok' : 'refused';
  if (!result.isError) return 'ok';
  return result.denied || result.blocked ? 'denied' : 'error';
}

function shortName(name: string): string {
  return name.length > 60 ? `${name.slice(0, 60)}…` : name;
}

/** (Type use only: the statuses the bridge reports.) */
export type { ChildStatus };
