/**
 * How long the sandbox worker polls its input for the host's reply after sending calls, before
 * going back to sleep in its event loop.
 *
 * On a virtual machine a vCPU that goes idle costs 50-80 µs to wake, and a sequential program
 * pays that twice per call (the host wakes for the call, the worker for the reply). Polling for
 * a short while keeps the worker's vCPU awake for the reply, which usually comes within 100 µs
 * for a fast tool. It only pays where the worker has a core of its own: with one core (a pinned
 * or single-CPU machine) polling would only delay the host it waits for, so it is off.
 *
 * The budget adapts: each reply caught while polling sets it to about twice the time that reply
 * took (within bounds); after a run of misses (slow tools, a busy machine) it polls only now and
 * then, to notice when replies get fast again. A miss costs at most {@link MAX_POLL_US} of CPU
 * time in the sandbox process, never in the host.
 */

/** Longest poll after one batch of calls. */
export const MAX_POLL_US = 200;
const MIN_POLL_US = 40;
/** Consecutive misses after which polling backs off. */
const MISSES_TO_BACK_OFF = 8;
/** While backed off, poll once per this many batches. */
const PROBE_EVERY = 16;

export class ReplyWait {
  private budgetUs = MAX_POLL_US;
  private misses = 0;
  private skipped = 0;

  /** `cores`: CPUs this process may run on; polling needs more than one. */
  constructor(private readonly cores: number) {}

  /** Microseconds to poll for the reply to the batch just sent (0: do not poll). */
  budget(): number {
    if (this.cores < 2) return 0;
    if (this.misses < MISSES_TO_BACK_OFF) return this.budgetUs;
    this.skipped++;
    if (this.skipped < PROBE_EVERY) return 0;
    this.skipped = 0;
    return MAX_POLL_US;
  }

  /** The reply arrived `us` after polling began. */
  hit(us: number): void {
    this.misses = 0;
    this.skipped = 0;
    this.budgetUs = Math.min(MAX_POLL_US, Math.max(MIN_POLL_US, Math.round(2 * us)));
  }

  /** Polling ended without a reply. */
  miss(): void {
    this.misses++;
    this.budgetUs = MAX_POLL_US;
  }
}
