/**
 * How deeply a program's brackets nest, read before esbuild sees it. esbuild indents each level
 * of its output by two spaces, so what it prints grows with lines x depth: 16 KB of `{{{...}}}`
 * came out as 128 MB after 5.5 s of its time (a loaded machine), and 34 KB passed V8's string
 * limit. This scan refuses such a program at once with the line to flatten. It is a first line,
 * not the bound: nesting without brackets (`if (a) if (b) ...`) or a regular expression it mistakes
 * for a division can get past it, and esbuild's time and output are bounded in transpile.ts.
 *
 * A linear pass over the text: strings, template text, comments and regular expressions are
 * skipped (a `/` starts a regular expression unless the token before it ends an expression);
 * `{`, `(`, `[` and a template's `${` each open a level.
 */

/** The deepest point of a program's brackets. */
export interface ProgramNesting {
  /** Levels open at the deepest point. */
  readonly depth: number;
  /** 1-based line of the text where that depth was first reached. */
  readonly line: number;
}

const OPEN = new Set(['{', '(', '[']);
const CLOSE = new Set(['}', ')', ']']);
/** Words after which `/` starts a regular expression although a word ends most expressions. */
const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

const isWordChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 36 || c === 95 || c > 127;

/** Measures the bracket nesting of `text` (see the file note). Never throws. */
export function measureNesting(text: string): ProgramNesting {
  // Open levels; `true` marks a template's `${`, whose `}` resumes the template text.
  const stack: boolean[] = [];
  let depth = 0;
  let line = 1;
  let deepest = { depth: 0, line: 1 };
  // Whether the last token ends an expression (so a `/` after it divides).
  let endsExpression = false;
  const open = (template: boolean) => {
    stack.push(template);
    if (stack.length > depth) {
      depth = stack.length;
      deepest = { depth, line };
    }
  };
  // Skips template text from `i` (just past a backtick or a `${...}`'s `}`); returns the index after it.
  const templateText = (from: number): number => {
    let i = from;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '\\') i += 2;
      else if (c === '`') return i + 1;
      else if (c === '$' && text[i + 1] === '{') {
        open(true);
        return i + 2;
      } else {
        if (c === '\n') line++;
        i++;
      }
    }
    return i;
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const code = text.charCodeAt(i);
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      for (let k = i; k < stop; k++) if (text.charCodeAt(k) === 10) line++;
      i = stop;
    } else if (c === '"' || c === "'") {
      i++;
      while (i < text.length && text[i] !== c && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
      endsExpression = true;
    } else if (c === '`') {
      i = templateText(i + 1);
      endsExpression = true;
    } else if (c === '/' && !endsExpression) {
      // A regular expression: to its closing `/` outside a class, or the end of the line.
      i++;
      let inClass = false;
      while (i < text.length && text[i] !== '\n') {
        const r = text[i]!;
        if (r === '\\') i++;
        else if (r === '[') inClass = true;
        else if (r === ']') inClass = false;
        else if (r === '/' && !inClass) break;
        i++;
      }
      i++;
      endsExpression = true;
    } else if (OPEN.has(c)) {
      open(false);
      i++;
      endsExpression = false;
    } else if (CLOSE.has(c)) {
      const template = stack.pop();
      i++;
      if (c === '}' && template === true) i = templateText(i);
      endsExpression = true;
    } else if (isWordChar(code)) {
      const start = i;
      while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
      endsExpression = !REGEX_AFTER_WORD.has(text.slice(start, i));
    } else {
      // An operator or punctuation; `++` and `--` end an expression (`a++ / 2`).
      endsExpression = (c === '+' || c === '-') && text[i + 1] === c;
      i += endsExpression ? 2 : 1;
    }
  }
  return deepest;
}
