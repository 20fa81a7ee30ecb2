/**
 * `checkCode`: type-checks a model's program against generated declarations with the real
 * TypeScript compiler, before it runs, and reports diagnostics at the model's own lines.
 *
 * Why it is shaped this way:
 * - Speed. Parsing and binding the standard library costs hundreds of milliseconds, so it is
 *   done once per process and shared (`lib-files.ts`); each declaration text gets one
 *   long-lived {@link CodeChecker} (an LRU of four behind `checkCode`) whose session keeps a type
 *   checker warm across checks (`checker-session.ts`: a check binds and checks only the new
 *   program). `warmupCheckCode()` pays the first-check cost (lib parse and bind) at startup and
 *   `warmupCheckCode(types)` the per-declarations one, off the request path.
 * - Strict where it protects the calls, lenient where it only adds friction (DESIGN "PTC
 *   mode"): `strict` (with `noImplicitAny`), but `useUnknownInCatchVariables` is off (an
 *   untyped `catch (e)` is fine) and neither `noUncheckedIndexedAccess` nor
 *   `exactOptionalPropertyTypes` is on. `noImplicitAny` stays on because turning it off would
 *   also silence `tools['unknown']` and `globalThis.process` (implicitly `any`); its other
 *   diagnostics (implicitly typed parameters, variables, dynamic indexing) are filtered out
 *   instead ({@link isLenientDiagnostic}). Argument and result types, unknown tools, missing
 *   fields and host globals all stay errors.
 * - No host globals: the lib is a trimmed ES2023 plus what the isolate has of ES2024 ({@link PROGRAM_LIB}, no DOM) and `types` is
 *   empty (no Node), so `process`, `require` and `fetch` are errors, rephrased to say why.
 * - The program is an async function body: it is wrapped in `async function` so top-level
 *   `await` and `return` check; a body that closes the wrapper early is reported as such.
 *   Nothing is resolved from disk: imports cannot pull declarations in.
 */
import ts from './typescript-module.cjs';
import type { GeneratedToolTypes } from './generate-tool-types.js';
import { CheckerSession, type CheckStrategy } from './checker-session.js';
import { normalizeProgram } from './normalize-program.js';
import { isLenientDiagnostic, rephraseDiagnostic } from './rephrase-diagnostic.js';
import { errorText } from '../tools/index.js';

/** One problem in the model's program, positioned in the text the model wrote. */
export interface CodeDiagnostic {
  /** 1-based line in the model's text. */
  readonly line: number;
  /** 1-based column in the model's text. */
  readonly column: number;
  /** Readable message (TypeScript's, or a clearer one for missing host globals). */
  readonly message: string;
  /** The TypeScript diagnostic code (0 for checks of our own). */
  readonly code: number;
  readonly category: 'error' | 'warning';
}

/** What a checker needs of `generateToolTypes`' output: the declarations and the callable names. */
export type CheckableTypes = Pick<GeneratedToolTypes, 'declarations' | 'toolNames'>;

/** The outcome of a check. */
export interface CheckResult {
  /** True when there is no error (warnings allowed). */
  readonly ok: boolean;
  readonly diagnostics: readonly CodeDiagnostic[];
}

/**
 * The standard library programs are checked against: what the isolate runs (ES2023, plus the
 * regular expression `v` flag and `String#isWellFormed`/`toWellFormed` of ES2024;
 * sandbox-language.ts, probed in a real isolate by test/sandbox-language.test.ts), without DOM,
 * and without what tool scripts do not use but every fresh type checker would pay for (the Intl
 * additions after ES5, well-known symbols other than the iterators, typed-array and
 * shared-memory additions, decorators, WeakRef). About 20% faster per check than the full ES2023 lib
 * (bench/codegen.bench.ts), and closer to the sandbox, whose global scope has no `WeakRef`,
 * `FinalizationRegistry`, `SharedArrayBuffer` or `Atomics` either. Pass `lib` to a
 * {@link CodeChecker} for another set.
 */
export const PROGRAM_LIB: readonly string[] = Object.freeze([
  'lib.es5.d.ts',
  'lib.es2015.core.d.ts',
  'lib.es2015.collection.d.ts',
  'lib.es2015.iterable.d.ts',
  'lib.es2015.generator.d.ts',
  'lib.es2015.promise.d.ts',
  'lib.es2015.symbol.d.ts',
  'lib.es2015.proxy.d.ts',
  'lib.es2015.reflect.d.ts',
  'lib.es2016.array.include.d.ts',
  'lib.es2017.object.d.ts',
  'lib.es2017.string.d.ts',
  'lib.es2018.asynciterable.d.ts',
  'lib.es2018.asyncgenerator.d.ts',
  'lib.es2018.promise.d.ts',
  'lib.es2018.regexp.d.ts',
  'lib.es2019.array.d.ts',
  'lib.es2019.object.d.ts',
  'lib.es2019.string.d.ts',
  'lib.es2019.symbol.d.ts',
  'lib.es2020.bigint.d.ts',
  'lib.es2020.promise.d.ts',
  'lib.es2020.string.d.ts',
  'lib.es2021.promise.d.ts',
  'lib.es2021.string.d.ts',
  'lib.es2022.array.d.ts',
  'lib.es2022.error.d.ts',
  'lib.es2022.object.d.ts',
  'lib.es2022.regexp.d.ts',
  'lib.es2022.string.d.ts',
  'lib.es2023.array.d.ts',
  'lib.es2023.collection.d.ts',
  'lib.es2024.regexp.d.ts',
  'lib.es2024.string.d.ts',
]);

/** The TypeScript version that checks programs (part of a cached check's key). */
export const TYPESCRIPT_VERSION: string = ts.version;

/** The compiler options model programs are checked with (see the file note). */
export const CHECK_COMPILER_OPTIONS: Readonly<ts.CompilerOptions> = Object.freeze({
  strict: true,
  useUnknownInCatchVariables: false,
  noUncheckedIndexedAccess: false,
  exactOptionalPropertyTypes: false,
  // ES2024 syntax is the regular expression v flag, which the isolate has (sandbox-language.ts).
  target: ts.ScriptTarget.ES2024,
  module: ts.ModuleKind.ESNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  lib: [...PROGRAM_LIB],
  types: [],
  noResolve: true,
  noEmit: true,
  skipLibCheck: true,
  skipDefaultLibCheck: true,
  allowJs: false,
});

/** Longest program checked (characters); longer ones get one diagnostic instead. */
export const MAX_CHECKED_PROGRAM_CHARS = 200_000;
/** Most diagnostics returned for one program; the rest are summarized in a last one. */
export const MAX_DIAGNOSTICS = 50;

const PREFIX = 'async function __ptcProgram() {\n';
const PREFIX_LINES = 1;
const SUFFIX = '\n}\n';

/** What a warmup checks: enough to resolve the lib types most programs use. */
const WARMUP_PROGRAM = "const xs = [1, 2].map((x) => x + 1).filter(Boolean);\nconst m = new Map<string, number>([['a', 1]]);\nreturn await Promise.all(xs.map(async (x) => ({ x, s: `${x}`, m: m.get('a') })));";

/** Options of a {@link CodeChecker}. */
export interface CodeCheckerOptions {
  /** Lib file names (`lib.es2023.d.ts`, ...) instead of {@link PROGRAM_LIB}. */
  readonly lib?: readonly string[];
  /**
   * `'shared'` (default): keep one type checker warm across checks (TypeScript internals, with
   * an automatic fallback); `'fresh'`: a new Program and checker per check, public API only.
   * Both give the same diagnostics; see `checker-session.ts`.
   */
  readonly strategy?: CheckStrategy;
}

/**
 * Comment directives would let a program switch the check off (`// @ts-ignore` above a call of
 * an unknown tool). They are not honoured: the check is about whether the calls are right, and
 * an explicit `as any` remains the visible way out. The text keeps its length and positions.
 */
function neutralizeDirectives(text: string): string {
  // Wherever it appears (a string literal only changes how its literal type is displayed): a
  // pattern that first looked for the comment opener was quadratic on a long line of slashes.
  return text.includes('@ts-') ? text.replace(/@ts-(?=ignore|expect-error|nocheck|check)/g, '@ts_') : text;
}

/**
 * A long-lived checker for one declaration text. Reuse it for every program checked against the
 * same tools; build a new one when the tools change. Checks are synchronous.
 */
export class CodeChecker {
  readonly declarations: string;
  private readonly knownTools: readonly string[];
  /** True with the sandbox's own lib ({@link PROGRAM_LIB}): a lib hint then means the sandbox lacks the feature. */
  private readonly sandboxLib: boolean;
  private readonly session: CheckerSession;

  /** Prepares the checker (cheap); the first {@link check} or {@link warmup} builds it. */
  constructor(declarations: string | CheckableTypes, options: CodeCheckerOptions = {}) {
    const compilerOptions = options.lib ? { ...CHECK_COMPILER_OPTIONS, lib: [...options.lib] } : CHECK_COMPILER_OPTIONS;
    this.declarations = typeof declarations === 'string' ? declarations : declarations.declarations;
    this.knownTools = typeof declarations === 'string' ? [] : [...declarations.toolNames.keys()];
    this.sandboxLib = options.lib === undefined;
    this.session = new CheckerSession(this.declarations, compilerOptions, options.strategy ?? 'shared', PREFIX + WARMUP_PROGRAM + SUFFIX);
  }

  /** Drops the compiler state (the shared lib stays parsed); the next check rebuilds it. */
  dispose(): void {
    this.session.reset();
  }

  /** Builds the compiler state once, so the next check is warm. Returns this. */
  warmup(): this {
    this.check(WARMUP_PROGRAM);
    return this;
  }

  /** Diagnostics of the declaration text itself (empty for generated declarations). */
  declarationDiagnostics(): readonly ts.Diagnostic[] {
    return this.session.declarationDiagnostics();
  }

  /**
   * Type-checks a program (any form {@link normalizeProgram} accepts). Never throws: should the
   * compiler itself fail on some input, the result is one error saying so (fail closed).
   * Synchronous; a pathological program (deeply recursive types) can take a few hundred
   * milliseconds before TypeScript's own depth limits stop it.
   */
  check(code: string): CheckResult {
    if (typeof code !== 'string') return fail(1, 1, 'The program must be a string of TypeScript.');
    if (code.length > MAX_CHECKED_PROGRAM_CHARS) {
      return fail(1, 1, `The program is too long to check (${code.length} characters; the limit is ${MAX_CHECKED_PROGRAM_CHARS}).`);
    }
    try {
      return this.checkProgram(code);
    } catch (err) {
      this.session.reset();
      const reason = errorText(err).split('\n')[0];
      return fail(1, 1, `The type checker failed on this program (${reason}); it was not checked.`);
    }
  }

  private checkProgram(code: string): CheckResult {
    const { body, lineOffset } = normalizeProgram(code);
    const bodyStart = PREFIX.length;
    const bodyEnd = PREFIX.length + body.length;
    const { source, syntactic, semantic } = this.session.diagnose(neutralizeDirectives(PREFIX + body + SUFFIX));
    const raw: ts.Diagnostic[] = [...syntactic];
    const own: ts.Diagnostic[] = [];
    if (raw.length === 0) {
      raw.push(...semantic.filter((d) => !isLenientDiagnostic(d)));
      own.push(...escapedBody(source, bodyEnd));
    }

    const diagnostics: CodeDiagnostic[] = [];
    const bodyLines = body.split('\n').length;
    for (const d of [...own, ...raw]) {
      if (d.category !== ts.DiagnosticCategory.Error && d.category !== ts.DiagnosticCategory.Warning) continue;
      let line = 1;
      let column = 1;
      if (d.file && d.start !== undefined) {
        const start = Math.min(Math.max(d.start, bodyStart), bodyEnd);
        const pos = d.file.getLineAndCharacterOfPosition(start);
        line = pos.line - PREFIX_LINES + 1;
        column = pos.character + 1;
        if (line > bodyLines) [line, column] = [bodyLines, 1];
        line += lineOffset;
      }
      diagnostics.push({
        line,
        column,
        message: rephraseDiagnostic(d, this.knownTools, { sandboxLib: this.sandboxLib }),
        code: d.code,
        category: d.category === ts.DiagnosticCategory.Error ? 'error' : 'warning',
      });
    }
    // A total order, so the result does not depend on the order the compiler reported in.
    diagnostics.sort((a, b) => a.line - b.line || a.column - b.column || a.code - b.code || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
    const unique = diagnostics.filter((d, i) => i === 0 || d.line !== diagnostics[i - 1]!.line || d.column !== diagnostics[i - 1]!.column || d.message !== diagnostics[i - 1]!.message);
    const capped = unique.length > MAX_DIAGNOSTICS ? [...unique.slice(0, MAX_DIAGNOSTICS - 1), summary(unique, MAX_DIAGNOSTICS - 1)] : unique;
    return { ok: !capped.some((d) => d.category === 'error'), diagnostics: capped };
  }
}

/** A `}` in the body that closes the wrapper function early leaves statements after it. */
function escapedBody(source: ts.SourceFile, bodyEnd: number): ts.Diagnostic[] {
  const fn = source.statements[0];
  if (source.statements.length === 1 && fn && ts.isFunctionDeclaration(fn) && fn.body && fn.body.end >= bodyEnd) return [];
  const at = fn && ts.isFunctionDeclaration(fn) && fn.body ? fn.body.end - 1 : 0;
  return [
    {
      file: source,
      start: at,
      length: 1,
      category: ts.DiagnosticCategory.Error,
      code: 0,
      messageText: "This '}' closes the program's function body: the program is the body of an async function, so its braces must balance.",
    },
  ];
}

function summary(all: readonly CodeDiagnostic[], shown: number): CodeDiagnostic {
  const next = all[shown]!;
  return { line: next.line, column: next.column, code: 0, category: 'error', message: `… and ${all.length - shown} more problems (fix the ones above first).` };
}

function fail(line: number, column: number, message: string): CheckResult {
  return { ok: false, diagnostics: [{ line, column, message, code: 0, category: 'error' }] };
}

const MAX_CACHED_CHECKERS = 4;
const checkers = new Map<string, CodeChecker>();

/**
 * The cached checker for a declaration text (least recently used ones are disposed beyond a
 * few; hold your own {@link CodeChecker} to keep one warm). A changed declaration text gets a
 * new checker; the lib stays parsed.
 */
export function checkerFor(declarations: string | CheckableTypes): CodeChecker {
  const text = typeof declarations === 'string' ? declarations : declarations.declarations;
  let checker = checkers.get(text);
  if (checker) {
    checkers.delete(text);
  } else {
    checker = new CodeChecker(declarations);
    while (checkers.size >= MAX_CACHED_CHECKERS) {
      const [oldest, evicted] = checkers.entries().next().value!;
      checkers.delete(oldest);
      evicted.dispose();
    }
  }
  checkers.set(text, checker);
  return checker;
}

/**
 * Type-checks a program (an async function body, or a form {@link normalizeProgram} accepts)
 * against declarations from `generateToolTypes`. Diagnostics are positioned in `code` as given.
 */
export function checkCode(code: string, declarations: string | CheckableTypes): CheckResult {
  return checkerFor(declarations).check(code);
}

/**
 * Pays the cold cost now, off the request path: with declarations, builds (and caches) their
 * checker and runs one check; without, parses and binds the shared standard library only.
 */
export function warmupCheckCode(declarations?: string | CheckableTypes): void {
  if (declarations === undefined) new CodeChecker('').warmup();
  else checkerFor(declarations).warmup();
}
