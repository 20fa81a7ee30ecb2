/**
 * Our `ToolResult` as what the Messages API takes back: a `tool_result` block whose content is
 * what the model reads (our rendered content, then each `additionalContexts` entry as a text
 * block of its own), with `is_error: true` for a failure or a denial (whose reason is the text).
 * The canonical value stays with the app (the host's events); the API has no place for it.
 *
 * - Images go as base64 `image` blocks when the API takes their type (jpeg, png, gif, webp);
 *   another type is named in a text block instead, never dropped without a word.
 * - A call from a program in Anthropic's code execution tool gets text only, as one string:
 *   the program reads the result's text (an image is named, `[image: image/png]`). Its
 *   additional contexts are part of that text, since a reply to a program's calls may hold
 *   `tool_result` blocks only.
 * - Empty text blocks are left out (the API refuses them); a result with nothing left to show
 *   has no `content`.
 */
import type { Base64ImageSource, ImageBlockParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { contentBlockText, modelContent, modelText, type ContentBlock, type ToolResult } from '../tools/index.js';

/** The image types the Messages API takes in a base64 source. */
const IMAGE_TYPES: ReadonlySet<string> = new Set<string>(['image/jpeg', 'image/png', 'image/gif', 'image/webp'] satisfies Base64ImageSource['media_type'][]);

/** One text or image block of what the model reads. */
export type AnthropicResultBlock = TextBlockParam | ImageBlockParam;

/** What the model reads of `result`, as Messages API blocks. */
export function resultBlocks(result: Pick<ToolResult, 'content' | 'additionalContexts'>): AnthropicResultBlock[] {
  const blocks: AnthropicResultBlock[] = [];
  for (const block of modelContent(result)) {
    const mapped = toBlock(block);
    if (mapped.type !== 'text' || mapped.text !== '') blocks.push(mapped);
  }
  return blocks;
}

/** What a provider's program reads of `result`: its text, one string. */
export function resultText(result: Pick<ToolResult, 'content' | 'additionalContexts'>): string {
  return modelText(result);
}

/** The `tool_result` block answering `toolUseId` with `result`. */
export function toolResultBlock(toolUseId: string, result: ToolResult, { textOnly }: { readonly textOnly: boolean }): ToolResultBlockParam {
  const content = textOnly ? resultText(result) : resultBlocks(result);
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    ...(content.length > 0 ? { content } : {}),
    ...(result.isError ? { is_error: true } : {}),
  };
}

function toBlock(block: ContentBlock): AnthropicResultBlock {
  if (block.type === 'text') return { type: 'text', text: block.text };
  // The Messages API takes no audio or resource blocks in a tool result: text that says what it was.
  if (block.type !== 'image') return { type: 'text', text: contentBlockText(block) };
  if (IMAGE_TYPES.has(block.mimeType)) {
    return { type: 'image', source: { type: 'base64', media_type: block.mimeType as Base64ImageSource['media_type'], data: block.data } };
  }
  return { type: 'text', text: `[image: ${block.mimeType}, not sent: the Messages API takes image/jpeg, image/png, image/gif or image/webp]` };
}
