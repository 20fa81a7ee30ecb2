/** Test kit of the bridge: a clock that moves only when told (not part of the build). */
import type { DeadlineClock } from './pausable-deadline.js';

/** A {@link DeadlineClock} whose time moves only by `advance`, running the timers that come due, in order. */
export interface ManualClock extends DeadlineClock {
  /** Moves time forward by `ms`, running each timer due by then at its own time. */
  advance(ms: number): void;
  /** Timers armed and not yet run or cleared. */
  readonly pending: number;
}

/** A manual clock starting at `start` ms. */
export function manualClock(start = 0): ManualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        let due: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= until && (due === undefined || entry[1].at < due[1].at)) due = entry;
        if (due === undefined) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = until;
    },
    get pending() {
      return timers.size;
    },
  };
}
