/**
 * Warm spare isolates. Each spare is used for one run and then disposed (never reused: a fresh
 * isolate per run means nothing a program did, including heap growth or a poisoned builtin, can
 * reach the next one). Taking a spare starts a background refill, so the cost of creating an
 * isolate moves off the run's critical path. Spares are made with one `memoryLimit`; a run that
 * asks for another size gets a cold isolate and the pool switches to that size.
 */
import { disposeQuietly, prepareIsolate, type PrepareOptions, type PreparedIsolate } from './prepared-isolate.js';

/** Options for {@link IsolatePool}. */
export interface IsolatePoolOptions extends Omit<PrepareOptions, 'memoryMb'> {
  /** Spares kept ready; 0 disables pooling. */
  readonly size: number;
  /** `memoryLimit` of the spares until a run asks for another. */
  readonly memoryMb: number;
  /** Schedules a background refill. */
  readonly later: (work: () => void) => void;
}

/** A small pool of prepared isolates, refilled in the background. */
export class IsolatePool {
  private readonly spares: PreparedIsolate[] = [];
  private creating = 0;
  private readonly inflight = new Set<Promise<void>>();
  private memoryMb: number;
  private closed = false;

  constructor(private readonly options: IsolatePoolOptions) {
    this.memoryMb = options.memoryMb;
  }

  /** Spares ready now. */
  get ready(): number {
    return this.spares.length;
  }

  /**
   * A spare with this memory limit, or undefined (the caller creates one cold). Does not refill:
   * creating an isolate blocks this thread for a few ms, so the caller calls `refill()` once its
   * run has ended, off the run's critical path.
   */
  take(memoryMb: number): PreparedIsolate | undefined {
    if (memoryMb !== this.memoryMb) {
      this.memoryMb = memoryMb;
      for (const spare of this.spares.splice(0)) disposeQuietly(spare.isolate);
    }
    let spare: PreparedIsolate | undefined;
    while ((spare = this.spares.shift()) !== undefined) {
      if (!spare.isolate.isDisposed) break;
    }
    return spare;
  }

  /** Creates a cold isolate outside the pool, on this thread (a run is waiting for it). */
  cold(memoryMb: number): Promise<PreparedIsolate> {
    return prepareIsolate({ ...this.options, memoryMb, blocking: true, forWaitingRun: true });
  }

  /** Resolves once the pool is full (for warm-up and benchmarks). */
  async fill(): Promise<void> {
    while (!this.closed && this.spares.length + this.creating < this.options.size) await this.createOne();
    await Promise.all(this.inflight);
  }

  /** Starts filling the pool in the background. */
  refill(): void {
    if (this.closed || this.spares.length + this.creating >= this.options.size) return;
    this.options.later(() => void this.fill().catch(() => undefined));
  }

  /** Disposes every spare; later takes return nothing. */
  close(): void {
    this.closed = true;
    for (const spare of this.spares.splice(0)) disposeQuietly(spare.isolate);
  }

  private createOne(): Promise<void> {
    const creation = this.create().finally(() => this.inflight.delete(creation));
    this.inflight.add(creation);
    return creation;
  }

  private async create(): Promise<void> {
    this.creating++;
    const memoryMb = this.memoryMb;
    try {
      const spare = await prepareIsolate({ ...this.options, memoryMb });
      if (this.closed || memoryMb !== this.memoryMb || this.spares.length >= this.options.size) disposeQuietly(spare.isolate);
      else this.spares.push(spare);
    } finally {
      this.creating--;
    }
  }
}
