/**
 * JSDoc text from tool and schema descriptions. Descriptions are written by tool authors or sent
 * by remote MCP servers, so they are untrusted: a `*\/` inside one would close the comment and
 * turn the rest into declarations the model's code is checked against. Every description goes
 * through {@link jsDocLines} before it reaches generated text. Controls, bidi overrides and
 * zero-width characters would reorder or hide what the model reads: they are written as visible
 * `\uXXXX` escapes (the shared {@link visibleText}).
 */
import { visibleText } from '../tools/index.js';

/** Splits a description into clean comment lines: no `*\/`, nothing invisible, no trailing spaces, no blank edges. */
export function jsDocLines(text: string): string[] {
  const lines = text
    .replace(/\r\n?/g, '\n')
    // Line and paragraph separators end a line for some readers: treat them as newlines.
    .replace(/[\u2028\u2029]/g, '\n')
    .split('\n')
    .map((line) => visibleText(line.replace(/\*\//g, '*\\/')).trimEnd());
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines;
}

/**
 * The inner text of a JSDoc block comment for `ts.addSyntheticLeadingComment` (which wraps it in
 * `/*` and `*\/`): one line as `* text `, several as `*\n * a\n * b\n `. Undefined when empty.
 */
export function jsDocCommentBody(text: string): string | undefined {
  const lines = jsDocLines(text);
  if (lines.length === 0) return undefined;
  if (lines.length === 1) return `* ${lines[0]} `;
  return `*\n${lines.map((line) => (line ? ` * ${line}` : ' *')).join('\n')}\n `;
}
