/**
 * Where a program's diagnostics come from: the TypeScript compiler, kept warm for one
 * declaration text.
 *
 * Two strategies, the same diagnostics:
 * - `shared` (default): one Program over the lib and the declarations, built once, and its type
 *   checker kept for many checks. Each program becomes its own source file (a module, so nothing
 *   it declares reaches the globals), bound with `ts.bindSourceFile` and checked with the
 *   checker's `getDiagnostics(file)`. Everything the checker resolved for earlier programs
 *   (`Array`, `Promise`, `Map` members, the `Tools` interface, the output types) is reused, which
 *   makes a check about twice as fast as a fresh checker (bench/codegen.bench.ts). These two
 *   functions are TypeScript internals: they exist at runtime but not in its public typings, so
 *   they are looked up defensively, the TypeScript version is pinned exactly, and when either is
 *   missing or throws, the check falls back to `fresh` (and the shared state is dropped). The
 *   checker keeps per-node caches for every program it saw, so the shared state is rebuilt every
 *   {@link CHECKS_PER_SHARED_CHECKER} checks, which bounds memory (about 50 KB per check). The
 *   rebuild (a new checker, warmed with one check) runs in a `setImmediate` after the check that
 *   reached the count, off the request path; only at twice the count does a check rebuild
 *   synchronously.
 * - `fresh`: a new Program per check, built from the same cached parts with the previous Program
 *   as `oldProgram`; only public API. A fresh checker resolves everything again.
 * A program can never change what later programs are checked against: it is never merged into
 * the globals (a `declare global` would only be possible by escaping the wrapper, which
 * `checkCode` reports as an error anyway, and even then the shared checker has already merged
 * its globals).
 */
import ts from './typescript-module.cjs';
import { LIB_FOLDER, libSourceFile, libText } from './lib-files.js';

/** Checks between rebuilds of the shared checker. */
export const CHECKS_PER_SHARED_CHECKER = 200;

/** How a session gets diagnostics (see the file note). */
export type CheckStrategy = 'shared' | 'fresh';

const DECLARATIONS_FILE = '/ptc/tools.d.ts';
const PROGRAM_FILE = '/ptc/program.ts';

type BindSourceFile = (file: ts.SourceFile, options: ts.CompilerOptions) => void;
type CheckerWithFileDiagnostics = ts.TypeChecker & { getDiagnostics?: (file: ts.SourceFile) => readonly ts.Diagnostic[] };
const bindSourceFile = (ts as unknown as { bindSourceFile?: BindSourceFile }).bindSourceFile;

/** A program's source file, parsed as a module whatever it contains (`moduleDetection: force`). */
function programSourceFile(fileName: string, text: string, languageVersion: ts.ScriptTarget): ts.SourceFile {
  return ts.createSourceFile(
    fileName,
    text,
    {
      languageVersion,
      setExternalModuleIndicator: (file) => {
        (file as { externalModuleIndicator?: unknown }).externalModuleIndicator = true;
      },
    },
    false,
    ts.ScriptKind.TS,
  );
}

/** What one check got from the compiler. */
export interface SessionDiagnostics {
  readonly source: ts.SourceFile;
  /** Parse errors; when there are any, `semantic` is not computed. */
  readonly syntactic: readonly ts.Diagnostic[];
  readonly semantic: readonly ts.Diagnostic[];
}

/** The compiler kept warm for one declaration text. */
export class CheckerSession {
  private readonly host: ts.CompilerHost;
  private declarationsFile: ts.SourceFile | undefined;
  private programText = '';
  private program: ts.Program | undefined;
  private shared: { program: ts.Program; checker: CheckerWithFileDiagnostics; checks: number } | undefined;
  private serial = 0;

  private rebuildScheduled = false;

  /** `warmText`: a whole program text checked once by a background rebuild to warm the new checker. */
  constructor(
    private readonly declarations: string,
    private readonly options: ts.CompilerOptions,
    private readonly strategy: CheckStrategy,
    private readonly warmText = '',
  ) {
    this.host = {
      getSourceFile: (fileName, languageVersionOrOptions) => {
        if (fileName === PROGRAM_FILE) return ts.createSourceFile(fileName, this.programText, languageVersionOrOptions, false, ts.ScriptKind.TS);
        if (fileName === DECLARATIONS_FILE) {
          return (this.declarationsFile ??= ts.createSourceFile(fileName, this.declarations, languageVersionOrOptions, false, ts.ScriptKind.TS));
        }
        return libSourceFile(fileName, languageVersionOrOptions);
      },
      getDefaultLibFileName: () => `${LIB_FOLDER}/lib.es2023.d.ts`,
      getDefaultLibLocation: () => LIB_FOLDER,
      writeFile: () => undefined,
      getCurrentDirectory: () => '/ptc',
      getCanonicalFileName: (fileName) => fileName,
      useCaseSensitiveFileNames: () => true,
      getNewLine: () => '\n',
      fileExists: (fileName) => fileName === PROGRAM_FILE || fileName === DECLARATIONS_FILE || libText(fileName) !== undefined,
      readFile: (fileName) => (fileName === PROGRAM_FILE ? this.programText : fileName === DECLARATIONS_FILE ? this.declarations : libText(fileName)),
      directoryExists: (dir) => dir === '/ptc' || dir === LIB_FOLDER,
      getDirectories: () => [],
    };
  }

  /** Diagnostics of a whole program text (wrapper included). */
  diagnose(text: string): SessionDiagnostics {
    if (this.strategy === 'shared' && bindSourceFile) {
      try {
        return this.diagnoseShared(text);
      } catch {
        this.shared = undefined; // possibly inconsistent: rebuild, and check this one the public way
      }
    }
    return this.diagnoseFresh(text);
  }

  /** Diagnostics of the declaration text itself (empty for generated declarations). */
  declarationDiagnostics(): readonly ts.Diagnostic[] {
    const program = this.program ?? this.buildProgram('');
    const file = program.getSourceFile(DECLARATIONS_FILE)!;
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file), ...program.getGlobalDiagnostics()];
  }

  /** Drops every program and checker (the shared lib stays parsed). */
  reset(): void {
    this.program = undefined;
    this.shared = undefined;
  }

  private buildProgram(text: string): ts.Program {
    this.programText = text;
    this.program = ts.createProgram({
      rootNames: [DECLARATIONS_FILE, PROGRAM_FILE],
      options: this.options,
      host: this.host,
      ...(this.program ? { oldProgram: this.program } : {}),
    });
    return this.program;
  }

  private diagnoseFresh(text: string): SessionDiagnostics {
    const program = this.buildProgram(text);
    const source = program.getSourceFile(PROGRAM_FILE)!;
    const syntactic = program.getSyntacticDiagnostics(source);
    return { source, syntactic, semantic: syntactic.length > 0 ? [] : program.getSemanticDiagnostics(source) };
  }

  private newShared(): NonNullable<CheckerSession['shared']> {
    this.programText = '';
    const program = ts.createProgram({ rootNames: [DECLARATIONS_FILE], options: this.options, host: this.host });
    return { program, checker: program.getTypeChecker() as CheckerWithFileDiagnostics, checks: 0 };
  }

  /** Replaces the shared checker with a new, warmed one; scheduled off the request path. */
  private scheduleRebuild(): void {
    if (this.rebuildScheduled) return;
    this.rebuildScheduled = true;
    const immediate = setImmediate(() => {
      this.rebuildScheduled = false;
      if (!this.shared || this.shared.checks < CHECKS_PER_SHARED_CHECKER) return; // reset meanwhile
      try {
        this.shared = this.newShared();
        if (this.warmText) this.diagnoseShared(this.warmText);
        this.shared.checks = 0;
      } catch {
        this.shared = undefined;
      }
    });
    immediate.unref?.();
  }

  private diagnoseShared(text: string): SessionDiagnostics {
    let shared = this.shared;
    if (!shared || shared.checks >= 2 * CHECKS_PER_SHARED_CHECKER) shared = this.shared = this.newShared();
    if (typeof shared.checker.getDiagnostics !== 'function') throw new Error('TypeChecker.getDiagnostics is not available');
    shared.checks++;
    if (shared.checks >= CHECKS_PER_SHARED_CHECKER) this.scheduleRebuild();
    // A new name per check: the checker files diagnostics by file name.
    const source = programSourceFile(`/ptc/program-${++this.serial}.ts`, text, this.options.target ?? ts.ScriptTarget.ES2024);
    const syntactic = (source as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics ?? [];
    if (syntactic.length > 0) return { source, syntactic, semantic: [] };
    bindSourceFile!(source, this.options);
    const bound = (source as unknown as { bindDiagnostics?: readonly ts.Diagnostic[] }).bindDiagnostics ?? [];
    return { source, syntactic, semantic: [...bound, ...shared.checker.getDiagnostics(source)] };
  }
}
