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
 * error, or denial reason) is text only. A block that is not text is named, not dropped: `[image: image/png]` ({@link contentBlockText}).
 */
export function modelText(result: Pick<ToolResult, 'content' | 'additionalContexts'>): string {
  return modelContent(result)
    .map(contentBlockText)
    .join('\n\n');
}

/**
 * A block as text, for a framework with no form for it: text as itself, anything else a stand-in
 * that says what it was (`[image: image/png]`, `[audio: audio/wav]`, `[resource_link: name <uri>]`);
 * an embedded text resource keeps its text under a `[resource: uri]` line.
 */
export function contentBlockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}]`;
    case 'resource': {
      const r = block.resource;
      const head = `[resource: ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}`;
      return 'text' in r ? `${head}]\n${r.text}` : `${head}, binary, ${Math.floor((r.blob.length * 3) / 4)} bytes]`;
    }
    case 'resource_link':
      return `[resource_link: ${block.title ?? block.name} <${block.uri}>${block.mimeType ? ` (${block.mimeType})` : ''}${block.description ? ` ${block.description}` : ''}]`;
  }
}
