/**
 * TypeScript -> JavaScript for one program, with esbuild's `transformSync` (about 1 ms warm,
 * against 5-10 ms for `ts.transpileModule`). esbuild reprints the code (type-only lines vanish,
 * statements may move), so it is not line-preserving by itself: a source map maps each line of
 * the output back to the program's line, so a runtime error points at the line the model wrote.
 * Only types are stripped; nothing is down-levelled (the isolate runs ES2022+).
 */
import { transformSync, type Message } from 'esbuild';

const WRAPPER_HEAD = 'async function __ptc_program__() {';

/** A transpiled program body. */
export interface TranspiledProgram {
  /** JavaScript: the body of an async function. */
  readonly js: string;
  /** Maps a 1-based line of `js` to the 1-based line of the TypeScript body (or undefined). */
  readonly bodyLineOf: (jsLine: number) => number | undefined;
}

/** A syntax error, at a 1-based line and column of the TypeScript body. */
export interface TranspileError {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** Transpiles an async function body. Returns errors (body lines) instead of throwing for bad syntax. */
export function transpileProgram(body: string): { ok: true; program: TranspiledProgram } | { ok: false; errors: TranspileError[] } {
  const source = `${WRAPPER_HEAD}\n${body}\n}`;
  let code: string;
  let map: string;
  try {
    const out = transformSync(source, { loader: 'ts', target: 'es2022', sourcemap: 'external', sourcefile: 'program.ts', logLevel: 'silent' });
    code = out.code;
    map = out.map;
  } catch (err) {
    const errors = (err as { errors?: Message[] }).errors;
    if (!Array.isArray(errors) || errors.length === 0) throw err;
    return {
      ok: false,
      errors: errors.map((e) => ({ line: Math.max(1, (e.location?.line ?? 2) - 1), column: (e.location?.column ?? 0) + 1, message: e.text })),
    };
  }
  const lines = code.split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  // A body that closes the wrapper's brace early still comes out as one text here; the guest
  // compiles `js` on its own with the AsyncFunction constructor, where it is a syntax error.
  if (lines[0] !== WRAPPER_HEAD || lines[lines.length - 1] !== '}') {
    return { ok: false, errors: [{ line: 1, column: 1, message: 'The program must be the body of one async function (it closes a brace it did not open).' }] };
  }
  const js = lines.slice(1, -1).join('\n');
  const sourceLines = sourceLineByGeneratedLine(JSON.parse(map).mappings as string);
  // js line k is output line k+1 (index k); a source line s (0-based, wrapped) is body line s.
  const bodyLineOf = (jsLine: number) => {
    const s = sourceLines[jsLine];
    return s === undefined || s < 1 ? undefined : s;
  };
  return { ok: true, program: { js, bodyLineOf } };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) DIGIT[BASE64.charCodeAt(i)] = i;

/** For each generated line (0-based), the 0-based source line of its first mapped segment. */
export function sourceLineByGeneratedLine(mappings: string): (number | undefined)[] {
  const out: (number | undefined)[] = [];
  let line = 0;
  let srcLine = 0;
  let i = 0;
  let field = 0;
  let first = true;
  while (i < mappings.length) {
    const c = mappings[i]!;
    if (c === ';') {
      line++;
      field = 0;
      first = true;
      i++;
      continue;
    }
    if (c === ',') {
      field = 0;
      i++;
      continue;
    }
    // One VLQ value.
    let value = 0;
    let shift = 0;
    let digit: number;
    do {
      digit = DIGIT[mappings.charCodeAt(i++)] ?? -1;
      if (digit < 0) return out;
      value += (digit & 31) << shift;
      shift += 5;
    } while (digit & 32);
    const delta = value & 1 ? -(value >>> 1) : value >>> 1;
    if (field === 2) {
      srcLine += delta;
      if (first) {
        out[line] = srcLine;
        first = false;
      }
    }
    field++;
  }
  return out;
}
