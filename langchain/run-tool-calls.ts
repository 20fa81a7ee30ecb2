/**
 * `runToolCalls(host, aiMessage)`: an AI message's tool calls as one `host.runTurn`, for a loop
 * written by hand or a LangGraph node of your own in place of ToolNode. The scheduling rules
 * hold as for any model turn (parallel-safe calls side by side in a rolling pool, an exclusive
 * call a barrier) and the `ToolMessage`s come back in `tool_calls` order, whatever order the
 * calls ended in: append them to the messages and call the model again.
 *
 * The tool call's `id` is our call id (a call without one gets a fresh `langchain-<uuid>`, and
 * its message carries that id); the signal is ours; approval is the host's channel. The tool
 * calls are model output, so each is read field by field, once: a call that cannot be read, or
 * whose name is not a string, is run as a call with no name, which the pipeline refuses (an
 * unknown tool) and records. Nothing is thrown for a
 * failed call.
 *
 * It runs whatever tool of the host a call names: `toLangChainTools`' `include` and `exclude`
 * choose what the model is shown, the host's policy decides what may run.
 */
import { randomUUID } from 'node:crypto';
import type { AIMessage, ToolMessage } from '@langchain/core/messages';
import { reportSuspension, type AgentRef, type OnSuspended, type ToolCall, type ToolHost, type ToolResult } from '../tools/index.js';
import { toolMessageOf } from './results.js';

/** A message whose tool calls to run: an `AIMessage`, or anything with its `tool_calls`. */
export type ToolCallsMessage = Pick<AIMessage, 'tool_calls'>;

/** Options of {@link runToolCalls}. */
export interface RunToolCallsOptions {
  /** Who the calls run for. The host's approval channel needs one: without it an `ask` is denied. */
  readonly agent?: AgentRef;
  /** Aborts the calls: running ones see it as their signal, the ones not started are refused. */
  readonly signal?: AbortSignal;
  /** Gets every durable run that suspends, with its resume token, as `toLangChainTools`' option does. */
  readonly onSuspended?: OnSuspended;
}

/**
 * Runs every tool call of `message` through `host.runTurn` and returns one `ToolMessage` per
 * call, in order (none when it has no tool calls).
 */
export async function runToolCalls(host: ToolHost, message: ToolCallsMessage, options: RunToolCallsOptions = {}): Promise<ToolMessage[]> {
  const calls = readToolCalls(message);
  if (calls.length === 0) return [];
  const { agent, signal } = options;
  const results = await host.runTurn(calls, { ...(agent ? { agent } : {}), ...(signal ? { signal } : {}) });
  const shown: ToolResult[] = [];
  for (const result of results) shown.push(await reportSuspension(result, options.onSuspended));
  return calls.map((call, i) => toolMessageOf(shown[i]!, call.id));
}

/** The message's tool calls as ours, each read once. */
function readToolCalls(message: ToolCallsMessage): ToolCall[] {
  let list: unknown;
  try {
    list = message?.tool_calls;
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  return Array.from(list, (entry: unknown) => {
    let id: unknown;
    let name: unknown = '';
    let args: unknown;
    try {
      ({ id, name, args } = entry as { id?: unknown; name?: unknown; args?: unknown });
    } catch {
      // Unreadable: no name, so the pipeline refuses it as an unknown tool.
    }
    return { id: typeof id === 'string' && id !== '' ? id : `langchain-${randomUUID()}`, name: typeof name === 'string' ? name : '', args };
  });
}
