/**
 * Isolates kept for the next run of the same group (docs/run-life.md "Groups, slots and
 * isolates"): after a clean run (a result or a thrown error) its isolate gets a fresh context
 * with the bootstrap, instead of being disposed, and waits for the group's next run, up to
 * `isolateRuns` runs per isolate. A context is never given a second program, so a program's
 * globals, builtins and prototypes die with its context; what the isolate as a whole keeps (its
 * heap's garbage until V8 collects it, the `Symbol.for` registry, which holds only keys no API
 * enumerates) is listed in docs/run-code.md.
 *
 * A run of the group that arrives while its isolate's fresh context is still to be made (the
 * preparation waits `later`, off the last run's outcome) claims that isolate and has the context
 * made at once, on its own path (~1.5 ms), rather than having a new isolate created for it
 * (~4 ms, and ~4 ms more later to dispose the one that then sat unused). In the many-runs bench's
 * workload (16 runs of one agent at once, round after round) processes created 14.6-15.0
 * isolates per 100 runs without this and 12.9 with it, against 12.5 for `isolateRuns` 8.
 *
 * Not kept: an isolate whose run hit a limit, was aborted (a durable suspension is an abort),
 * crashed or timed out (the run's own code disposes it), a run without a group, an isolate whose
 * used heap is over half its `memoryLimit`, and one that served `isolateRuns` runs. A group
 * never gets another group's isolate.
 */
import type * as IvmTypes from 'isolated-vm';
import { disposeQuietly, prepareContext, releaseContext, type PrepareOptions, type PreparedIsolate } from './prepared-isolate.js';

/** Default of `isolateRuns`: clean runs of one group an isolate serves before it is disposed. */
export const DEFAULT_ISOLATE_RUNS = 8;

/** Above this share of its `memoryLimit` in use after a run, an isolate is disposed, not kept. */
const HEAP_KEEP_SHARE = 0.5;

/** Options for {@link ReusedIsolates}. */
export interface ReusedIsolatesOptions extends Omit<PrepareOptions, 'memoryMb'> {
  /** Runs one isolate serves (1: none is reused). */
  readonly isolateRuns: number;
  /** Isolates kept waiting at most, over all groups; the oldest goes first. */
  readonly maxKept: number;
  /** Schedules the fresh context's preparation off the run's path. */
  readonly later: (work: () => void) => void;
}

interface Kept {
  readonly key: string;
  readonly prepared: PreparedIsolate;
}

/** An isolate offered after a clean run, its fresh context not yet made. */
interface Pending {
  readonly key: string;
  readonly isolate: IvmTypes.Isolate;
  readonly memoryMb: number;
  /** Runs the isolate served, this last one included. */
  readonly uses: number;
  /** A run claimed it: it goes to that run, never to `kept`. */
  taken: boolean;
  /** The scheduled preparation, once it began. */
  preparing?: Promise<PreparedIsolate | undefined>;
}

/** Counters for tests and benchmarks. */
export interface ReuseStats {
  /** Isolates waiting for their group's next run. */
  readonly kept: number;
  /** Runs that got a kept isolate (including those that claimed one: `claimed`). */
  readonly reused: number;
  /** Runs that took an isolate whose fresh context was still to be made, and waited for it. */
  readonly claimed: number;
}

/** The kept isolates, by group and memory limit. */
export class ReusedIsolates {
  private readonly kept: Kept[] = [];
  private readonly pending: Pending[] = [];
  private reused = 0;
  private claimed = 0;
  private closed = false;

  constructor(private readonly options: ReusedIsolatesOptions) {}

  get enabled(): boolean {
    return this.options.isolateRuns > 1;
  }

  stats(): ReuseStats {
    return { kept: this.kept.length, reused: this.reused, claimed: this.claimed };
  }

  /** A kept isolate of `group` with a fresh context, or undefined. */
  take(group: string, memoryMb: number): PreparedIsolate | undefined {
    const key = keyOf(group, memoryMb);
    for (let i = this.kept.length - 1; i >= 0; i--) {
      const entry = this.kept[i]!;
      if (entry.key !== key) continue;
      this.kept.splice(i, 1);
      if (entry.prepared.isolate.isDisposed) continue;
      this.reused++;
      return entry.prepared;
    }
    return undefined;
  }

  /**
   * An isolate of `group` offered after its last run whose fresh context is not ready yet: the
   * context is made now (on this thread, if its preparation had not begun), and the run gets it;
   * undefined if there is none, or its preparation failed (the isolate is then disposed).
   * Waiting for a preparation under way is waiting for its own ~1-2 ms: isolated-vm never
   * queues a task behind its busy threads (src/lib/thread_pool.cc starts a thread for it), so no
   * other isolate's long slice can hold it.
   */
  claim(group: string, memoryMb: number): Promise<PreparedIsolate | undefined> | undefined {
    const key = keyOf(group, memoryMb);
    const entry = this.pending.find((candidate) => candidate.key === key && !candidate.taken);
    if (entry === undefined) return undefined;
    entry.taken = true;
    const ready = entry.preparing ?? this.prepare(entry, { blocking: true, forWaitingRun: true });
    return ready.then((fresh) => {
      if (fresh === undefined) return undefined;
      this.reused++;
      this.claimed++;
      return fresh;
    });
  }

  /**
   * After a clean run of `group` in `prepared`: true if the isolate is kept (a fresh context is
   * prepared in it later), false if the caller disposes it.
   */
  offer(prepared: PreparedIsolate, group: string | undefined): boolean {
    if (this.closed || group === undefined || !this.enabled) return false;
    const { isolate } = prepared;
    if (isolate.isDisposed || prepared.uses + 1 >= this.options.isolateRuns) return false;
    if (usedHeapShare(isolate, prepared.memoryMb) > HEAP_KEEP_SHARE) return false;
    const entry: Pending = { key: keyOf(group, prepared.memoryMb), isolate, memoryMb: prepared.memoryMb, uses: prepared.uses + 1, taken: false };
    releaseContext(prepared);
    this.pending.push(entry);
    this.options.later(() => {
      if (entry.taken || entry.preparing !== undefined) return;
      void this.prepare(entry, {}).then((fresh) => {
        if (fresh === undefined || entry.taken) return;
        this.kept.push({ key: entry.key, prepared: fresh });
        while (this.kept.length > this.options.maxKept) disposeQuietly(this.kept.shift()!.prepared.isolate);
      });
    });
    return true;
  }

  /**
   * Makes `entry`'s fresh context (once: a claim during the scheduled preparation shares it).
   * Resolves to undefined, with the isolate disposed, if that fails, or the reuse was closed.
   */
  private prepare(entry: Pending, how: Pick<PrepareOptions, 'blocking' | 'forWaitingRun'>): Promise<PreparedIsolate | undefined> {
    const { isolate } = entry;
    const done = (fresh: PreparedIsolate | undefined): PreparedIsolate | undefined => {
      const at = this.pending.indexOf(entry);
      if (at >= 0) this.pending.splice(at, 1);
      if (fresh === undefined || this.closed || isolate.isDisposed) {
        disposeQuietly(isolate);
        return undefined;
      }
      fresh.uses = entry.uses;
      return fresh;
    };
    entry.preparing = this.closed || isolate.isDisposed
      ? Promise.resolve(done(undefined))
      : prepareContext(isolate, entry.memoryMb, { ...this.options, ...how }).then(done, () => done(undefined));
    return entry.preparing;
  }

  close(): void {
    this.closed = true;
    for (const entry of this.pending.splice(0)) if (entry.preparing === undefined) disposeQuietly(entry.isolate);
    for (const entry of this.kept.splice(0)) disposeQuietly(entry.prepared.isolate);
  }
}

function keyOf(group: string, memoryMb: number): string {
  return `${group}\u0000${memoryMb}`;
}

function usedHeapShare(isolate: IvmTypes.Isolate, memoryMb: number): number {
  try {
    const heap = isolate.getHeapStatisticsSync();
    return heap.used_heap_size / (memoryMb * 1024 * 1024);
  } catch {
    return 1;
  }
}
