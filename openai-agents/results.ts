/**
 * Our `ToolResult` in the Agents SDK's terms: what the model reads (the tool's output), and what
 * the app reads (the output item's `customData.ptc`).
 *
 * - The model reads our rendered content plus `additionalContexts`: one text block is returned
 *   as a string, anything else as `ToolOutputText` / `ToolOutputImage` items (one per block, so
 *   a context stays a part of its own next to the result).
 * - A failure or a denial is output too: the Responses API's `function_call_output` has no
 *   error flag, so the model reads our message (a tool's own error text, `Invalid arguments for
 *   "x": args.q: ...`, or a denial's `The call to "x" was denied by ...: <reason>`). `execute`
 *   never throws for a failed call: a throw would reach the model as the SDK's fixed "An error
 *   occurred while running the tool. Please try again." and hide our message (verified in
 *   0.20.0: the default `errorFunction` drops the error's text).
 * - The app reads {@link AgentsCallData} from `RunToolCallOutputItem.customData.ptc`: call id,
 *   host tool name, `isError`, the canonical value after policy, the denial, the error kind.
 *   `execute` returns content, not the value, so the value travels beside it: `execute` leaves
 *   the result in a {@link ResultStore} keyed by the run's `RunContext` (the same object reaches
 *   `customDataExtractor`) and call id, and the extractor takes it out. A result whose output item
 *   is never built (the run was cancelled in between) goes with its `RunContext`: nothing leaks.
 */
import type { RunContext, ToolOutputImage, ToolOutputText } from '@openai/agents-core';
import { contentBlockText, modelContent, type DeniedBy, type JsonValue, type ToolErrorKind, type ToolResult } from '../tools/index.js';

/** The key of our data in `RunToolCallOutputItem.customData`. */
export const CUSTOM_DATA_KEY = 'ptc';

/** What one call did, for the app: `customData.ptc` of its `RunToolCallOutputItem`. JSON. */
export interface AgentsCallData {
  /** The framework's call id, which is ours too (every host event of the call carries it). */
  readonly callId: string;
  /** The host's name of the tool (the model's may differ: see `toAgentsTools`). */
  readonly toolName: string;
  readonly isError: boolean;
  /** The canonical value after post-execute policy, what a program would get. Absent on error. */
  readonly value?: JsonValue;
  /** Set when the call was refused before its body ran. */
  readonly denied?: { readonly by: DeniedBy; readonly reason: string };
  /** Set on every error: its kind and the readable message (what the model read). */
  readonly error?: { readonly kind: ToolErrorKind; readonly message: string };
}

/** What `execute` returns: the model's reading of the result. */
export type AgentsToolOutput = string | (ToolOutputText | ToolOutputImage)[];

/** The model's reading of a result: our content and additional contexts. */
export function modelOutputOf(result: ToolResult): AgentsToolOutput {
  const blocks = modelContent(result);
  if (blocks.length === 0) return '';
  if (blocks.length === 1 && blocks[0]!.type === 'text') return blocks[0]!.text;
  // The Agents SDK's tool outputs are text, images and files: audio and resources become text that says what they were.
  return blocks.map((b) => (b.type === 'image' ? { type: 'image' as const, image: { data: b.data, mediaType: b.mimeType } } : { type: 'text' as const, text: contentBlockText(b) }));
}

/** The app's record of a result (only JSON: the SDK refuses `undefined` in custom data). */
export function callDataOf(result: ToolResult): AgentsCallData {
  return {
    callId: result.callId,
    toolName: result.toolName,
    isError: result.isError,
    ...(result.value !== undefined ? { value: result.value } : {}),
    ...(result.denied ? { denied: { by: result.denied.by, reason: result.denied.reason } } : {}),
    ...(result.error ? { error: { kind: result.error.kind, message: result.error.message } } : {}),
  };
}

const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/**
 * Our record of a call, read from a `RunToolCallOutputItem` (a run's `newItems`, a stream
 * event's item, or one restored with `RunState.fromString`), or undefined when the item is not
 * one of our tools' outputs. Read defensively: restored state is data.
 */
export function agentsCallData(item: unknown): AgentsCallData | undefined {
  try {
    const data = obj(obj(obj(item)?.customData)?.[CUSTOM_DATA_KEY]);
    if (!data || typeof data.callId !== 'string' || typeof data.toolName !== 'string' || typeof data.isError !== 'boolean') return undefined;
    return data as unknown as AgentsCallData;
  } catch {
    return undefined;
  }
}

/** Results between `execute` and `customDataExtractor`, by run and call id. */
export class ResultStore {
  readonly #byRun = new WeakMap<object, Map<string, ToolResult>>();

  /** Keeps `result` for the output item of call `callId` (the SDK's id) in this run. */
  set(run: RunContext | undefined, callId: unknown, result: ToolResult): void {
    if (run === undefined || typeof callId !== 'string') return;
    let byCall = this.#byRun.get(run);
    if (!byCall) this.#byRun.set(run, (byCall = new Map()));
    byCall.set(callId, result);
  }

  /** The result of call `callId` in this run, removed from the store. */
  take(run: RunContext | undefined, callId: unknown): ToolResult | undefined {
    if (run === undefined || typeof callId !== 'string') return undefined;
    const byCall = this.#byRun.get(run);
    const result = byCall?.get(callId);
    byCall?.delete(callId);
    return result;
  }

  /** How many results this run still holds (for tests: every output item took its own). */
  pending(run: RunContext): number {
    return this.#byRun.get(run)?.size ?? 0;
  }
}
