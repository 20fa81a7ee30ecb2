/**
 * The scheduling rule of DESIGN.md "Scheduling a turn", for calls that may arrive over time
 * (a model turn submits them all at once; a PTC program submits them as it runs):
 *
 * - tasks start in submission order (FIFO): nothing overtakes a queued task;
 * - consecutive parallel tasks share a rolling pool of `maxConcurrency`: the next one starts as
 *   soon as any running one ends, not when the whole group is done;
 * - an exclusive task is a barrier: it starts only when nothing is running, and nothing starts
 *   until it ends.
 *
 * `cancelPending` rejects what has not started; running tasks are told through their own
 * abort signals by the caller.
 *
 * A task runs in the async context it was submitted from, not in that of the task whose end let
 * it start: an adapter submits each call from inside the framework's own span for it (the
 * Anthropic tool runner's, the AI SDK's), and a queued call's spans and AsyncLocalStorage must
 * still be its own.
 */
import { AsyncResource } from 'node:async_hooks';
import { InvalidOptionError } from './errors.js';
import type { ToolExecutionMode } from './types.js';

interface Pending {
  readonly mode: ToolExecutionMode;
  readonly task: () => unknown;
  readonly resolve: (value: never) => void;
  readonly reject: (reason: unknown) => void;
  /** The submitter's async context, captured only when the task has to wait for its turn. */
  scope: AsyncResource | undefined;
}

/** A FIFO scheduler of parallel and exclusive tasks. */
export class CallScheduler {
  private readonly queue: Pending[] = [];
  private running = 0;
  private exclusiveRunning = false;

  constructor(readonly maxConcurrency: number) {
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
      throw new InvalidOptionError({ where: 'CallScheduler', option: 'maxConcurrency', value: maxConcurrency, expected: 'a positive integer' });
    }
  }

  /** Number of tasks running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Number of tasks waiting to start. */
  get pending(): number {
    return this.queue.length;
  }

  /** Runs `task` when the rule allows; resolves or rejects with it. */
  submit<T>(mode: ToolExecutionMode, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { mode, task, resolve: resolve as (value: never) => void, reject, scope: undefined };
      // Nothing queued ahead of it (a queued head is always one the rule holds back) and room:
      // it starts now, in the submitter's own context already.
      if (this.queue.length === 0 && this.allows(mode)) {
        this.start(entry);
        return;
      }
      // `new AsyncResource` + `runInAsyncScope`, not `AsyncResource.bind`: the latter costs tens of µs a call on Node 20.
      entry.scope = new AsyncResource('ptc-runtime.call');
      this.queue.push(entry);
    });
  }

  /** Rejects every task that has not started with `reason`. */
  cancelPending(reason: unknown): void {
    for (const p of this.queue.splice(0)) p.reject(reason);
  }

  private allows(mode: ToolExecutionMode): boolean {
    return !this.exclusiveRunning && (mode.kind === 'exclusive' ? this.running === 0 : this.running < this.maxConcurrency);
  }

  private pump(): void {
    while (this.queue.length > 0 && this.allows(this.queue[0]!.mode)) this.start(this.queue.shift()!);
  }

  private start(entry: Pending): void {
    this.running++;
    const exclusive = entry.mode.kind === 'exclusive';
    if (exclusive) this.exclusiveRunning = true;
    let promise: Promise<unknown>;
    try {
      promise = Promise.resolve(entry.scope === undefined ? entry.task() : entry.scope.runInAsyncScope(entry.task));
    } catch (err) {
      promise = Promise.reject(err);
    }
    // The task's caller resumes first, then the next task starts (one microtask later, as it did
    // behind a `.finally`), without the promises `.finally` allocates.
    const finish = () => {
      this.running--;
      if (exclusive) this.exclusiveRunning = false;
      this.pump();
    };
    promise.then(
      (value) => {
        entry.resolve(value as never);
        queueMicrotask(finish);
      },
      (err: unknown) => {
        entry.reject(err);
        queueMicrotask(finish);
      },
    );
  }
}
