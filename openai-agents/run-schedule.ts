/**
 * Our scheduling rule inside the SDK's loop. The Agents SDK starts every function call of a
 * model step at once (`toolExecution.maxFunctionToolConcurrency` unset), whatever the tool; our
 * rule (DESIGN.md "Scheduling a turn") lets only calls the host names parallel
 * (`host.executionMode`) run side by side, and makes an exclusive call a barrier. So each call
 * waits its turn in a `CallScheduler` of its run (one per host and `RunContext`, which every
 * step of a run shares): exclusive tools never overlap each other or a parallel call of the same
 * run, and parallel ones share the host's `maxConcurrency` pool.
 *
 * Order: calls queue in the order the SDK reaches `execute`, which is the model's order when
 * they are started together. The SDK, not `host.runTurn`, collects the results, and it keeps
 * them in the model's order.
 */
import type { RunContext } from '@openai/agents-core';
import { CallScheduler, type ToolExecutionMode, type ToolHost } from '../tools/index.js';

const schedulers = new WeakMap<ToolHost, WeakMap<object, CallScheduler>>();

/** Runs `task` when the host's rule lets a call of `mode` start in this run. */
export function scheduleInRun<T>(host: ToolHost, run: RunContext | undefined, mode: ToolExecutionMode, task: () => Promise<T>): Promise<T> {
  if (run === undefined) return task();
  let byRun = schedulers.get(host);
  if (!byRun) schedulers.set(host, (byRun = new WeakMap()));
  let scheduler = byRun.get(run);
  if (!scheduler) byRun.set(run, (scheduler = new CallScheduler(host.maxConcurrency)));
  return scheduler.submit(mode, task);
}
