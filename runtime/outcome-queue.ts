/**
 * Outcomes of a run's calls on their way back to the guest (into the isolate, or over the pipe
 * to a sandbox process). Outcomes that are ready in the same microtask turn are buffered and
 * cross together in one batch; while other calls are still in flight, the batch waits for the
 * end of the event-loop turn, so outcomes that settle in separate timer or I/O callbacks (or
 * after the pipeline's own awaits) still cross together: one slice, or one frame, per batch
 * instead of one per call.
 */
import { OUTCOME_PARTS, type OutcomeBatch } from './isolate/guest/protocol.js';
import type { GuestCallOutcome } from './program-runner.js';

export type { OutcomeBatch } from './isolate/guest/protocol.js';

/** Buffers outcomes and hands each batch to `send` once the current microtasks have run. */
export class OutcomeQueue {
  private buffered: OutcomeBatch = [];
  private scheduled = false;
  private deferred = false;
  private closed = false;

  /** `send` pushes one batch to the guest; it must not throw. */
  constructor(private readonly send: (items: OutcomeBatch) => void) {}

  /** True when nothing is buffered or about to be sent. */
  get idle(): boolean {
    return this.buffered.length === 0;
  }

  /**
   * Adds one outcome (checked: anything malformed becomes a readable failure). `moreComing`: other
   * calls of the run are still in flight, so the batch may wait for the end of this event-loop turn.
   */
  push(id: number, outcome: GuestCallOutcome, moreComing = false): void {
    if (this.closed) return;
    if (outcome !== null && typeof outcome === 'object' && outcome.ok === true && typeof outcome.json === 'string') {
      this.buffered.push(id, 1, outcome.json, '');
    } else if (outcome !== null && typeof outcome === 'object' && outcome.ok === false) {
      this.buffered.push(id, 0, String(outcome.toolName), String(outcome.message));
    } else {
      this.buffered.push(id, 0, '', 'The host returned a malformed call outcome.');
    }
    this.schedule(moreComing);
  }

  /** Adds the outcome of a call whose value is the parts of it already sent (protocol.ts OUTCOME_PARTS). */
  pushParts(id: number, moreComing = false): void {
    if (this.closed) return;
    this.buffered.push(id, OUTCOME_PARTS, '', '');
    this.schedule(moreComing);
  }

  private schedule(moreComing: boolean): void {
    if (!moreComing) {
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(this.flush);
      }
    } else if (!this.deferred) {
      // Other calls are still in flight: let the outcomes that settle in this turn of the event
      // loop (timers, I/O) gather, and cross in one batch.
      this.deferred = true;
      setImmediate(this.flushDeferred);
    }
  }

  /** Drops everything; later pushes are ignored. */
  close(): void {
    this.closed = true;
    this.buffered = [];
  }

  private readonly flushDeferred = () => {
    this.deferred = false;
    this.flush();
  };

  private readonly flush = () => {
    this.scheduled = false;
    if (this.closed || this.buffered.length === 0) return;
    const items = this.buffered;
    this.buffered = [];
    this.send(items);
  };
}
