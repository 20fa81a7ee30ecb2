/**
 * What the model reads of a result, for adapters that hand it to a framework: the rendered
 * content, then each `additionalContexts` entry as a text block of its own, in order. (On the
 * model's side there is one result per call; the contexts belong next to it, never to a later
 * turn.) Every adapter maps these blocks to its framework's block type and nothing else, so the
 * model reads the same text whichever loop drives it.
 */
import type { ContentBlock, ToolResult } from './types.js';

/** Content blocks then one text block per additional context. */
export function modelContent(result: Pick<ToolResult, 'content' | 'additionalContexts'>): readonly ContentBlock[] {
  if (result.additionalContexts.length === 0) return result.content;
  return Object.freeze([...result.content, ...result.additionalContexts.map((text) => Object.freeze({ type: 'text' as const, text }))]);
}

/**
 * The same as one string, blocks separated by a blank line, for frameworks whose result (or
 * error, or denial reason) is text only. An image is named, not dropped: `[image: image/png]`.
 */
export function modelText(result: Pick<ToolResult, 'content' | 'additionalContexts'>): string {
  return modelContent(result)
    .map((block) => (block.type === 'text' ? block.text : `[image: ${block.mimeType}]`))
    .join('\n\n');
}
