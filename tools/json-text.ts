/**
 * JSON as text for readers: the model (a tool's default content, run_code's result) and traces
 * (the content of a program's calls). Two problems with `JSON.stringify(value, null, 2)`:
 *
 * - Indentation grows with depth: each line of a value nested 500 deep carries 1,000 spaces,
 *   and a 15 KB result became 7.5 MB of text. {@link readableJson} pretty-prints only while
 *   that adds at most twice the compact text (or at most 1 KiB): deep or very narrow values are
 *   shown compact. The overhead is counted without building the pretty text.
 * - A program's calls put their content into every `tool/result` event though no model reads it
 *   (the program gets the value): a 120 KB argument echoed back was 7.7 MB of indented text per
 *   event. {@link jsonPreview} is a bounded compact preview that stops building once it has
 *   enough, whatever the value's size.
 */
import type { JsonValue } from './json.js';

/** Pretty-printing may add at most this factor of the compact text (or {@link PRETTY_SLACK_CHARS}). */
const PRETTY_OVERHEAD_FACTOR = 2;
const PRETTY_SLACK_CHARS = 1_024;
/**
 * Compact text longer than this is not indented: no reader scans a megabyte of JSON by eye, and
 * indenting 10 MB of rows (counting the overhead, then `JSON.stringify(value, null, 2)`) held
 * the host's event loop for ~250 ms in one go here, where the compact text is made in slices.
 */
export const PRETTY_MAX_CHARS = 1 << 20;

/**
 * The value as JSON text a reader can scan: indented by two spaces, unless indenting would at
 * least triple the text (over 1 KiB more), or the compact text is over
 * {@link PRETTY_MAX_CHARS}, then compact. `compact`: `JSON.stringify(value)` if the caller has
 * it already.
 */
export function readableJson(value: JsonValue, compact: string = JSON.stringify(value)): string {
  if (value === null || typeof value !== 'object' || compact.length > PRETTY_MAX_CHARS) return compact;
  const allowed = Math.max(PRETTY_SLACK_CHARS, compact.length * PRETTY_OVERHEAD_FACTOR);
  return prettyOverhead(value, allowed) <= allowed ? JSON.stringify(value, null, 2) : compact;
}

/**
 * Characters `JSON.stringify(value, null, 2)` adds to `JSON.stringify(value)`, counted by a
 * walk; stops as soon as the count passes `stopAbove`. Per non-empty container at depth d with
 * k members: each member's newline and indent (1 + 2(d + 1)), the closing line's (1 + 2d), and
 * for an object the space after each colon.
 */
function prettyOverhead(root: JsonValue, stopAbove: number): number {
  let total = 0;
  const stack: [JsonValue, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    const isArray = Array.isArray(value);
    const children: JsonValue[] = isArray ? value : Object.values(value);
    if (children.length === 0) continue;
    total += children.length * (1 + 2 * (depth + 1)) + 1 + 2 * depth + (isArray ? 0 : children.length);
    if (total > stopAbove) return total;
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return total;
}

/**
 * Compact JSON of `value`, cut at about `maxChars` characters with a note saying how much there
 * was; builds at most that much (a string member is escaped only as far as needed).
 */
export function jsonPreview(value: JsonValue, maxChars: number): string {
  const parts: string[] = [];
  let length = 0;
  let cut = false;
  const push = (text: string) => {
    parts.push(text);
    length += text.length;
    if (length > maxChars) cut = true;
  };
  const visit = (v: JsonValue): void => {
    if (cut) return;
    if (typeof v === 'string') {
      // Escaping only lengthens: a slice of what is still missing is enough.
      push(JSON.stringify(v.length > maxChars - length + 1 ? v.slice(0, Math.max(0, maxChars - length + 1)) : v));
      return;
    }
    if (v === null || typeof v !== 'object') {
      push(JSON.stringify(v));
      return;
    }
    if (Array.isArray(v)) {
      push('[');
      for (let i = 0; i < v.length && !cut; i++) {
        if (i > 0) push(',');
        visit(v[i]!);
      }
      if (!cut) push(']');
      return;
    }
    push('{');
    let first = true;
    for (const key of Object.keys(v)) {
      if (cut) return;
      if (!first) push(',');
      first = false;
      push(`${JSON.stringify(key)}:`);
      visit(v[key]!);
    }
    if (!cut) push('}');
  };
  // An iterative walk would avoid the stack, but canonical values were copied by a recursive
  // walk already (step 7): what got this far is shallow enough.
  visit(value);
  const text = parts.join('');
  if (!cut) return text;
  return `${text.slice(0, maxChars)} … (cut at ${maxChars} characters; the whole value is in \`value\`)`;
}
