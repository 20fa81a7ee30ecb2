/** Step 9: content for the model from the final value. */
import type { Tool } from './tool-types.js';
import { clipText } from './errors.js';
import type { JsonValue } from './json.js';
import { jsonPreview, readableJson } from './json-text.js';
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

/**
 * Renders with the tool's `output.render`, or as the string itself, or as JSON: for a model's
 * call {@link readableJson} (indented unless that explodes), for a program's call
 * (`forProgram`) a bounded compact preview (4 KiB), made when its text is first read: nobody
 * may read it (the program gets the value; the model sees only the run's output), yet every
 * `tool/result` event carries it. Throws on a bad render.
 */
export function renderContent(tool: Tool, args: JsonValue, value: JsonValue, forProgram = false): readonly ContentBlock[] {
  if (tool.output.render) return checkContent(tool.output.render(args, value), `tool "${tool.name}": output.render`);
  if (typeof value === 'string') return forProgram && value.length > CHILD_CONTENT_CHARS ? lazyText(() => clipText(value, CHILD_CONTENT_CHARS)) : textContent(value);
  if (!forProgram) return textContent(readableJson(value));
  return isSmallFlat(value) ? textContent(JSON.stringify(value)) : lazyText(() => jsonPreview(value, CHILD_CONTENT_CHARS));
}

/** Most characters of a program's call's content (a preview; the value is whole). */
export const CHILD_CONTENT_CHARS = 4 * 1024;

/** At most 8 entries, none an object or array: rendering at once is cheaper than deferring it. */
function isSmallFlat(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object') return true;
  let n = 0;
  if (Array.isArray(value)) {
    if (value.length > 8) return false;
    for (const item of value) if (item !== null && typeof item === 'object') return false;
    return true;
  }
  for (const key in value) {
    const item = value[key];
    if (++n > 8 || (item !== null && typeof item === 'object')) return false;
  }
  return true;
}

/**
 * A text block whose text is made when first read. The value behind it is frozen canonical
 * JSON, so the text is the same whenever it is read. (`text` is an accessor, which the strict
 * JSON copier refuses; that is why calls from a model get plain blocks.)
 */
function lazyText(make: () => string): readonly ContentBlock[] {
  let text: string | undefined;
  const block = {
    type: 'text' as const,
    get text(): string {
      return (text ??= make());
    },
  };
  return Object.freeze([Object.freeze(block)]);
}

/** A single text block. */
export function textContent(text: string): readonly ContentBlock[] {
  return Object.freeze([Object.freeze({ type: 'text' as const, text })]);
}
