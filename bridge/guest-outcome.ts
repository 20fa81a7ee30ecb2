/**
 * What a program gets for one call: the final canonical value after post-execute policy (a
 * replace-value is what it reads; a replace-content changes nothing for it), or a readable
 * failure that the guest turns into a `ToolCallError`. Only `toolName` and a message cross: no
 * error kinds, no additional contexts, nothing host-internal. A denial is worded as a binding
 * refusal so a program (and the model reading its output) does not try to route around it.
 *
 * Every denial (a guard, a listener, the approver's no, an approval that timed out or had no
 * one to ask, a post-execute block) starts its message with {@link DENIAL_MESSAGE_PREFIX}, which
 * run_code's description names, so a program tells a denial from a failure without guessing at
 * prose; no other message starts with it (a tool's own error reaches the program as `"name"
 * failed: ...`, a refusal of the bridge as `The call to "name" ...`).
 */
import { takeJsonText, type ToolResult } from '../tools/index.js';

/**
 * What the guest's `await tools.x()` settles with: the JSON text of the value, or the tool name
 * and message of a `ToolCallError`. (Structurally the runtime's `ChildOutcome`.)
 */
export type ChildOutcome =
  | { readonly ok: true; readonly json: string }
  | { readonly ok: false; readonly toolName: string; readonly message: string };

/** The start of every denial's `ToolCallError` message, and of no other (run_code's description names it). */
export const DENIAL_MESSAGE_PREFIX = 'Denied: ';

/** How a child call ended, for the run's `calls` list. */
export type ChildStatus = 'ok' | 'error' | 'denied' | 'deferred';

/**
 * The guest outcome of a pipeline result, its status and the bytes of JSON handed to the program.
 * A large value's text was made while it was materialized (`takeJsonText`): `madeMs` is how long
 * that took, host work done for this call before now.
 */
export function guestOutcomeOf(result: ToolResult): { outcome: ChildOutcome; status: ChildStatus; bytes: number; madeMs: number } {
  const toolName = result.toolName;
  if (!result.isError) {
    const made = takeJsonText(result.value);
    const json = made?.text ?? JSON.stringify(result.value ?? null);
    return { outcome: { ok: true, json }, status: 'ok', bytes: made?.bytes ?? Buffer.byteLength(json, 'utf8'), madeMs: made?.ms ?? 0 };
  }
  if (result.denied) {
    const by = result.denied.by === 'listener' ? 'a policy listener' : result.denied.by === 'guard' ? 'a guard' : 'the approver';
    const message = `${DENIAL_MESSAGE_PREFIX}the call to "${toolName}" was denied by ${by}: ${result.denied.reason}. This decision is final; do not retry or work around it.`;
    return { outcome: { ok: false, toolName, message }, status: 'denied', bytes: 0, madeMs: 0 };
  }
  if (result.blocked) {
    const message = `${DENIAL_MESSAGE_PREFIX}the result of "${toolName}" was withheld by policy: ${result.blocked.reason}. This decision is final; do not retry or work around it.`;
    return { outcome: { ok: false, toolName, message }, status: 'denied', bytes: 0, madeMs: 0 };
  }
  const message = result.error?.message ?? `The call to "${toolName}" failed.`;
  // A durable run holds a deferred call's outcome back (the run suspends); it never reaches the program.
  if (result.deferred) return { outcome: { ok: false, toolName, message }, status: 'deferred', bytes: 0, madeMs: 0 };
  return { outcome: { ok: false, toolName, message }, status: 'error', bytes: 0, madeMs: 0 };
}

/** A failure outcome for a call the bridge refused before the pipeline. */
export function guestFailure(toolName: string, message: string): ChildOutcome {
  return { ok: false, toolName, message };
}
