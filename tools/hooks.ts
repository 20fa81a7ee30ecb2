/**
 * The four extension points of the pipeline and how each one dispatches. The dispatch mode is
 * in the name, so a reader knows what a listener can do without reading the pipeline:
 *
 * - `waterfall`  (preExecute, postExecute): listeners run in registration order; each sees the
 *   decision so far and may return a new one, so a later listener can overturn an earlier one.
 * - `guard`      (guard): runs after every pre-execute listener; can only deny. No guard or
 *   listener can turn a guard's denial back into an allow (see pipeline.ts).
 * - `middleware` (execute): wraps the tool body, first registered outermost; may call `next`
 *   (once) or replace the body by not calling it.
 */
import { disposable } from './disposable.js';
import type { Disposable, PostToolDecision, PreToolDecision, ToolExecution, ToolResult } from './types.js';

/** Each dispatch mode, named once. */
export type HookDispatch = 'waterfall' | 'guard' | 'middleware';

/** `tools/pre-execute` (waterfall). `current` starts as allow. `undefined` changes nothing. */
export type PreExecuteListener = (
  execution: ToolExecution,
  current: PreToolDecision,
) => PreToolDecision | undefined | Promise<PreToolDecision | undefined>;

/** Monotonic guard: a string denies with that reason; `undefined` changes nothing. Synchronous. */
export type ToolGuard = (execution: Readonly<ToolExecution>) => string | undefined;

/** `tools/execute` (middleware) around the body; the result is the raw value before materializing. */
export type ExecuteMiddleware = (execution: ToolExecution, next: () => Promise<unknown>) => Promise<unknown>;

/** `tools/post-execute` (waterfall). Sees the result so far; `undefined` changes nothing. */
export type PostExecuteListener = (
  execution: ToolExecution,
  result: ToolResult,
) => PostToolDecision | undefined | Promise<PostToolDecision | undefined>;

/** Registration surface: `host.hooks.preExecute(fn)` etc.; each returns a disposable. */
export interface ToolHooks {
  preExecute(listener: PreExecuteListener): Disposable;
  guard(guard: ToolGuard): Disposable;
  execute(middleware: ExecuteMiddleware): Disposable;
  postExecute(listener: PostExecuteListener): Disposable;
}

/** The registered listeners, read by the pipeline as snapshots (a hook added mid-call waits for the next call). */
export class HookLists implements ToolHooks {
  preExecuteListeners: readonly PreExecuteListener[] = [];
  guards: readonly ToolGuard[] = [];
  middleware: readonly ExecuteMiddleware[] = [];
  postExecuteListeners: readonly PostExecuteListener[] = [];

  preExecute(listener: PreExecuteListener): Disposable {
    return this.add('preExecuteListeners', listener, 'preExecute');
  }
  guard(guard: ToolGuard): Disposable {
    return this.add('guards', guard, 'guard');
  }
  execute(middleware: ExecuteMiddleware): Disposable {
    return this.add('middleware', middleware, 'execute');
  }
  postExecute(listener: PostExecuteListener): Disposable {
    return this.add('postExecuteListeners', listener, 'postExecute');
  }

  private add<K extends 'preExecuteListeners' | 'guards' | 'middleware' | 'postExecuteListeners'>(
    list: K,
    fn: HookLists[K][number],
    what: string,
  ): Disposable {
    if (typeof fn !== 'function') throw new TypeError(`hooks.${what}: expected a function, got ${typeof fn}`);
    // Copy-on-write: calls in progress keep the list they started with.
    (this[list] as readonly unknown[]) = [...this[list], fn];
    return disposable(() => {
      const current = this[list] as readonly unknown[];
      const at = current.indexOf(fn);
      if (at >= 0) (this[list] as readonly unknown[]) = [...current.slice(0, at), ...current.slice(at + 1)];
    });
  }
}
