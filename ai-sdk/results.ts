/**
 * Our `ToolResult` in the AI SDK's terms: what `execute` returns (the app's view), what it
 * throws, and what `toModelOutput` gives the model.
 *
 * - Success: `execute` returns the canonical value, so `toolResults[i].output`, UI message
 *   parts and callbacks carry exactly what programs get. The model reads our rendered content
 *   plus `additionalContexts` (`{ type: 'text' }` for one text block, else `{ type: 'content' }`).
 * - Failure: `execute` throws an {@link AiSdkToolError} carrying the result. The SDK catches it
 *   (it never reaches the app as an exception): the step gets a `tool-error` part, the UI an
 *   `output-error` state, and the model `error-text` with our message. (Verified in ai 6 and 7:
 *   a thrown `execute` is the SDK's only error form; returning a value whose model output is
 *   `error-text` would show the app a successful result.)
 * - Denial: `execute` returns a {@link DeniedToolOutput} (there is no value), and the model
 *   reads `execution-denied` with our message as the reason, the SDK's own denied form.
 *
 * `toModelOutput` gets `{ toolCallId, input, output }`, and the output alone does not say what
 * the model should read (content can differ from the value: `output.render`, a post-execute
 * `replace-content`, additional contexts). So `execute` leaves the result in a `WeakMap` keyed
 * by the SDK's own `input` object for the call (the same object reaches `toModelOutput` in
 * generateText and streamText, ai 6 and 7, approval replays included), checked against the
 * call id. The SDK reads it once or, in ai 6's streamText, twice; the entry goes when the SDK
 * drops the call, so nothing needs deleting and nothing leaks. When it is missing (messages
 * converted again in a later request, `convertToModelMessages`), the model reads the value as
 * JSON (or the string), and a denial by its own marker: what was rendered is not stored in
 * messages, so it cannot be shown again.
 */
import * as ai from 'ai';
import type { Tool } from 'ai';
import { contentBlockText, modelContent, modelText, PtcError, type DeniedBy, type JsonValue, type ToolResult } from '../tools/index.js';

/** The model output type of the installed AI SDK (`ToolResultOutput`, not exported by name). */
export type AiSdkModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

/** What the app sees as the output of a call our pipeline denied: there is no value. */
export interface DeniedToolOutput {
  readonly type: 'ptc-runtime/denied';
  /** Who refused it: a policy listener, a guard, or the approver. */
  readonly by: DeniedBy;
  readonly reason: string;
  /** What the model read: our message and any additional contexts. */
  readonly message: string;
}

/**
 * A call failed (unknown tool, invalid arguments, a throwing tool, a block, an abort). Thrown
 * inside the SDK's `execute` only, where the SDK turns it into a `tool-error` part; `result` is
 * our whole result. `toString()` is the message alone, because ai 7 shows the model
 * `error.toString()` (ai 6 `error.message`): either way the model reads our text.
 */
export class AiSdkToolError extends PtcError {
  override readonly name = 'AiSdkToolError';
  readonly toolName: string;
  constructor(readonly result: ToolResult) {
    super(modelText(result));
    this.toolName = result.toolName;
  }
  override toString(): string {
    return this.message;
  }
}

/** The app's view of a denial. */
export function deniedOutput(result: ToolResult): DeniedToolOutput {
  return Object.freeze({ type: 'ptc-runtime/denied', by: result.denied!.by, reason: result.denied!.reason, message: modelText(result) });
}

/** Whether an output read back from messages is our denial marker. */
export function isDeniedOutput(output: unknown): output is DeniedToolOutput {
  if (typeof output !== 'object' || output === null) return false;
  const o = output as Record<string, unknown>;
  return o.type === 'ptc-runtime/denied' && typeof o.message === 'string' && typeof o.reason === 'string';
}

/**
 * ai 7 takes an image as `{ type: 'file', mediaType, data: { type: 'data', data } }` and warns on
 * `image-data`; ai 6 knows only `image-data`. ai 7 is the major that added `isStepCount`.
 */
const FILE_CONTENT = 'isStepCount' in ai;

type ContentPart = Extract<AiSdkModelOutput, { type: 'content' }>['value'][number];

function imagePart(data: string, mediaType: string): ContentPart {
  return FILE_CONTENT ? { type: 'file', mediaType, data: { type: 'data', data } } : { type: 'image-data', data, mediaType };
}

/** What the model reads for one result. */
export function modelOutputOf(result: ToolResult): AiSdkModelOutput {
  if (result.denied) return { type: 'execution-denied', reason: modelText(result) };
  const blocks = modelContent(result);
  if (blocks.length === 1 && blocks[0]!.type === 'text') return { type: 'text', value: blocks[0]!.text };
  // Images and audio as media parts; resources and links as text that says what they were.
  return { type: 'content', value: blocks.map((b) => (b.type === 'image' || b.type === 'audio' ? imagePart(b.data, b.mimeType) : { type: 'text' as const, text: contentBlockText(b) })) };
}

/** What the model reads when the result is no longer at hand: from the output alone. */
export function modelOutputOfStored(output: unknown): AiSdkModelOutput {
  if (isDeniedOutput(output)) return { type: 'execution-denied', reason: output.message };
  if (typeof output === 'string') return { type: 'text', value: output };
  return { type: 'json', value: (output ?? null) as JsonValue as AiSdkJsonValue };
}

type AiSdkJsonValue = Extract<AiSdkModelOutput, { type: 'json' }>['value'];

/** Results between `execute` and `toModelOutput`, held by the SDK's input object for the call. */
export class ResultStore {
  readonly #byInput = new WeakMap<object, { readonly toolCallId: string; readonly result: ToolResult }>();

  /** Keeps `result` for as long as the SDK holds `input` (an object: tool inputs are JSON objects). */
  set(input: unknown, result: ToolResult): void {
    if (typeof input === 'object' && input !== null) this.#byInput.set(input, { toolCallId: result.callId, result });
  }

  /** The result of call `toolCallId` whose input is `input`, if still held. */
  get(input: unknown, toolCallId: unknown): ToolResult | undefined {
    if (typeof input !== 'object' || input === null) return undefined;
    const entry = this.#byInput.get(input);
    return entry !== undefined && entry.toolCallId === toolCallId ? entry.result : undefined;
  }
}
