import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CHECK_COMPILER_OPTIONS, CodeChecker, PROGRAM_LIB } from './check-code.js';
import { generateToolTypes } from './generate-tool-types.js';
import { languageLevelLine, languageLevelOf } from './language-level.js';

const checker = new CodeChecker(generateToolTypes([]));
const compiles = (code: string) => checker.check(code).ok;

describe('the language line run_code states', () => {
  it('is read from the compiler options the check really uses (exact text)', () => {
    expect(languageLevelLine()).toBe(
      `Type check: TypeScript ${ts.versionMajorMinor}, target ES2024, lib es2023 + es2024.regexp, es2024.string ` +
        '(without the arraybuffer, date, intl, number, sharedmemory, symbol.wellknown, typedarrays, weakref additions; no DOM, no Node types); ' +
        'strict on; noUncheckedIndexedAccess off (`xs[i]` is `T`); exactOptionalPropertyTypes off (`{ a?: T }` accepts `a: undefined`); ' +
        'useUnknownInCatchVariables off (`catch (e)`: `e` is `any`).',
    );
    const level = languageLevelOf();
    expect(level.target).toBe(ts.ScriptTarget[CHECK_COMPILER_OPTIONS.target!]);
    expect(level.strict).toBe(CHECK_COMPILER_OPTIONS.strict);
    expect(level.noUncheckedIndexedAccess).toBe(CHECK_COMPILER_OPTIONS.noUncheckedIndexedAccess);
    expect(level.exactOptionalPropertyTypes).toBe(CHECK_COMPILER_OPTIONS.exactOptionalPropertyTypes);
    expect(level.useUnknownInCatchVariables).toBe(CHECK_COMPILER_OPTIONS.useUnknownInCatchVariables);
    // Every lib file the check loads is in the base year or named as an addition.
    for (const file of PROGRAM_LIB) {
      const year = Number(/^lib\.es(\d{4})\./.exec(file)?.[1] ?? 5);
      if (year > level.lib.year) expect(level.lib.plus).toContain(file.slice(4, -5));
    }
  });

  it('follows the options: another flag, target or lib gives another line', () => {
    const line = (changes: ts.CompilerOptions) => languageLevelLine({ ...CHECK_COMPILER_OPTIONS, ...changes });
    expect(line({ noUncheckedIndexedAccess: true })).toContain('noUncheckedIndexedAccess on (`xs[i]` is `T | undefined`)');
    expect(line({ exactOptionalPropertyTypes: true })).toContain('exactOptionalPropertyTypes on (`{ a?: T }` refuses `a: undefined`)');
    expect(line({ useUnknownInCatchVariables: undefined })).toContain('useUnknownInCatchVariables on');
    expect(line({ strict: false, useUnknownInCatchVariables: undefined })).toContain('strict off; ');
    expect(line({ target: ts.ScriptTarget.ES2022 })).toContain('target ES2022,');
    expect(line({ lib: ['lib.es2024.full.d.ts'] })).toContain('lib es2024 (DOM, no Node types)');
    expect(line({ lib: ['lib.es2022.d.ts'] })).toContain('lib es2022 (no DOM, no Node types)');
    expect(line({ lib: ['lib.es2022.d.ts', 'lib.es2023.array.d.ts'] })).toContain('lib es2022 + es2023.array (no DOM');
  });
});

describe('a program relying on what the line says', () => {
  const level = languageLevelOf();

  it('compiles or fails as each flag says', () => {
    // strict: null is not a string.
    expect(compiles('const s: string = null as unknown as null; return s;')).toBe(!level.strict);
    // noUncheckedIndexedAccess: an indexed read is the element type.
    expect(compiles('const xs = [1, 2]; const n: number = xs[0]; return n;')).toBe(!level.noUncheckedIndexedAccess);
    // exactOptionalPropertyTypes: an optional field takes undefined.
    expect(compiles('const page: { cursor?: string } = { cursor: undefined }; return page;')).toBe(!level.exactOptionalPropertyTypes);
    // useUnknownInCatchVariables: the caught value can be read without a check.
    expect(compiles('try { return 1; } catch (e) { return e.message.length; }')).toBe(!level.useUnknownInCatchVariables);
  });

  it('has the built-ins of the lib it names, and not those it leaves out', () => {
    expect(level.lib.year).toBe(2023);
    expect(compiles('return [3, 1].toSorted().findLast((x) => x > 0);')).toBe(true); // es2023.array
    expect(compiles("return 'a'.isWellFormed();")).toBe(level.lib.plus.includes('es2024.string'));
    expect(compiles('return /[\\p{L}--[a-z]]/v.test("A");')).toBe(level.lib.plus.includes('es2024.regexp'));
    expect(compiles('return Object.groupBy([1], (x) => String(x));')).toBe(level.lib.plus.includes('es2024.object'));
    expect(compiles("return new Intl.Segmenter('en').segment('a');")).toBe(!level.lib.without.includes('intl'));
    expect(compiles('return new WeakRef({});')).toBe(!level.lib.without.includes('weakref'));
  });
});
