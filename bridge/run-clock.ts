/**
 * The clock of one run, host side: its wall-clock deadline and the waits that do not count
 * against it. The deadline runs only while the run can make progress on its own: it stops while
 * any child waits for a person (approval has its own timeout, and a program awaiting an answer
 * is not using its wall time) and while the runner waits for room to start the program (a free
 * sandbox process: the program has not started; the runner bounds that wait itself). The
 * isolate's own timeout cannot do this (it does not even cover code after an `await`), so this
 * deadline is what bounds a run.
 *
 * Every reading and timer goes through one injected {@link DeadlineClock}, so tests drive the
 * whole run's time by hand.
 */
import { PausableDeadline, realClock, realNow, type DeadlineClock } from './pausable-deadline.js';

/** Options of a {@link RunClock}. */
export interface RunClockOptions {
  /** The wall-clock budget, ms. */
  readonly wallMs: number;
  /** Called once when the budget runs out (not while paused). */
  readonly onExpire: () => void;
  /** Timers and readings (default: `performance.now` and the real timers). */
  readonly clock?: DeadlineClock;
  /** The run's budget of approval waits, ms (time with at least one child waiting; absent: unbounded). */
  readonly approvalWaitMs?: number;
  /** Called once when the approval waits reach `approvalWaitMs`. */
  readonly onApprovalBudgetSpent?: () => void;
}

/** How the run's time was spent, once it is over. */
export interface RunTimes {
  /** Wall time with at least one child waiting for a person. */
  readonly approvalWaitMs: number;
  /** Wall time the runner waited for room to start the program. */
  readonly queuedMs: number;
  /** Wall time from the run's start to its end. */
  readonly durationMs: number;
}

/** A run's deadline and its waits. */
export class RunClock {
  private readonly clock: DeadlineClock;
  private readonly deadline: PausableDeadline;
  private readonly openedAt: number;
  /** Children waiting for a person. */
  private readonly asking = new Set<string>();
  private askingSince = 0;
  private approvalWaitMs = 0;
  private queuedSince: number | undefined;
  private queuedMs = 0;
  private readonly approvalBudgetMs: number;
  private readonly onApprovalBudgetSpent: (() => void) | undefined;
  private approvalTimer: unknown;
  private approvalBudgetSpent = false;

  constructor(options: RunClockOptions) {
    this.clock = options.clock ?? realClock;
    const clock = this.clock;
    this.now = clock === realClock ? realNow : () => clock.now();
    this.openedAt = this.clock.now();
    this.deadline = new PausableDeadline(options.wallMs, options.onExpire, this.clock);
    this.approvalBudgetMs = options.approvalWaitMs ?? Number.POSITIVE_INFINITY;
    this.onApprovalBudgetSpent = options.onApprovalBudgetSpent;
  }

  /** Now, on this run's clock (a function of its own: the bridge reads it several times a call). */
  readonly now: () => number;

  /** A child started waiting for a person (`true`) or stopped (`false`); repeats change nothing. */
  approvalWait(callId: string, waiting: boolean): void {
    if (waiting) {
      if (this.asking.has(callId)) return;
      if (this.asking.size === 0) {
        this.askingSince = this.now();
        this.armApprovalBudget();
      }
      this.asking.add(callId);
      this.deadline.pause();
      return;
    }
    if (!this.asking.delete(callId)) return;
    if (this.asking.size === 0) {
      this.approvalWaitMs += this.now() - this.askingSince;
      this.clock.clearTimeout(this.approvalTimer);
    }
    this.deadline.resume();
  }

  /** While a child waits: a timer for what is left of the approval budget. */
  private armApprovalBudget(): void {
    if (this.approvalBudgetSpent || !Number.isFinite(this.approvalBudgetMs)) return;
    this.approvalTimer = this.clock.setTimeout(() => {
      if (this.approvalBudgetSpent) return;
      this.approvalBudgetSpent = true;
      this.onApprovalBudgetSpent?.();
    }, Math.max(0, this.approvalBudgetMs - this.approvalWaitMs));
  }

  /** The runner started (`true`) or stopped (`false`) waiting for room to start the program. */
  queued(waiting: boolean): void {
    if (waiting === (this.queuedSince !== undefined)) return;
    if (waiting) {
      this.queuedSince = this.now();
      this.deadline.pause();
    } else {
      this.queuedMs += this.now() - this.queuedSince!;
      this.queuedSince = undefined;
      this.deadline.resume();
    }
  }

  /** Disarms the deadline for good (the run ended, or a limit stopped it). */
  stop(): void {
    this.deadline.stop();
    this.clock.clearTimeout(this.approvalTimer);
  }

  /**
   * Resolves after `ms` on this clock, or when `until` settles, whichever is first (the timer
   * is cleared either way).
   */
  async within(ms: number, until: Promise<unknown>): Promise<void> {
    let timer: unknown;
    const elapsed = new Promise<void>((resolve) => {
      timer = this.clock.setTimeout(resolve, ms);
    });
    try {
      await Promise.race([until, elapsed]);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /** The waits and the duration so far; a wait still open counts up to now. */
  times(): RunTimes {
    const now = this.now();
    return {
      approvalWaitMs: this.approvalWaitMs + (this.asking.size > 0 ? now - this.askingSince : 0),
      queuedMs: this.queuedMs + (this.queuedSince !== undefined ? now - this.queuedSince : 0),
      durationMs: now - this.openedAt,
    };
  }
}
