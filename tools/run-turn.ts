/**
 * A model turn: each call's mode is asked of the host, calls run under the scheduling rule
 * (rolling pool, exclusive barriers; see scheduler.ts) and results come back in call order,
 * whatever order they finished in. Aborting the turn cancels calls not yet started (they still
 * pass the pipeline, which records and refuses them) and signals the running ones.
 */
import type { ToolHost, TurnOptions } from './host.js';
import { CallScheduler } from './scheduler.js';
import type { ToolCall, ToolResult } from './types.js';

/** Runs `calls` as one turn on `host`. */
export async function runTurn(
  host: ToolHost,
  calls: readonly ToolCall[],
  options: TurnOptions & { maxConcurrency: number },
): Promise<ToolResult[]> {
  const scheduler = new CallScheduler(options.maxConcurrency);
  const callOptions = { ...(options.agent ? { agent: options.agent } : {}), ...(options.signal ? { signal: options.signal } : {}) };
  return Promise.all(calls.map((call) => scheduler.submit(host.executionMode(call), () => host.call(call, callOptions))));
}
