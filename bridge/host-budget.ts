/**
 * The run's budget of host work (`hostMs`). The guest's CPU is bounded by `cpuMs`, but every
 * call it makes costs the host too, on the host's own thread: the bridge reads and checks the
 * arguments (caps, JSON parse), the pipeline looks the tool up, validates and freezes the
 * arguments and records events (every sink runs), and the result is turned into JSON for the
 * program. A program can make that work large and its own small: 20 calls with 100,000 items
 * that fail validation cost the guest 0.7 s and the host 11 s before validation was bounded.
 * Bounding each call is not enough when a program keeps calling, so this counts, for every
 * child call, the time of those synchronous host steps, and past `hostMs` the run ends with a
 * limit error naming it, like any other limit.
 *
 * What is counted is wall time of synchronous sections on the host thread (so it includes the
 * event sinks' time, and on a loaded machine some preemption): it is a bound, not an account.
 * A tool's own execution, and what the pipeline does after the tool returns (result
 * validation, post-execute listeners), are not counted: those are the tool author's.
 */
import { RunLimitError } from './errors.js';
import { limitMessage } from './limit-failure.js';

/** Options of {@link HostWorkBudget}. */
export interface HostWorkBudgetOptions {
  /** The budget, ms (`RunLimits.hostMs`). */
  readonly limitMs: number;
  /** Called once, when the budget is first exceeded. */
  readonly onExceeded: (error: RunLimitError) => void;
}

/** Host work charged to one run. */
export class HostWorkBudget {
  private spent = 0;
  private exceeded = false;

  constructor(private readonly options: HostWorkBudgetOptions) {}

  /** Milliseconds of host work charged so far. */
  get spentMs(): number {
    return this.spent;
  }

  /** Charges `ms` of host work done for the run elsewhere (a large result's JSON text, made in slices while it was materialized). */
  charge(ms: number): void {
    if (!(ms > 0)) return;
    this.spent += ms;
    if (this.exceeded || this.spent <= this.options.limitMs) return;
    this.exceeded = true;
    const limit = this.options.limitMs;
    this.options.onExceeded(new RunLimitError('hostMs', limit, limitMessage('hostMs', limit)));
  }
}
