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
