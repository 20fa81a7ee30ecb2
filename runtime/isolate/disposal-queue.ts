/**
 * Isolates whose runs ended, waiting to be disposed. Disposal (~0.2-0.5 ms) happens later, off
 * the outcome's path; but a caller that runs program after program without yielding to the event
 * loop (a batch `for` loop over runs that resolve in microtasks) would never let "later" come,
 * and every used isolate would stay alive. So at most `max` wait: past that, the oldest is
 * disposed at once.
 */
import type * as IvmTypes from 'isolated-vm';
import { disposeQuietly } from './prepared-isolate.js';

export class DisposalQueue {
  private readonly waiting: IvmTypes.Isolate[] = [];
  private scheduled = false;

  constructor(
    private readonly later: (work: () => void) => void,
    private readonly max = 2,
  ) {}

  /** Isolates waiting now. */
  get size(): number {
    return this.waiting.length;
  }

  add(isolate: IvmTypes.Isolate): void {
    this.waiting.push(isolate);
    while (this.waiting.length > this.max) disposeQuietly(this.waiting.shift()!);
    if (!this.scheduled) {
      this.scheduled = true;
      this.later(this.flush);
    }
  }

  /** Disposes every waiting isolate. */
  readonly flush = (): void => {
    this.scheduled = false;
    for (const isolate of this.waiting.splice(0)) disposeQuietly(isolate);
  };
}
