/**
 * The language level the type check enforces, said in one line for run_code's description.
 *
 * Why: a model that is not told which flags are on codes defensively against all of them (blind
 * writers put `?? 0` on every indexed read "in case noUncheckedIndexedAccess is on", and never
 * passed `cursor: undefined` "in case exactOptionalPropertyTypes is on"), which costs tokens and
 * turns. So the description states the TypeScript version, the target, the lib (which built-ins
 * exist) and the flags that change what compiles.
 *
 * One source of truth: the line is computed from the compiler options the checker really uses
 * ({@link CHECK_COMPILER_OPTIONS}) and from TypeScript itself (its version, and the sub-libraries
 * each `lib.esYYYY.d.ts` references), never written by hand; language-level.test.ts reads both
 * and compiles a program for each claim. The lib is said as a base year, the later sub-libraries
 * it adds, and the kinds of sub-library it leaves out of the years it covers: the base year is
 * the latest year of which the lib holds at least half of TypeScript's sub-libraries.
 */
import ts from './typescript-module.cjs';
import { CHECK_COMPILER_OPTIONS } from './check-code.js';
import { libText, LIB_FOLDER } from './lib-files.js';

/** The language level of a set of compiler options, in parts. */
export interface LanguageLevel {
  /** TypeScript's `major.minor`. */
  readonly typescript: string;
  /** The target, as TypeScript names it (`ES2024`). */
  readonly target: string;
  /** The lib: its base year, the later sub-libraries it adds, the kinds it leaves out of the years it covers. */
  readonly lib: { readonly year: number; readonly plus: readonly string[]; readonly without: readonly string[] };
  /** The lib declares the DOM. */
  readonly dom: boolean;
  /** `strict`, and the flags beside it that change what compiles (their effective values). */
  readonly strict: boolean;
  readonly noUncheckedIndexedAccess: boolean;
  readonly exactOptionalPropertyTypes: boolean;
  readonly useUnknownInCatchVariables: boolean;
}

const ES_SUB_LIBRARY = /^es(\d{4})\.([a-z0-9.]+)$/;
const REFERENCE = /\/\/\/ <reference lib="([a-z0-9.]+)" \/>/g;

/** The libraries `lib.<name>.d.ts` references (`es2022`, `es2023.array`, `dom`, ...). */
function referencedLibraries(name: string): string[] {
  const text = libText(`${LIB_FOLDER}/lib.${name}.d.ts`) ?? '';
  return [...text.matchAll(REFERENCE)].map((m) => m[1]!);
}

/** Every library a lib list loads: the files named, and what they reference, transitively. */
function loadedLibraries(lib: readonly string[]): Set<string> {
  const loaded = new Set<string>();
  const pending = lib.map((file) => file.toLowerCase().replace(/^lib\./, '').replace(/\.d\.ts$/, ''));
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (loaded.has(name)) continue;
    loaded.add(name);
    pending.push(...referencedLibraries(name));
  }
  return loaded;
}

/** The sub-libraries (`array`, `intl`, ...) TypeScript's `lib.es<year>.d.ts` references. */
function subLibrariesOf(year: number): string[] {
  return referencedLibraries(`es${year}`).flatMap((name) => {
    const m = ES_SUB_LIBRARY.exec(name);
    return m && Number(m[1]) === year ? [m[2]!] : [];
  });
}

/** The lib's base year, the later sub-libraries, and the kinds left out of the covered years. */
function libLevel(loaded: ReadonlySet<string>): LanguageLevel['lib'] {
  const byYear = new Map<number, Set<string>>();
  for (const name of loaded) {
    const m = ES_SUB_LIBRARY.exec(name);
    if (!m || m[2] === 'full') continue;
    const year = Number(m[1]);
    if (!byYear.has(year)) byYear.set(year, new Set());
    byYear.get(year)!.add(m[2]!);
  }
  const years = [...byYear.keys()].sort((a, b) => a - b);
  let base = 5;
  for (const year of years) {
    const all = subLibrariesOf(year);
    if (all.length > 0 && byYear.get(year)!.size * 2 >= all.length) base = year;
  }
  const plus = years.filter((y) => y > base).flatMap((y) => [...byYear.get(y)!].sort().map((sub) => `es${y}.${sub}`));
  const without = new Set<string>();
  for (let year = 2015; year <= base; year++) {
    for (const sub of subLibrariesOf(year)) if (!byYear.get(year)?.has(sub)) without.add(sub);
  }
  return { year: base, plus, without: [...without].sort() };
}

/** The language level of `options` (default: the options programs are checked with). */
export function languageLevelOf(options: Readonly<ts.CompilerOptions> = CHECK_COMPILER_OPTIONS): LanguageLevel {
  const strict = options.strict === true;
  const loaded = loadedLibraries(options.lib ?? []);
  return {
    typescript: ts.versionMajorMinor,
    target: ts.ScriptTarget[options.target ?? ts.ScriptTarget.ES5] ?? String(options.target),
    lib: libLevel(loaded),
    dom: loaded.has('dom'),
    strict,
    noUncheckedIndexedAccess: options.noUncheckedIndexedAccess === true,
    exactOptionalPropertyTypes: options.exactOptionalPropertyTypes === true,
    useUnknownInCatchVariables: options.useUnknownInCatchVariables ?? strict,
  };
}

const onOff = (on: boolean) => (on ? 'on' : 'off');

/**
 * The one line run_code's description says about the language (see the file note), e.g.
 * `Type check: TypeScript 6.0, target ES2024, lib es2023 + es2024.regexp, es2024.string ...`.
 */
export function languageLevelLine(options: Readonly<ts.CompilerOptions> = CHECK_COMPILER_OPTIONS): string {
  const level = languageLevelOf(options);
  const { lib } = level;
  const plus = lib.plus.length > 0 ? ` + ${lib.plus.join(', ')}` : '';
  const without = lib.without.length > 0 ? `without the ${lib.without.join(', ')} additions; ` : '';
  const host = `${level.dom ? 'DOM' : 'no DOM'}, ${(options.types?.length ?? 1) === 0 ? 'no Node types' : 'the configured types'}`;
  return (
    `Type check: TypeScript ${level.typescript}, target ${level.target}, lib es${lib.year}${plus} (${without}${host}); ` +
    `strict ${onOff(level.strict)}; ` +
    `noUncheckedIndexedAccess ${onOff(level.noUncheckedIndexedAccess)} (\`xs[i]\` is ${level.noUncheckedIndexedAccess ? '`T | undefined`' : '`T`'}); ` +
    `exactOptionalPropertyTypes ${onOff(level.exactOptionalPropertyTypes)} (\`{ a?: T }\` ${level.exactOptionalPropertyTypes ? 'refuses' : 'accepts'} \`a: undefined\`); ` +
    `useUnknownInCatchVariables ${onOff(level.useUnknownInCatchVariables)} (\`catch (e)\`: \`e\` is ${level.useUnknownInCatchVariables ? '`unknown`' : '`any`'}).`
  );
}
