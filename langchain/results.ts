/**
 * Our `ToolResult` as a LangChain `ToolMessage`, the one form a tool call's outcome takes in
 * LangChain and LangGraph:
 *
 * - `content`: what the model reads, our rendered content then each additional context
 *   (`modelContent`): a string when that is one text block, else text, image and audio blocks
 *   (`{ type: 'image' | 'audio', data, mimeType }`, LangChain's standard blocks), resources and
 *   resource links as text that says what they were.
 * - `status`: `'success'`, or `'error'` for every failure and denial; the content then carries
 *   our message (a tool's own error text, the argument path, the denial's reason).
 * - `artifact`: the canonical value after policy, on success only (LangChain never sends an
 *   artifact to the model). A failure has no value; its kind and the denial are in the host's
 *   events.
 * - `tool_call_id`: the LangChain tool call's id, which is also our call id.
 *
 * Why the adapter builds the message itself, rather than `responseFormat:
 * 'content_and_artifact'`: LangChain's formatter sets `status: 'success'` on every message it
 * builds, and that response format throws unless the tool returns a `[content, artifact]` pair,
 * so it has no error form. A tool that returns a `ToolMessage` has it passed through untouched
 * (`isDirectToolOutput`), by `StructuredTool.call` and by LangGraph's `ToolNode` alike, and
 * nothing is thrown: a thrown error would reach the model as ToolNode's
 * "Error: ... Please fix your mistakes." (its `handleToolErrors`), or reject the app's
 * `invoke` where no ToolNode catches it.
 */
import { ToolMessage, type ToolMessageFields } from '@langchain/core/messages';
import { contentBlockText, modelContent, type ToolResult } from '../tools/index.js';

type MessageContent = NonNullable<ToolMessageFields['content']>;

/** What the model reads of `result`, as `ToolMessage` content. */
export function messageContentOf(result: Pick<ToolResult, 'content' | 'additionalContexts'>): MessageContent {
  const blocks = modelContent(result);
  if (blocks.length === 1 && blocks[0]!.type === 'text') return blocks[0]!.text;
  return blocks.map((block) =>
    // Image and audio as LangChain's standard blocks; resources and links as text that says what they were.
    block.type === 'image' || block.type === 'audio' ? { type: block.type, data: block.data, mimeType: block.mimeType } : { type: 'text' as const, text: contentBlockText(block) },
  );
}

/** The `ToolMessage` for `result`, answering LangChain's tool call `toolCallId`. */
export function toolMessageOf(result: ToolResult, toolCallId: string): ToolMessage {
  return new ToolMessage({
    content: messageContentOf(result),
    tool_call_id: toolCallId,
    name: result.toolName,
    status: result.isError ? 'error' : 'success',
    ...(result.isError ? {} : { artifact: result.value ?? null }),
  });
}
