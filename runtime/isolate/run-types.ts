/** Types a run reports through: late calls, how the isolate was obtained, the outcome. */
import type { OutcomeBatch } from '../outcome-queue.js';
import type { GuestBridge, RunOutcome } from '../program-runner.js';

/** A call (or other message) that arrived when no live run could take it. */
export interface LateCallEvent {
  /** The callable name the program used (`''` when not a call). */
  readonly name: string;
  /** Why it was dropped. */
  readonly reason: 'run-ended' | 'not-assigned';
  /**
   * How many dropped calls this event stands for (1 when absent). A sandbox process names the
   * first MAX_RECORDED_LATE_CALLS late calls of a run and counts the rest: those arrive as one
   * event with a count and `name` `''`.
   */
  readonly count?: number;
}

/**
 * A GuestBridge that also wants to hear about calls dropped because its run had ended (a leaked
 * promise, or a sandbox process sending after the end). Optional: runners check for the method.
 */
export interface LateCallAwareBridge extends GuestBridge {
  onLateCall?(event: LateCallEvent): void;
}

/**
 * A GuestBridge that takes calls and gives outcomes in batches, with no promise per call: for a
 * relay that only forwards them to where they are checked and dispatched (the sandbox worker
 * and the host). The runner still checks each call (ids, types, `maxArgBytes`) before relaying;
 * `call` is not used.
 */
export interface RelayBridge extends GuestBridge {
  /** The calls of one guest message: `[id, name, argsJson, ...]`, ids increasing. */
  relayCalls(items: (string | number)[]): void;
  /**
   * Called once as the run starts: `deliver` takes a batch of outcomes, `[id, ok (1 or 0),
   * json or toolName, message, ...]` (the layout {@link OutcomeBatch} has), one per relayed call.
   */
  attach(deliver: (items: OutcomeBatch, clockMs?: number) => void): void;
  /**
   * For a run with `determinism` (durable runs): the program's slice has ended (its start, or a
   * delivered batch) and `calls` is the highest call id it has made so far. Everything the slice
   * sent (calls, console lines) was passed on before this. Each batch `deliver` takes is exactly
   * one slice: a relay that waits for this before delivering the next batch controls exactly
   * what the program saw together.
   */
  sliceEnded?(report: SliceReport): void;
}

/** The end of one slice of a deterministic run. */
export interface SliceReport {
  /** The highest call id the program has made so far (0: none). */
  readonly calls: number;
}

/** How a run got its isolate. */
export interface RunStartup {
  /** `reused`: a fresh context in an isolate kept from an earlier clean run of the same group. */
  readonly source: 'pool' | 'cold' | 'reused';
  /** Milliseconds from `run()` until the program was sent to the isolate. */
  readonly ms: number;
}

/** A {@link RunOutcome} with how the isolate was obtained. */
export type IsolateRunOutcome = RunOutcome & { readonly startup: RunStartup };
