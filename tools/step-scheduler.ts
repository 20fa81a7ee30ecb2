/**
 * The scheduling rule (scheduler.ts) for frameworks that start the tool calls of one model step
 * side by side, each through its own `host.call` (the AI SDK does; LangGraph's ToolNode and the
 * Agents SDK run function tools concurrently too). Without it an exclusive tool would overlap its
 * siblings, which `host.runTurn` never allows.
 *
 * A `StepScheduler` keeps one `CallScheduler` per step, keyed by an object the framework hands
 * every call of that step and no other (the AI SDK's `messages` array for the step), held
 * weakly: the queue goes with the step. Calls start in the order the framework starts them, which
 * is the model's call order in the frameworks we adapt; results go back to each caller as they
 * finish, and the framework orders them. A call with no step object shares one queue with every
 * other such call of this scheduler: slower, never unsafe.
 */
import { CallScheduler } from './scheduler.js';
import type { ToolHost } from './tool-types.js';
import type { CallOptions, ToolCall, ToolResult } from './types.js';

/** Runs `host.call` for a framework's concurrent calls under the scheduling rule, step by step. */
export class StepScheduler {
  readonly #steps = new WeakMap<object, CallScheduler>();
  #unkeyed: CallScheduler | undefined;

  constructor(readonly host: ToolHost) {}

  /** `host.call(call, options)`, once the rule lets it start among the calls of `step`. */
  call(step: unknown, call: ToolCall, options: CallOptions = {}): Promise<ToolResult> {
    return this.#schedulerOf(step).submit(this.host.executionMode(call), () => this.host.call(call, options));
  }

  #schedulerOf(step: unknown): CallScheduler {
    if (typeof step !== 'object' || step === null) return (this.#unkeyed ??= new CallScheduler(this.host.maxConcurrency));
    let scheduler = this.#steps.get(step);
    if (scheduler === undefined) this.#steps.set(step, (scheduler = new CallScheduler(this.host.maxConcurrency)));
    return scheduler;
  }
}
