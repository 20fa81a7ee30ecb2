/** Type nodes as the text a model reads: TypeScript's printer, with readable string literals. */
import type ts from './typescript-module.cjs';
import zodToTsModule from './zod-to-ts-module.cjs';

const { printNode } = zodToTsModule;

/** A type node as text (4-space indentation), string literals readable ({@link unescapeLiterals}). */
export function printTypeNode(node: ts.TypeNode | ts.TypeAliasDeclaration): string {
  return unescapeLiterals(printNode(node));
}

/** A `"…"`, `'…'` or `` `…` `` literal, or a comment (matched so that it is skipped). */
const LITERAL_OR_COMMENT = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\[\s\S])*`/g;
/** An escaped backslash (kept, so `\\u00FC` stays), a surrogate pair or one `\uXXXX`. */
const ESCAPE = /\\\\|\\u(D[89AB][0-9A-F]{2})\\u(D[C-F][0-9A-F]{2})|\\u([0-9A-F]{4})/gi;
/**
 * Shown as themselves: letters, marks, digits, punctuation, symbols. Not controls, format
 * characters (bidi overrides, zero-width), separators or lone surrogates.
 */
const READABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function readable(codePoint: number): string | undefined {
  // The printer escapes no printable ASCII this way; never unescape a quote or a backslash.
  if (codePoint < 0x80) return undefined;
  const char = String.fromCodePoint(codePoint);
  return READABLE.test(char) ? char : undefined;
}

/**
 * TypeScript's printer escapes every non-ASCII character of a synthesized literal
 * (`"Z\u00FCrich"`). The declarations are the model's prompt, so the readable ones are put back
 * (`"Zürich"`, `"東京"`, emoji), in string and template literals only (a comment's text is the
 * author's). What could hide or reorder text (bidi overrides, zero-width and other invisible
 * characters, line separators, lone surrogates) stays escaped.
 */
export function unescapeLiterals(text: string): string {
  if (!text.includes('\\u')) return text;
  return text.replace(LITERAL_OR_COMMENT, (token) => {
    if (token.startsWith('/')) return token;
    return token.replace(ESCAPE, (escape, high?: string, low?: string, single?: string) => {
      if (high !== undefined && low !== undefined) {
        const codePoint = 0x10000 + ((parseInt(high, 16) - 0xd800) << 10) + (parseInt(low, 16) - 0xdc00);
        return readable(codePoint) ?? escape;
      }
      if (single === undefined) return escape;
      const codePoint = parseInt(single, 16);
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) return escape; // a lone surrogate
      return readable(codePoint) ?? escape;
    });
  });
}
