/**
 * TypeScript -> JavaScript for one program, with esbuild (about 1 ms warm, against 5-10 ms for
 * `ts.transpileModule`). esbuild reprints the code (type-only lines vanish, statements may move),
 * so it is not line-preserving by itself: a source map maps each line of the output back to the
 * program's line, so a runtime error points at the line the model wrote. Only types are stripped;
 * nothing is down-levelled (the isolate runs ES2022+).
 *
 * The program is model input, and esbuild's work on it is not linear: it indents each nesting
 * level, so 8 KB of nested blocks printed 32 MB and held the host's thread for 2.6 s, and nested
 * `for (const x of y)` heads cost it seconds per kilobyte. So the transform is asynchronous (it
 * runs in esbuild's own process, never on the host's thread), bounded in time (after
 * {@link TRANSPILE_TIME_MS} the service is stopped and the program refused) and in output
 * ({@link MAX_COMPILED_CHARS}), and a bracket depth over {@link MAX_PROGRAM_NESTING} is refused
 * before esbuild sees it (program-nesting.ts).
 */
// Real timers, taken from node:timers rather than the globals: the bound is on esbuild's own time,
// not the run's clock, which tests fake.
import { clearTimeout, setTimeout } from 'node:timers';
import { stop, transform, type Message, type TransformOptions, type TransformResult } from 'esbuild';
import { measureNesting } from './program-nesting.js';

const WRAPPER_HEAD = 'async function __ptc_program__() {';
const OPTIONS: TransformOptions = { loader: 'ts', target: 'es2022', sourcemap: 'external', sourcefile: 'program.ts', logLevel: 'silent' };

/** Deepest bracket nesting accepted (`{`, `(`, `[`, `${`), counted as program-nesting.ts does. */
export const MAX_PROGRAM_NESTING = 100;
/** Longest compiled program accepted, in characters (ten times the longest program). */
export const MAX_COMPILED_CHARS = 2_000_000;
/** How long esbuild may take for one program, in ms (a warm transform takes about 1 ms). */
export const TRANSPILE_TIME_MS = 5_000;

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

/** What {@link transpileProgram} gives: the program, its syntax errors, or the bound it passed. */
export type TranspileOutcome =
  | { readonly ok: true; readonly program: TranspiledProgram }
  | { readonly ok: false; readonly kind: 'syntax'; readonly errors: TranspileError[] }
  | { readonly ok: false; readonly kind: 'limit'; readonly message: string; /** Body line the limit was passed at, when one is known. */ readonly line?: number };

// Transforms waiting on esbuild's service; told when a timeout stops it under them.
const onServiceStop = new Set<() => void>();

/** Stops esbuild's service (its work on a program that ran out of time); the next transform starts a new one. */
function stopService(): void {
  for (const notify of [...onServiceStop]) notify();
  void stop();
}

/** One transform within TRANSPILE_TIME_MS; a transform the service was stopped under is tried once more. */
async function transformWithin(source: string): Promise<TransformResult | 'timeout'> {
  for (let attempt = 0; ; attempt++) {
    let timer: NodeJS.Timeout | undefined;
    let notify: (() => void) | undefined;
    const outcome = await Promise.race([
      transform(source, OPTIONS).then((result) => ({ result }), (error: unknown) => ({ error })),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), TRANSPILE_TIME_MS);
        timer.unref?.();
      }),
      new Promise<'stopped'>((resolve) => {
        notify = () => resolve('stopped');
        onServiceStop.add(notify);
      }),
    ]).finally(() => {
      clearTimeout(timer);
      onServiceStop.delete(notify!);
    });
    if (outcome === 'timeout') {
      stopService();
      return 'timeout';
    }
    if (outcome === 'stopped') {
      if (attempt === 0) continue;
      return 'timeout';
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }
}

/** Transpiles an async function body. Resolves to errors (body lines) instead of throwing for bad syntax. */
export async function transpileProgram(body: string): Promise<TranspileOutcome> {
  const nesting = measureNesting(body);
  if (nesting.depth > MAX_PROGRAM_NESTING) {
    return {
      ok: false,
      kind: 'limit',
      line: nesting.line,
      message: `The program nests ${nesting.depth} levels of brackets deep here; at most ${MAX_PROGRAM_NESTING} are accepted. Flatten it (a helper function, an early return or continue).`,
    };
  }
  const source = `${WRAPPER_HEAD}\n${body}\n}`;
  let code: string;
  let map: string;
  try {
    const out = await transformWithin(source);
    if (out === 'timeout') {
      return { ok: false, kind: 'limit', message: `Compiling the program took longer than ${TRANSPILE_TIME_MS} ms and was stopped; simplify its nesting (deeply nested statements and loops are slow to compile).` };
    }
    code = out.code;
    map = out.map;
  } catch (err) {
    const errors = (err as { errors?: Message[] }).errors;
    if (!Array.isArray(errors) || errors.length === 0) throw err;
    return {
      ok: false,
      kind: 'syntax',
      errors: errors.map((e) => ({ line: Math.max(1, (e.location?.line ?? 2) - 1), column: (e.location?.column ?? 0) + 1, message: e.text })),
    };
  }
  if (code.length > MAX_COMPILED_CHARS) {
    return {
      ok: false,
      kind: 'limit',
      message: `Compiled, the program is ${code.length} characters; at most ${MAX_COMPILED_CHARS} are accepted. Each level of nesting is indented, so deeply nested code grows: flatten it (helper functions, early returns).`,
    };
  }
  const lines = code.split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  // A body that closes the wrapper's brace early still comes out as one text here; the guest
  // compiles `js` on its own with the AsyncFunction constructor, where it is a syntax error.
  if (lines[0] !== WRAPPER_HEAD || lines[lines.length - 1] !== '}') {
    return { ok: false, kind: 'syntax', errors: [{ line: 1, column: 1, message: 'The program must be the body of one async function (it closes a brace it did not open).' }] };
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
