/**
 * `toAnthropicRunnableTools(host)`: the host's tools for the SDK's own loop,
 * `client.beta.messages.toolRunner({ tools })`, which calls each tool's `run` for the model's
 * `tool_use` blocks and sends the results back itself.
 *
 * - `run` goes through `host.call` with the block's id (`context.toolUse.id`) as our call id and
 *   the runner's signal (`context.signal`) as ours; `parse` is the identity, because our
 *   pipeline is the one validator (invalid input is refused there, naming the path).
 * - A failure or denial throws the SDK's `ToolError` with our content: the runner sends exactly
 *   that content with `is_error: true` (any other throw would become its own `Error: ...` text,
 *   which is also what a runner from another copy of the SDK sends). Nothing reaches the app as
 *   an exception.
 * - A call from Claude's program in the code execution tool (`context.toolUse.caller`) runs with
 *   the provider-program origin and gets text only, as in `runToolUses`, when this tool's
 *   `allowed_callers` list the caller's type; otherwise it is refused, unrun. (The runner gives
 *   `run` the block alone, so that the caller's code execution block is in the same message can
 *   only be checked by `runToolUses`.)
 * - Scheduling: the runner starts every call of a reply at once (and, with `runToolsEagerly`,
 *   while the reply still streams), in the model's order. The calls go through a
 *   `StepScheduler`, so the rules of a turn still hold: parallel-safe calls side by side (up to
 *   the host's `maxConcurrency`), an exclusive call a barrier. The runner gives its calls no step
 *   object, so they queue by the runner's signal, and without one share a queue per tool set:
 *   give each runner its own set (or signal), or two runners would wait on each other's
 *   exclusive calls. A queued call still runs in its own async context (the SDK's span).
 * - Approval: the host's channel, as in `runToolUses` (the runner has no approval flow).
 */
import type { BetaRunnableTool, BetaToolRunContext } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import { ToolError, type BetaToolResultContentBlockParam } from '@anthropic-ai/sdk/resources/beta/messages';
import { reportSuspension, StepScheduler, type AgentRef, type CallOptions, type OnSuspended, type ToolHost, type ToolResult } from '../tools/index.js';
import { resultBlocks, resultText } from './results.js';
import { programCallRefusal } from './program-callers.js';
import { originOf } from './tool-uses.js';
import { toAnthropicTools, type AnthropicToolsOptions } from './tools.js';

/** One of our tools as the SDK's tool runner takes it. Its input is whatever the model sent. */
export type AnthropicRunnableTool = BetaRunnableTool<unknown>;

/** Options of {@link toAnthropicRunnableTools}. */
export interface AnthropicRunnableToolsOptions extends AnthropicToolsOptions {
  /** Who the calls run for. The host's approval channel needs one: without it an `ask` is denied. */
  readonly agent?: AgentRef;
  /** Gets every durable run that suspends, with its resume token, as `runToolUses`' option does. */
  readonly onSuspended?: OnSuspended;
}

/**
 * The host's tools (all, or `include` minus `exclude`) as runnable tools for
 * `client.beta.messages.toolRunner`. Throws as `toAnthropicTools` does.
 */
export function toAnthropicRunnableTools(host: ToolHost, options: AnthropicRunnableToolsOptions = {}): AnthropicRunnableTool[] {
  const { agent, onSuspended, ...definitions } = options;
  const steps = new StepScheduler(host);
  return toAnthropicTools(host, definitions).map((definition): AnthropicRunnableTool => {
    const name = definition.name;
    const allowed: ReadonlySet<string> = new Set(definition.allowed_callers ?? []);
    return {
      type: 'custom',
      ...definition,
      parse: (input: unknown) => input,
      async run(input: unknown, context?: BetaToolRunContext): Promise<string | BetaToolResultContentBlockParam[]> {
        const { id, caller, signal } = readContext(context);
        const origin = originOf(caller);
        const call = { id: id as string, name, args: input }; // the pipeline refuses a missing id
        const callOptions: CallOptions = { ...(agent ? { agent } : {}), ...(signal ? { signal } : {}), ...(origin ? { origin } : {}) };
        // The runner hands over the block alone, not its message: the caller's type is checked
        // against this tool's allowed_callers; that its program is in the message, cannot be.
        const callerType = origin && origin.callerId !== '' ? readCallerType(caller) : undefined;
        const refusal = callerType === undefined ? undefined : programCallRefusal({ toolName: name, callerType, toolId: origin!.callerId, codeExecutionIds: undefined, allowed });
        if (refusal !== undefined) {
          const [refused] = await host.runTurn([call], { ...(agent ? { agent } : {}), ...(signal ? { signal } : {}), perCall: new Map([[call.id, { origin: origin!, refusal }]]) });
          throw new ToolError(resultText(refused!));
        }
        // The runner hands its calls no step object; its signal is one per runner (when given).
        const result: ToolResult = await reportSuspension(await steps.call(signal, call, callOptions), onSuspended);
        const blocks = origin ? undefined : resultBlocks(result);
        // The runner always sends a content: an empty result is the empty string.
        const content = blocks === undefined ? resultText(result) : blocks.length > 0 ? blocks : '';
        if (result.isError) throw new ToolError(content);
        return content;
      },
    };
  });
}

function readCallerType(caller: unknown): string | undefined {
  try {
    const type = (caller as { type?: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/** The block id, caller and signal of a run, read once; the runner's context is untrusted too. */
function readContext(context: BetaToolRunContext | undefined): { id: unknown; caller: unknown; signal: AbortSignal | undefined } {
  try {
    const toolUse = context?.toolUse as { id?: unknown; caller?: unknown } | undefined;
    const signal = context?.signal;
    return { id: toolUse?.id, caller: toolUse?.caller, signal: signal instanceof AbortSignal ? signal : undefined };
  } catch {
    return { id: undefined, caller: { unreadable: true }, signal: undefined };
  }
}
