/** Step 9: content for the model from the final value. */
import type { Tool } from './define-tool.js';
import type { JsonValue } from './json.js';
import type { ContentBlock } from './types.js';

/** Content blocks checked and frozen; throws a TypeError naming what was wrong. */
export function checkContent(content: unknown, who: string): readonly ContentBlock[] {
  if (typeof content === 'string') return Object.freeze([Object.freeze({ type: 'text' as const, text: content })]);
  if (!Array.isArray(content)) throw new TypeError(`${who} must return content blocks or a string`);
  return Object.freeze(
    content.map((block, i) => {
      const b = block as Record<string, unknown> | null;
      if (b?.type === 'text' && typeof b.text === 'string') return Object.freeze({ type: 'text' as const, text: b.text });
      if (b?.type === 'image' && typeof b.data === 'string' && typeof b.mimeType === 'string') {
        return Object.freeze({ type: 'image' as const, data: b.data, mimeType: b.mimeType });
      }
      throw new TypeError(`${who}: content[${i}] is not a text or image block`);
    }),
  );
}

/** Renders with the tool's `output.render`, or as the string itself / pretty JSON. Throws on a bad render. */
export function renderContent(tool: Tool, args: JsonValue, value: JsonValue): readonly ContentBlock[] {
  if (tool.output.render) return checkContent(tool.output.render(args, value), `tool "${tool.name}": output.render`);
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return Object.freeze([Object.freeze({ type: 'text' as const, text })]);
}

/** A single text block. */
export function textContent(text: string): readonly ContentBlock[] {
  return Object.freeze([Object.freeze({ type: 'text' as const, text })]);
}
