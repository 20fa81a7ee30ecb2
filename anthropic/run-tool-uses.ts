/**
 * `runToolUses(host, message)`: the manual Messages API loop's tool step. Every `tool_use` block
 * of the reply is one call of a single `host.runTurn`, so the scheduling rules hold as for any
 * model turn (parallel-safe calls side by side in a rolling pool, an exclusive call a barrier),
 * and the `tool_result` blocks come back in `tool_use` order, whatever order the calls ended in.
 *
 * The block's `id` is our call id (every event of the call carries it) and the signal is ours.
 * Approval is the host's channel: the Messages API has no approval flow of its own, so an `ask`
 * is put to `createToolHost({ approval })` inside the call, for the `agent`, and fails closed
 * (denied as unavailable) without a channel or an agent.
 *
 * A call from Claude's program in the code execution tool (a `tool_use` with a non-direct
 * `caller`) runs in the same batch with its own origin (`runTurn`'s `perCall`), recorded as the
 * provider program's, and its result is text only, but only when its caller names a code
 * execution block of the same message and the tool's `allowed_callers` (in `tools`) list the
 * caller (program-callers.ts); otherwise it is refused, unrun. Send the reply with the message's
 * `container` id (`container: message.container?.id`), so the waiting program gets it.
 */
import type { BetaMessage, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages';
import type { Message, MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { reportSuspension, type AgentRef, type OnSuspended, type ToolHost, type TurnCallOptions } from '../tools/index.js';
import { toolResultBlock } from './results.js';
import { allowedCallersOf, programCallRefusal } from './program-callers.js';
import { readMessageToolUses } from './tool-uses.js';

/** A message whose `tool_use` blocks to run: a reply, or one read back from history. */
export type ToolUseMessage = Pick<Message, 'content'> | Pick<BetaMessage, 'content'> | Pick<MessageParam, 'content'> | Pick<BetaMessageParam, 'content'>;

/** Options of {@link runToolUses}. */
export interface RunToolUsesOptions {
  /** Who the calls run for. The host's approval channel needs one: without it an `ask` is denied. */
  readonly agent?: AgentRef;
  /** Aborts the calls: running ones see it as their signal, the ones not started are refused. */
  readonly signal?: AbortSignal;
  /**
   * The `tools` of the request this message answers (`toAnthropicTools(host, { providerCodeExecution })`
   * and the code execution tool). A program's call runs only on a tool whose `allowed_callers`
   * there lists its caller; left out, no program's call runs (the API's default: direct only).
   */
  readonly tools?: readonly unknown[];
  /**
   * Gets every durable run that suspends (run_code's `value.suspended`: a person must decide),
   * with its resume token. Its `tool_result` is the one line the model reads (never the token);
   * resume with `resumeAnthropicRun`.
   */
  readonly onSuspended?: OnSuspended;
}

/**
 * Runs every `tool_use` block of `message` through `host.runTurn` and returns one `tool_result`
 * block per block, in order: the content for the next user message. Other blocks (text,
 * thinking, server tools' blocks, toolset members' calls) are not ours and get none. A malformed
 * `tool_use` gets an error result (recorded by the pipeline); nothing is thrown for a failed
 * call. Throws a `TypeError` only when `message` has no `content` string or array.
 */
export async function runToolUses(host: ToolHost, message: ToolUseMessage, options: RunToolUsesOptions = {}): Promise<ToolResultBlockParam[]> {
  const { uses, codeExecutionIds } = readMessageToolUses(message);
  if (uses.length === 0) return [];
  const allowed = allowedCallersOf(options.tools);
  // A call's origin is keyed by its id; only the first block with an id runs (runTurn refuses
  // the others), so only its origin may be attached to that id.
  const perCall = new Map<string, TurnCallOptions>();
  const ids = new Set<string>();
  for (const use of uses) {
    if (ids.has(use.toolUseId)) continue;
    ids.add(use.toolUseId);
    if (!use.origin) continue;
    // (An unreadable caller has callerType unset and an origin the pipeline refuses as malformed.)
    const refusal =
      use.callerType === undefined
        ? undefined
        : programCallRefusal({ toolName: use.call.name, callerType: use.callerType, toolId: use.origin.callerId, codeExecutionIds, allowed: allowed.get(use.call.name) });
    perCall.set(use.toolUseId, { origin: use.origin, ...(refusal !== undefined ? { refusal } : {}) });
  }
  const { agent, signal } = options;
  const results = await host.runTurn(
    uses.map((use) => use.call),
    { ...(agent ? { agent } : {}), ...(signal ? { signal } : {}), ...(perCall.size > 0 ? { perCall } : {}) },
  );
  for (const result of results) await reportSuspension(result, options.onSuspended);
  return uses.map((use, i) => toolResultBlock(use.toolUseId, results[i]!, { textOnly: use.origin !== undefined }));
}
