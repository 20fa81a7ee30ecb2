/**
 * OpenAI's hosted programs calling our tools (Responses API programmatic tool calling: the
 * `programmaticToolCallingTool()` of `@openai/agents-openai`). The model's program runs in
 * OpenAI's sandbox; each call it makes comes back as an ordinary `function_call` item that
 * carries `caller: { type: 'program', callerId }` (the id of the `program` item that made it),
 * and the SDK hands that item to our `execute` as `details.toolCall`.
 *
 * - A tool accepts such calls only when the app opts in (`programmaticCallers: true`, which sets
 *   the SDK's `allowedCallers: ['direct', 'programmatic']`). Without it the SDK refuses a program
 *   call before any tool runs (`ModelBehaviorError`: the run fails, nothing executes).
 * - A program call runs through the same pipeline as a direct one, with origin
 *   `{ kind: 'provider-program', provider: 'openai', callerId }`: policy sees where it came from,
 *   the trace records it, `ptc trace show` marks it. The result goes back as the call's output,
 *   which the SDK sends to the program with the same `caller`.
 * - The caller is provider data: any caller that is not `direct` is taken for a program, and the
 *   host validates its id (a missing or malformed one is refused as `invalid-call`, never run as
 *   the model's own call).
 * - The SDK checks `allowedCallers` only for `type: 'program'`, and takes any other type for a
 *   direct call. So a program's call is honoured only with `type: 'program'` on a tool that
 *   allows programs; any other type, or a program on a tool that does not allow it, is refused
 *   (recorded, unrun). The SDK gives a tool the call item alone, so whether the `program` item it
 *   names is in the same response cannot be checked here (Anthropic's `runToolUses` can).
 */
import type { ToolAllowedCallers } from '@openai/agents-core';
import type { ProviderProgramOrigin } from '../tools/index.js';

/** `allowedCallers` of our tools when the app lets hosted programs call them. */
export const PROGRAMMATIC_CALLERS: ToolAllowedCallers = ['direct', 'programmatic'];

/**
 * The origin of a call whose item carries `caller` (undefined: the model called it directly).
 * What is not a well-formed program caller gives an origin the host refuses.
 */
export function originOfCaller(caller: unknown): ProviderProgramOrigin | undefined {
  let type: unknown;
  let callerId: unknown;
  try {
    if (caller === undefined || caller === null) return undefined;
    ({ type, callerId } = caller as { type?: unknown; callerId?: unknown });
  } catch {
    type = 'unreadable';
  }
  if (type === 'direct') return undefined;
  // Unvalidated on purpose: host.call reads origins itself and refuses a malformed one.
  return { kind: 'provider-program', provider: 'openai', callerId } as ProviderProgramOrigin;
}

/** Why a call with this caller must not run on a tool that does (or does not) allow programs; undefined when it may. */
export function callerRefusal(toolName: string, caller: unknown, programsAllowed: boolean): string | undefined {
  let type: unknown;
  try {
    if (caller === undefined || caller === null) return undefined;
    type = (caller as { type?: unknown }).type;
  } catch {
    return undefined; // an unreadable caller already gets an origin the host refuses
  }
  if (type === 'direct') return undefined;
  const name = JSON.stringify(toolName.slice(0, 200));
  if (type !== 'program') return `The call to ${name} names a caller of type ${JSON.stringify(String(type).slice(0, 100))}: only 'direct' and 'program' are callers. It was not run.`;
  if (!programsAllowed) return `The call to ${name} comes from a hosted program, which the tool does not allow (programmaticCallers is off). It was not run.`;
  return undefined;
}
