/**
 * The sleeps of one run, host side: `await sleep(ms)` in a program arrives as a call to the
 * reserved name `#sleep` with `{"ms":n}` (codegen/sleep.ts) and is settled here with a timer on
 * the run's clock, never as a tool call (no pipeline, no events, not in `calls`, not counted in
 * `maxCalls` or `hostMs`).
 *
 * - Bounded: each wait is at most MAX_SLEEP_MS (a longer one is cut to it, a negative one is 0),
 *   and at most MAX_SLEEPS_AT_ONCE wait at once; the guest holds to both, and they are checked
 *   here again because what a runner sends is untrusted. Arguments that are not `{"ms": <finite
 *   number>}` are refused with a message saying so.
 * - Wall time, not CPU: the timer runs on the run's clock, whose deadline keeps running while a
 *   program sleeps; a program that sleeps past `wallMs` ends with the wall-time error like any
 *   other. The isolate is idle meanwhile, so no CPU time is spent.
 * - Ends with the run: {@link RunSleeps.end} clears every timer and settles every sleep at once
 *   (the runner drops outcomes after its run settled), so no timer outlives the run.
 * - An ordinary outcome (`null` on success): a durable replay can deliver it from a journal
 *   without waiting.
 */
import { MAX_SLEEP_MS, MAX_SLEEPS_AT_ONCE, SLEEP_CALL } from '../codegen/index.js';
import { guestFailure, type ChildOutcome } from './guest-outcome.js';
import type { DeadlineClock } from './pausable-deadline.js';

/** Longest argument text a sleep is read from (`{"ms":...}` is a few dozen characters). */
const MAX_SLEEP_ARGS_CHARS = 200;

const SLEPT: ChildOutcome = Object.freeze({ ok: true as const, json: 'null' });

interface Waiting {
  readonly timer: unknown;
  readonly resolve: (outcome: ChildOutcome) => void;
}

/** Options of {@link RunSleeps}. */
export interface RunSleepsOptions {
  /** The run's clock (its timers). */
  readonly clock: DeadlineClock;
  /** Longest one wait, ms (default MAX_SLEEP_MS). */
  readonly maxMs?: number;
  /** Sleeps waiting at once (default MAX_SLEEPS_AT_ONCE). */
  readonly maxAtOnce?: number;
}

/** The waits of `sleep(ms)` of one run. */
export class RunSleeps {
  private readonly waiting = new Set<Waiting>();
  private ended: string | undefined;
  private readonly maxMs: number;
  private readonly maxAtOnce: number;

  constructor(private readonly options: RunSleepsOptions) {
    this.maxMs = options.maxMs ?? MAX_SLEEP_MS;
    this.maxAtOnce = options.maxAtOnce ?? MAX_SLEEPS_AT_ONCE;
  }

  /** Sleeps waiting now. */
  get size(): number {
    return this.waiting.size;
  }

  /** One `sleep`: resolves with `null` after the wait, or at once with a failure saying why not. */
  sleep(argsJson: string): Promise<ChildOutcome> {
    if (this.ended !== undefined) return Promise.resolve(guestFailure(SLEEP_CALL, `sleep(ms) did not wait: ${this.ended}.`));
    const ms = readMs(argsJson);
    if (ms === undefined) return Promise.resolve(guestFailure(SLEEP_CALL, 'sleep(ms) was refused: its argument is not {"ms": <a finite number>}.'));
    if (this.waiting.size >= this.maxAtOnce) {
      return Promise.resolve(guestFailure(SLEEP_CALL, `sleep(ms) was refused: ${this.maxAtOnce} sleeps of this run are already waiting, the most at once.`));
    }
    const wait = Math.min(Math.max(0, ms), this.maxMs);
    return new Promise((resolve) => {
      const entry: Waiting = {
        timer: this.options.clock.setTimeout(() => {
          this.waiting.delete(entry);
          resolve(SLEPT);
        }, wait),
        resolve,
      };
      this.waiting.add(entry);
    });
  }

  /** The run ended (`why`): every timer is cleared and every sleep settles now; later sleeps do not wait. */
  end(why: string): void {
    if (this.ended !== undefined) return;
    this.ended = why;
    const outcome = guestFailure(SLEEP_CALL, `sleep(ms) was cut short: ${why}.`);
    for (const entry of this.waiting) {
      this.options.clock.clearTimeout(entry.timer);
      entry.resolve(outcome);
    }
    this.waiting.clear();
  }
}

/** The `ms` of `{"ms": n}` when it is a finite number, else undefined. */
function readMs(argsJson: string): number | undefined {
  if (typeof argsJson !== 'string' || argsJson.length > MAX_SLEEP_ARGS_CHARS) return undefined;
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch {
    return undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const ms = Object.hasOwn(args, 'ms') ? (args as { ms: unknown }).ms : undefined;
  return typeof ms === 'number' && Number.isFinite(ms) ? ms : undefined;
}
