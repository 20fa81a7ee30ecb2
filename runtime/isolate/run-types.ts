/** Types a run reports through: late calls, how the isolate was obtained, the outcome. */
import type { GuestBridge, RunOutcome } from '../program-runner.js';

/** A call (or other message) that arrived when no live run could take it. */
export interface LateCallEvent {
  /** The callable name the program used (`''` when not a call). */
  readonly name: string;
  /** Why it was dropped. */
  readonly reason: 'run-ended' | 'not-assigned';
}

/**
 * A GuestBridge that also wants to hear about calls dropped because its run had ended (a leaked
 * promise, or a sandbox process sending after the end). Optional: runners check for the method.
 */
export interface LateCallAwareBridge extends GuestBridge {
  onLateCall?(event: LateCallEvent): void;
}

/** How a run got its isolate. */
export interface RunStartup {
  readonly source: 'pool' | 'cold';
  /** Milliseconds from `run()` until the program was sent to the isolate. */
  readonly ms: number;
}

/** A {@link RunOutcome} with how the isolate was obtained. */
export type IsolateRunOutcome = RunOutcome & { readonly startup: RunStartup };
