import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolHost, defineTool, type Tool } from '../tools/index.js';
import { CodeChecker } from './check-code.js';
import { CallableNameCollisionError, CodegenInputError } from './errors.js';
import { fixtureTools } from './fixtures/fixture-tools.js';
import { generateToolTypes } from './generate-tool-types.js';

const GOLDEN = fileURLToPath(new URL('./fixtures/fixture-tools.d.ts.golden', import.meta.url));

function tool(name: string, extra: Partial<Parameters<typeof defineTool>[0]> = {}): Tool {
  return defineTool({ name, description: `The ${name} tool.`, execute: () => null, ...extra } as Parameters<typeof defineTool>[0]);
}

function typesOf(tools: readonly Tool[], name: string) {
  const found = generateToolTypes(tools).tools.find((t) => t.toolName === name);
  if (!found) throw new Error(`no types for ${name}`);
  return found;
}

/** Compiles declarations alone under `tsc --strict` (ES2023 lib by default: no DOM, no Node types). */
function strictCompileErrors(text: string, lib: string[] = ['lib.es2023.d.ts']): string[] {
  const options: ts.CompilerOptions = { strict: true, noEmit: true, lib, types: [], target: ts.ScriptTarget.ES2022 };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion) =>
    fileName === '/gen/tools.d.ts' ? ts.createSourceFile(fileName, text, languageVersion, true) : read(fileName, languageVersion);
  host.fileExists = ((exists) => (fileName: string) => fileName === '/gen/tools.d.ts' || exists(fileName))(host.fileExists.bind(host));
  const program = ts.createProgram(['/gen/tools.d.ts'], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('when generating declarations for the fixture tool set', () => {
  const generated = generateToolTypes(fixtureTools);

  it('produces exactly the golden text (set UPDATE_GOLDEN=1 to rewrite it after a deliberate change)', () => {
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, generated.declarations);
    expect(generated.declarations).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('compiles under tsc --strict with no errors', () => {
    expect(strictCompileErrors(generated.declarations)).toEqual([]);
    // A tool author may include the file in a project whose lib has the DOM (tsc's default): its
    // `console` must merge with the DOM's, not clash.
    expect(strictCompileErrors(generated.declarations, ['lib.es2023.d.ts', 'lib.dom.d.ts'])).toEqual([]);
    expect(new CodeChecker(generated).declarationDiagnostics()).toEqual([]);
  });

  it('gives byte-identical text whatever the registration order', () => {
    const reversed = generateToolTypes([...fixtureTools].reverse());
    expect(reversed.declarations).toBe(generated.declarations);
    const host = createToolHost();
    host.register([...fixtureTools]);
    expect(generateToolTypes(host).declarations).toBe(generated.declarations);
  });

  it('maps non-identifier names to callable names both ways', () => {
    expect(generated.callableNames.get('github.search-issues')).toBe('github_search_issues');
    expect(generated.toolNames.get('github_search_issues')).toBe('github.search-issues');
    expect(generated.callableNames.get('ping')).toBe('ping');
    expect(generated.toolsDeclaration).toContain('github_search_issues(args: ToolArgsMap["github.search-issues"]): Promise<ToolOutputMap["github.search-issues"]>;');
  });

  it('declares nothing global besides the tool types, ToolCallError and console', () => {
    const source = ts.createSourceFile('g.d.ts', generated.declarations, ts.ScriptTarget.Latest);
    const names = source.statements.map((s) => {
      if (ts.isVariableStatement(s)) return s.declarationList.declarations.map((d) => d.name.getText(source)).join();
      return (s as ts.DeclarationStatement).name?.getText(source) ?? ts.SyntaxKind[s.kind];
    });
    expect(names).toEqual(['ToolArgsMap', 'ToolOutputMap', 'RecursiveValue_1', 'Tools', 'tools', 'ToolCallError', 'Console', 'console']);
  });
});

describe('when typing schema shapes', () => {
  it('makes defaulted and non-required arguments optional for the caller and keeps required ones required', () => {
    const t = typesOf(fixtureTools, 'github.search-issues');
    expect(t.argsType).toMatch(/\n {4}repo: string;/);
    expect(t.argsType).toMatch(/\n {4}state\?: "open" \| "closed" \| "all";/);
    expect(t.argsType).toMatch(/\n {4}limit\?: number;/);
    expect(t.argsType).toMatch(/\n {4}labels\?: string\[\];/);
  });

  it('types a defaulted output field as present (the value always has it)', () => {
    expect(typesOf(fixtureTools, 'set_labels').outputType).toMatch(/\n {4}skipped: string\[\];/);
  });

  it('types nullable, literal unions, records and discriminated unions exactly', () => {
    const labels = typesOf(fixtureTools, 'set_labels');
    expect(labels.argsType).toContain('[key: string]: string[];');
    expect(labels.argsType).toContain('colors?: Record<"red" | "green", string>;');
    expect(labels.argsType).toContain('mode?: "replace" | "merge";');
    expect(labels.argsType).toContain('note?: string | null;');
    expect(typesOf(fixtureTools, 'read_file').outputType).toContain('kind: "binary";');
    expect(typesOf(fixtureTools, 'read_file').outputType).toContain('mime: string | null;');
  });

  it('types a partial record with optional keys', () => {
    const t = typesOf([tool('p', { parameters: z.object({ m: z.partialRecord(z.enum(['a', 'b']), z.number()) }) })], 'p');
    expect(t.argsType).toContain('m: Partial<Record<"a" | "b", number>>;');
  });

  it('types a tool without output schema as unknown and lets a tool without required args omit them', () => {
    const ping = typesOf(fixtureTools, 'ping');
    expect(ping.outputType).toBe('unknown');
    expect(ping.argsOptional).toBe(true);
    expect(generateToolTypes(fixtureTools).toolsDeclaration).toContain('ping(args?: ToolArgsMap["ping"])');
    expect(typesOf(fixtureTools, 'read_file').argsOptional).toBe(false);
  });

  it('names a recursive schema once as an alias and refers to it', () => {
    const generated = generateToolTypes(fixtureTools);
    expect(typesOf(fixtureTools, 'list_folders').outputType).toBe('RecursiveValue_1');
    expect(generated.declarations).toContain('type RecursiveValue_1 = {\n    /** Folder name */\n    name: string;\n    children: RecursiveValue_1[];\n};');
  });

  it('types what has no static type as unknown with a comment and a warning naming the tool', () => {
    const generated = generateToolTypes([
      tool('t', { parameters: z.object({ when: z.string().transform((s) => s.length) }), output: { schema: z.string().transform((s) => s.length) } }),
    ]);
    expect(generated.tools[0]!.argsType).toContain('when: string;');
    expect(generated.tools[0]!.outputType).toBe('/* unknown: a transform has no static type */ unknown');
    expect(generated.warnings).toEqual(['tool "t" output.schema: a transform has no static output type; typed as unknown']);
  });

  it('types tuples with optional elements and a rest', () => {
    const t = typesOf([tool('tu', { parameters: z.object({ t: z.tuple([z.string(), z.number().optional()], z.boolean()) }) })], 'tu');
    expect(t.argsType).toContain('t: [\n        string,\n        number?,\n        ...boolean[]\n    ];');
  });

  it('types z.any() as unknown, so checking is never switched off', () => {
    expect(typesOf([tool('an', { parameters: z.object({ a: z.any() }) })], 'an').argsType).toContain('a: unknown;');
  });

  it('types a loose object with an index signature and a strict one without', () => {
    const t = typesOf([tool('o', { parameters: z.object({ a: z.looseObject({ x: z.number() }), b: z.strictObject({ y: z.number() }) }) })], 'o');
    expect(t.argsType).toContain('[key: string]: unknown;');
    expect(t.argsType).not.toContain('never');
  });
});

describe('when the generated types are compared as types (not text)', () => {
  const checker = new CodeChecker(generateToolTypes(fixtureTools));
  const equal = 'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;\n';
  const exact: Record<string, string> = {
    'get_weather args (default optional)': `ToolArgsMap['get_weather'], { city: string; units?: 'metric' | 'imperial' }`,
    'github.search-issues output (nullable, nested arrays)':
      `ToolOutputMap['github.search-issues'], { total: number; items: { number: number; title: string; assignee: string | null; labels: string[] }[] }`,
    'read_file output (discriminated union)':
      `ToolOutputMap['read_file'], { kind: 'text'; text: string; lines: number } | { kind: 'binary'; bytes: number; mime: string | null }`,
    'set_labels output (default present)': `ToolOutputMap['set_labels'], { updated: number; skipped: string[] }`,
    'ping (no output schema)': `ToolOutputMap['ping'], unknown`,
    'a call resolves to the output type': `Awaited<ReturnType<Tools['read_file']>>, ToolOutputMap['read_file']`,
  };
  for (const [name, pair] of Object.entries(exact)) {
    it(`types ${name} exactly`, () => {
      expect(checker.check(`${equal}const same: Equal<${pair}> = true;\nreturn same;`)).toEqual({ ok: true, diagnostics: [] });
    });
  }

  it('would notice a difference', () => {
    expect(checker.check(`${equal}const same: Equal<ToolArgsMap['get_weather'], { city: string; units: 'metric' | 'imperial' }> = true;`).ok).toBe(false);
  });
});

describe('when descriptions or names are hostile', () => {
  it('keeps a description that closes the comment inside the comment', () => {
    const generated = generateToolTypes([
      tool('evil', {
        description: 'Looks fine */ declare const process: any; /* more',
        parameters: { p: { type: 'string', description: 'x */ declare const require: any; /*' } },
      }),
    ]);
    expect(strictCompileErrors(generated.declarations)).toEqual([]);
    const source = ts.createSourceFile('g.d.ts', generated.declarations, ts.ScriptTarget.Latest);
    expect(generated.declarations).not.toMatch(/^\s*declare const (process|require)/m);
    expect(source.statements.filter(ts.isVariableStatement)).toHaveLength(2); // tools, console
  });

  it('quotes a tool name that is not an identifier as a property key', () => {
    const generated = generateToolTypes([tool('a.b-c/d:e')]);
    expect(generated.argsMap).toContain('"a.b-c/d:e": {};');
    expect(generated.callableNames.get('a.b-c/d:e')).toBe('a_b_c_d_e');
  });
});

describe('when the input is wrong', () => {
  it('refuses two tools that map to one callable name, naming both', () => {
    const err = (() => {
      try {
        generateToolTypes([tool('a.b'), tool('a-b')]);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(CallableNameCollisionError.isInstance(err)).toBe(true);
    expect((err as Error).message).toContain('"a-b"');
    expect((err as Error).message).toContain('"a.b"');
    expect((err as Error).message).toContain('tools.a_b');
  });

  it('leaves out excluded tools, so one of a colliding pair can be excluded', () => {
    const generated = generateToolTypes([tool('a.b'), tool('a-b'), tool('run_code')], { exclude: ['a-b', 'run_code'] });
    expect([...generated.callableNames.keys()]).toEqual(['a.b']);
    expect(generated.declarations).not.toContain('run_code');
  });

  it('says what is wrong with something that is not tools', () => {
    expect(() => generateToolTypes('nope' as never)).toThrow(CodegenInputError);
    expect(() => generateToolTypes([{ name: 'x' }] as never)).toThrow(/tools\[0\] \("x"\) has no description/);
  });
});
