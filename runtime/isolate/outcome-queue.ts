/**
 * Outcomes of a run's calls on their way back into the isolate. The guest keeps at most one
 * `wait` outstanding while it has calls pending; `wait()` answers it with every outcome ready
 * when the current microtasks have run, so outcomes that arrive together cross together. A
 * newer wait replaces an older one (which gets an empty batch).
 */
import type { GuestCallOutcome } from '../program-runner.js';

/** A batch as the guest's `deliver` reads it: id, ok (1/0), json or toolName, message. */
export type OutcomeBatch = (string | number)[];

/** Buffers outcomes and hands them to the guest's outstanding wait. */
export class OutcomeQueue {
  private buffered: OutcomeBatch = [];
  private waiter: ((items: OutcomeBatch) => void) | undefined;
  private scheduled = false;
  private closed = false;

  /** True when no wait is outstanding and nothing is buffered. */
  get idle(): boolean {
    return this.waiter === undefined && this.buffered.length === 0;
  }

  /** Adds one outcome (checked: anything malformed becomes a readable failure). */
  push(id: number, outcome: GuestCallOutcome): void {
    if (this.closed) return;
    if (outcome !== null && typeof outcome === 'object' && outcome.ok === true && typeof outcome.json === 'string') {
      this.buffered.push(id, 1, outcome.json, '');
    } else if (outcome !== null && typeof outcome === 'object' && outcome.ok === false) {
      this.buffered.push(id, 0, String(outcome.toolName), String(outcome.message));
    } else {
      this.buffered.push(id, 0, '', 'The host returned a malformed call outcome.');
    }
    if (this.waiter !== undefined) this.schedule();
  }

  /** The guest's wait: resolves with the next non-empty batch. */
  wait(): Promise<OutcomeBatch> {
    this.waiter?.([]);
    return new Promise((resolve) => {
      this.waiter = resolve;
      if (this.buffered.length > 0) this.schedule();
    });
  }

  /** Drops everything; later pushes are ignored. */
  close(): void {
    this.closed = true;
    this.buffered = [];
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flush);
  }

  private readonly flush = () => {
    this.scheduled = false;
    const waiter = this.waiter;
    if (this.closed || waiter === undefined || this.buffered.length === 0) return;
    const items = this.buffered;
    this.buffered = [];
    this.waiter = undefined;
    waiter(items);
  };
}
