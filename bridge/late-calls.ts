/**
 * Late calls: calls a program makes after its run ended, which a runner drops and the bridge
 * records as `ptc/call-refused`. A program's last slice runs on after its `return` (a promise
 * chain, a leaked async function), so a call made there reaches the runner after the end; so does
 * one a misbehaving runner or sandbox process sends after the run.
 *
 * Every one is recorded, but a hostile program can make hundreds in its last slice (up to
 * `maxCalls`), and a trace is for people: the first {@link MAX_RECORDED_LATE_CALLS} of a run are
 * recorded one by one, the rest are counted and recorded in one summary event (tool name
 * {@link MORE_LATE_CALLS}, with `count`). The summary is emitted as the run closes, before
 * `ptc/run-end`; should more arrive after that (only a misbehaving runner does that), they are
 * summed up again on the next microtask. A sandbox process relays late calls under the same cap
 * (runtime/sandbox-process/worker.ts), so its work per late call is a counter increment.
 *
 * This module imports nothing: the sandbox worker and the wire reader use its constants.
 */

/** Late calls of one run recorded one by one; the rest are counted in one summary event. */
export const MAX_RECORDED_LATE_CALLS = 100;

/** The `toolName` of the summary event that counts the late calls past {@link MAX_RECORDED_LATE_CALLS}. */
export const MORE_LATE_CALLS = '(more late calls)';

/** What {@link LateCallLog} records through: one refusal, or the summary of `count` more. */
export interface LateCallSink {
  refused(toolName: unknown, reason: string): void;
  summary(count: number, reason: string): void;
}

/** The late calls of one run, recorded under {@link MAX_RECORDED_LATE_CALLS}. */
export class LateCallLog {
  private recorded = 0;
  private unrecorded = 0;
  private closed = false;
  private summaryScheduled = false;

  constructor(private readonly sink: LateCallSink) {}

  /**
   * One late call (or `count` of them, as a sandbox process reports those past the cap). Records it
   * while under the cap; counts it otherwise. A `count` that is not a positive safe integer is 1.
   */
  add(toolName: unknown, reason: string, count: unknown = 1): void {
    const n = typeof count === 'number' && Number.isSafeInteger(count) && count > 0 ? count : 1;
    if (n === 1 && this.recorded < MAX_RECORDED_LATE_CALLS) {
      this.recorded++;
      this.sink.refused(toolName, reason);
      return;
    }
    this.unrecorded = Math.min(Number.MAX_SAFE_INTEGER, this.unrecorded + n);
    if (this.closed && !this.summaryScheduled) {
      this.summaryScheduled = true;
      queueMicrotask(() => {
        this.summaryScheduled = false;
        this.summarize();
      });
    }
  }

  /** The run closes: records the summary of what was counted, if anything was. */
  close(): void {
    this.closed = true;
    this.summarize();
  }

  private summarize(): void {
    if (this.unrecorded === 0) return;
    const count = this.unrecorded;
    this.unrecorded = 0;
    this.sink.summary(count, `${count} more late calls were refused (a run records at most ${MAX_RECORDED_LATE_CALLS} one by one)`);
  }
}
