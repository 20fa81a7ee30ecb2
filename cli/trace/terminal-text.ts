/**
 * The one way trace text reaches a terminal. `ptc trace` builds its output as lines of spans
 * (plain text, or text with a style) and {@link terminalText} turns them into characters: every
 * span's text, whatever field of whatever event it came from, is escaped (controls, bidi
 * overrides and isolates, zero-width and other invisible characters as `\uXXXX`; a newline as
 * `⏎`), and the only escape sequences in the result are the colour codes it adds itself for a
 * style. A renderer has no way to put raw text on the terminal, so a new field cannot skip the
 * escaping, and a cursor-up sequence in a trace can never paint over the verdict.
 *
 * Resume tokens are hidden here too (`[resume token <digest>]`), for traces no writer redacted.
 */
import { redactResumeTokens, visibleText } from '../../tools/index.js';

/** Styles a span may have; colour is applied only when the output is a terminal. */
export type Style = 'red' | 'green' | 'yellow' | 'magenta' | 'dim' | 'bold';

/** Text with a style. */
export interface Styled {
  readonly style: Style;
  readonly text: string;
}

/** A piece of a line: plain text or styled text. Both are escaped on output. */
export type Span = string | Styled;

/** One line of output. */
export type TextLine = readonly Span[];

const SGR: Readonly<Record<Style, number>> = { red: 31, green: 32, yellow: 33, magenta: 35, dim: 2, bold: 1 };

/** `text` in `style`. */
export const styled = (style: Style, text: string): Styled => ({ style, text });

/** One piece of untrusted text, safe for a terminal line (see the file note). */
export function printable(text: string): string {
  return visibleText(redactResumeTokens(text).replace(/\n/g, '⏎'));
}

/** Lines as terminal text, each ended by `\n`: every span escaped, colour codes only from styles. */
export function terminalText(lines: readonly TextLine[], options: { readonly color?: boolean } = {}): string {
  let out = '';
  for (const line of lines) {
    for (const span of line) {
      if (typeof span === 'string') out += printable(span);
      else out += options.color ? `\u001b[${SGR[span.style]}m${printable(span.text)}\u001b[0m` : printable(span.text);
    }
    out += '\n';
  }
  return out;
}
