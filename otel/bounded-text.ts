/**
 * Text for span attributes, never longer than asked. Values opted in to a trace (arguments,
 * results) can be megabytes: `boundedJson` writes JSON and stops as soon as the limit is reached,
 * so a 50 MB result costs the limit, not a full `JSON.stringify`. Anything that is not plain JSON
 * (a cycle, a getter that throws, a BigInt: events are frozen JSON, but `host.emit` is public) is
 * written as a note, never thrown.
 */

/** Longest text attribute the sink writes apart from opted-in values (names, reasons, messages). */
export const MAX_TEXT_CHARS = 1024;
/** Nesting beyond this is written as a note: the walk is recursive. */
const MAX_DEPTH = 64;

const CUT = Symbol('cut');

/** `text` cut to `max` characters, saying where and of how many. */
export function boundedText(text: string, max = MAX_TEXT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[cut at ${max} of ${text.length} chars]`;
}

/** A string read from an untrusted field, bounded; `undefined` when it is not a non-empty string. */
export function textField(value: unknown, max = MAX_TEXT_CHARS): string | undefined {
  return typeof value === 'string' && value !== '' ? boundedText(value, max) : undefined;
}

/** JSON of `value`, at most `max` characters (then `…[cut at max chars]`). Never throws. */
export function boundedJson(value: unknown, max: number): string {
  const parts: string[] = [];
  let length = 0;
  const put = (text: string) => {
    if (length + text.length > max) {
      parts.push(text.slice(0, max - length));
      throw CUT;
    }
    parts.push(text);
    length += text.length;
  };
  // A string longer than the room left is cut before it is escaped: escaping a huge string is the cost this avoids.
  const putString = (text: string) => put(JSON.stringify(text.length > max - length ? text.slice(0, max - length + 1) : text));
  const walk = (node: unknown, depth: number): void => {
    if (node === null || typeof node === 'boolean') return put(String(node));
    if (typeof node === 'number') return put(Number.isFinite(node) ? String(node) : 'null');
    if (typeof node === 'string') return putString(node);
    if (typeof node !== 'object') return put('null');
    if (depth >= MAX_DEPTH) return put('"[nested too deeply]"');
    if (Array.isArray(node)) {
      put('[');
      for (let i = 0; i < node.length; i++) {
        if (i > 0) put(',');
        walk(node[i], depth + 1);
      }
      return put(']');
    }
    put('{');
    let first = true;
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
      if (!first) put(',');
      first = false;
      putString(key);
      put(':');
      walk(child, depth + 1);
    }
    put('}');
  };
  try {
    walk(value, 0);
    return parts.join('');
  } catch (err) {
    if (err === CUT) return `${parts.join('')}…[cut at ${max} chars]`;
    // A hostile value (a throwing getter, a revoked proxy): say so, keep what was written.
    return `${parts.join('')}…[unreadable value]`;
  }
}
