/**
 * A wall-clock budget that can be paused, on an injectable clock. The run's clock (run-clock.ts)
 * pauses it while a child waits for a person or the runner waits for room.
 */

/** Timer functions, injectable for tests. */
export interface DeadlineClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** `performance.now`, as a function of its own. */
export const realNow = (): number => performance.now();

/** `performance.now` and the real timers. */
export const realClock: DeadlineClock = {
  now: realNow,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** A deadline that can be paused (nested pauses count) and fires `onExpire` once. */
export class PausableDeadline {
  private remaining: number;
  private startedAt = 0;
  private timer: unknown;
  private pauses = 0;
  private done = false;

  constructor(
    budgetMs: number,
    private readonly onExpire: () => void,
    private readonly clock: DeadlineClock = realClock,
  ) {
    this.remaining = budgetMs;
    this.arm();
  }

  /** Milliseconds of budget left (frozen while paused). */
  get left(): number {
    return this.pauses > 0 || this.done ? this.remaining : Math.max(0, this.remaining - (this.clock.now() - this.startedAt));
  }

  /** Stops the clock until a matching `resume`. */
  pause(): void {
    if (this.done) return;
    if (this.pauses++ === 0) {
      this.clock.clearTimeout(this.timer);
      this.remaining = Math.max(0, this.remaining - (this.clock.now() - this.startedAt));
    }
  }

  /** Restarts the clock when the last pause ends. */
  resume(): void {
    if (this.done || this.pauses === 0) return;
    if (--this.pauses === 0) this.arm();
  }

  /** Disarms for good. */
  stop(): void {
    this.done = true;
    this.clock.clearTimeout(this.timer);
  }

  private arm(): void {
    this.startedAt = this.clock.now();
    if (!Number.isFinite(this.remaining)) return;
    this.timer = this.clock.setTimeout(() => {
      if (this.done || this.pauses > 0) return;
      this.done = true;
      this.onExpire();
    }, this.remaining);
  }
}
