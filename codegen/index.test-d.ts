import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { Tool, ToolHost } from '../tools/index.js';
import {
  callableNameOf,
  checkCode,
  CodeChecker,
  generateToolTypes,
  normalizeProgram,
  zodFromJsonSchema,
  type CheckableTypes,
  type CheckResult,
  type CodeDiagnostic,
  type GeneratedToolTypes,
} from './index.js';

describe('the public codegen surface', () => {
  it('generates from an array of tools or a host, with an optional exclude list', () => {
    expectTypeOf(generateToolTypes).parameter(0).toEqualTypeOf<readonly Tool[] | ToolHost>();
    expectTypeOf(generateToolTypes).parameter(1).toEqualTypeOf<{ readonly exclude?: readonly string[] } | undefined>();
    expectTypeOf(generateToolTypes).returns.toEqualTypeOf<GeneratedToolTypes>();
    // @ts-expect-error a string is not a tool set
    generateToolTypes('tools');
  });

  it('exposes the declaration text and both name maps, read-only', () => {
    expectTypeOf<GeneratedToolTypes['declarations']>().toEqualTypeOf<string>();
    expectTypeOf<GeneratedToolTypes['callableNames']>().toEqualTypeOf<ReadonlyMap<string, string>>();
    expectTypeOf<GeneratedToolTypes['toolNames']>().toEqualTypeOf<ReadonlyMap<string, string>>();
    const generated = {} as GeneratedToolTypes;
    // @ts-expect-error the result is read-only
    generated.declarations = '';
  });

  it('checks code against declaration text or a generated result', () => {
    expectTypeOf(checkCode).parameter(1).toEqualTypeOf<string | CheckableTypes>();
    expectTypeOf<GeneratedToolTypes>().toMatchTypeOf<CheckableTypes>();
    expectTypeOf(checkCode).returns.toEqualTypeOf<CheckResult>();
    expectTypeOf<CheckResult['diagnostics']>().toEqualTypeOf<readonly CodeDiagnostic[]>();
    expectTypeOf<CodeDiagnostic['category']>().toEqualTypeOf<'error' | 'warning'>();
    expectTypeOf<CodeDiagnostic>().toEqualTypeOf<{
      readonly line: number;
      readonly column: number;
      readonly message: string;
      readonly code: number;
      readonly category: 'error' | 'warning';
    }>();
    expectTypeOf(new CodeChecker('').check).returns.toEqualTypeOf<CheckResult>();
  });

  it('normalizes to a body and a line offset, and maps names to strings', () => {
    expectTypeOf(normalizeProgram).returns.toHaveProperty('body').toEqualTypeOf<string>();
    expectTypeOf(normalizeProgram).returns.toHaveProperty('lineOffset').toEqualTypeOf<number>();
    expectTypeOf(callableNameOf).toEqualTypeOf<(toolName: string) => string>();
  });

  it('converts JSON Schema from unknown input to a zod schema and warnings', () => {
    expectTypeOf(zodFromJsonSchema).parameter(0).toEqualTypeOf<unknown>();
    expectTypeOf(zodFromJsonSchema).returns.toHaveProperty('schema').toEqualTypeOf<z.ZodType>();
    expectTypeOf(zodFromJsonSchema).returns.toHaveProperty('warnings').toEqualTypeOf<string[]>();
  });
});
