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

/**
 * Renders with the tool's `output.render`, or as the string itself / pretty JSON. Throws on a bad
 * render. `deferJson`: render the pretty JSON when its text is first read (see
 * {@link prettyJsonContent}).
 */
export function renderContent(tool: Tool, args: JsonValue, value: JsonValue, deferJson = false): readonly ContentBlock[] {
  if (tool.output.render) return checkContent(tool.output.render(args, value), `tool "${tool.name}": output.render`);
  if (typeof value === 'string') return textContent(value);
  return deferJson && !isSmallFlat(value) ? prettyJsonContent(value) : textContent(JSON.stringify(value, null, 2));
}

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
 * The value as pretty JSON, rendered when `text` is first read: for a program's calls, whose
 * content nobody may read (the program gets the value; the model sees only the run's output),
 * and where rendering a large result cost more than the rest of the pipeline. The value is
 * frozen canonical JSON, so the text is the same whenever it is read. (`text` is an accessor,
 * which the strict JSON copier refuses; that is why calls from a model get plain blocks.)
 */
function prettyJsonContent(value: JsonValue): readonly ContentBlock[] {
  let text: string | undefined;
  const block = {
    type: 'text' as const,
    get text(): string {
      return (text ??= prettyJson(value));
    },
  };
  return Object.freeze([Object.freeze(block)]);
}

function prettyJson(value: JsonValue): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    // Only a value too large for one string gets here (canonical JSON has no cycles or BigInts).
    return '(the result is too large to show as text; its value is intact)';
  }
}

/** A single text block. */
export function textContent(text: string): readonly ContentBlock[] {
  return Object.freeze([Object.freeze({ type: 'text' as const, text })]);
}
