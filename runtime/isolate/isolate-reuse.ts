/**
 * Isolates kept for the next run of the same group (docs/run-life.md "Groups, slots and
 * isolates"): after a clean run (a result or a thrown error) its isolate gets a fresh context
 * with the bootstrap, instead of being disposed, and waits for the group's next run, up to
 * `isolateRuns` runs per isolate. A context is never given a second program, so a program's
 * globals, builtins and prototypes die with its context; what the isolate as a whole keeps (its
 * heap's garbage until V8 collects it, the `Symbol.for` registry, which holds only keys no API
 * enumerates) is listed in docs/run-code.md.
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

/** Counters for tests and benchmarks. */
export interface ReuseStats {
  /** Isolates waiting for their group's next run. */
  readonly kept: number;
  /** Runs that got a kept isolate. */
  readonly reused: number;
}

/** The kept isolates, by group and memory limit. */
export class ReusedIsolates {
  private readonly kept: Kept[] = [];
  private reused = 0;
  private closed = false;

  constructor(private readonly options: ReusedIsolatesOptions) {}

  get enabled(): boolean {
    return this.options.isolateRuns > 1;
  }

  stats(): ReuseStats {
    return { kept: this.kept.length, reused: this.reused };
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
   * After a clean run of `group` in `prepared`: true if the isolate is kept (a fresh context is
   * prepared in it later), false if the caller disposes it.
   */
  offer(prepared: PreparedIsolate, group: string | undefined): boolean {
    if (this.closed || group === undefined || !this.enabled) return false;
    const { isolate } = prepared;
    if (isolate.isDisposed || prepared.uses + 1 >= this.options.isolateRuns) return false;
    if (usedHeapShare(isolate, prepared.memoryMb) > HEAP_KEEP_SHARE) return false;
    const key = keyOf(group, prepared.memoryMb);
    const uses = prepared.uses + 1;
    releaseContext(prepared);
    this.options.later(() => {
      if (this.closed || isolate.isDisposed) return disposeQuietly(isolate);
      prepareContext(isolate, prepared.memoryMb, this.options).then(
        (fresh) => {
          fresh.uses = uses;
          if (this.closed) return disposeQuietly(isolate);
          this.kept.push({ key, prepared: fresh });
          while (this.kept.length > this.options.maxKept) disposeQuietly(this.kept.shift()!.prepared.isolate);
        },
        () => disposeQuietly(isolate),
      );
    });
    return true;
  }

  /** Disposes every kept isolate of `group` (its process or agent is going away). */
  drop(group: string): void {
    for (let i = this.kept.length - 1; i >= 0; i--) {
      if (this.kept[i]!.key.startsWith(`${group}\u0000`)) disposeQuietly(this.kept.splice(i, 1)[0]!.prepared.isolate);
    }
  }

  close(): void {
    this.closed = true;
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
