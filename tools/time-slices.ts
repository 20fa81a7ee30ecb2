/**
 * Long synchronous work on the host's thread, cut into slices of a few milliseconds with a turn
 * of the event loop between them: a 10 MB tool result is about a million values to copy, check
 * and turn into JSON (0.2-0.4 s here), and done in one go it froze every other agent, request and
 * timer of the host for that long. Between slices timers, I/O and other calls run (`setImmediate`
 * resumes after the loop's poll phase, so a due timer fires before the next slice).
 *
 * The work itself must tolerate the pause: what it walks may change meanwhile (a tool that keeps
 * its value and mutates it later gets a snapshot taken over several turns: each property is still
 * read once).
 */

/** How long one slice may run before the work pauses, ms. */
export const SLICE_MS = 4;

/** Measures slices of work and pauses between them. */
export class TimeSlices {
  private startedAt: number;
  private busy = 0;

  constructor(
    private readonly sliceMs = SLICE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.startedAt = now();
  }

  /** Whether the current slice has run its time (then call {@link pause}). */
  due(): boolean {
    return this.now() - this.startedAt >= this.sliceMs;
  }

  /**
   * Ends the slice and resolves on a later turn of the event loop, where the next slice starts;
   * with `until` (a consumer of the work's output that is behind), once that settles instead.
   */
  async pause(until?: Promise<void>): Promise<void> {
    this.busy += this.now() - this.startedAt;
    await (until ?? new Promise<void>((resolve) => setImmediate(resolve)));
    this.startedAt = this.now();
  }

  /** Time spent working (in slices, not in pauses) so far, ms. */
  get busyMs(): number {
    return this.busy + (this.now() - this.startedAt);
  }
}
