/**
 * Untrusted text made visible. Tool and property names, descriptions, error messages and stderr
 * from MCP servers and clients, arguments and errors in traces: all of it is written by someone
 * else and reaches a terminal (the CLI's messages, `ptc trace show`) or a model's prompt (the
 * declarations' JSDoc). Characters that drive a terminal (ESC, CSI and OSC sequences: erased
 * lines, forged prompts, clipboard writes through OSC 52), reorder what is shown (bidi overrides
 * and isolates: U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C) or hide text (zero-width and
 * other format characters, tag characters, line separators, lone surrogates) are written as
 * `\uXXXX` escapes instead: the reader sees that something was there, and where.
 *
 * Shared by every layer that shows such text (cli/, mcp/, codegen's JSDoc), so there is one list.
 */

/**
 * C0 controls except tab and newline, DEL, C1 controls, format characters (Cf: bidi controls,
 * zero-width space and joiners, word joiner, BOM, soft hyphen, tag characters), line and
 * paragraph separators, and lone surrogates. Newline is added when it is escaped too.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/gu;
const UNSAFE_OR_NEWLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/gu;

/** Options of {@link visibleText}. */
export interface VisibleTextOptions {
  /** Keep `\n` (multi-line text such as a server's stderr tail); default: escaped, so the text is one line. */
  readonly newlines?: 'keep' | 'escape';
}

/** `\uXXXX` per UTF-16 unit (a pair above the BMP), so the escape is valid in JSON and JavaScript alike. */
function escapeChar(char: string): string {
  let out = '';
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`;
  return out;
}

/**
 * `text` with every character that could drive a terminal, reorder or hide text written as a
 * visible `\uXXXX` escape (valid inside a JSON string too, so JSON text stays the same JSON). Letters of every script, emoji (their
 * joiners are escaped), punctuation, spaces and tabs stay as they are. Linear in the length.
 */
export function visibleText(text: string, options: VisibleTextOptions = {}): string {
  return text.replace(options.newlines === 'keep' ? UNSAFE : UNSAFE_OR_NEWLINE, escapeChar);
}
