import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolHost, defineTool, type Tool } from '../tools/index.js';
import { checkCode, CodeChecker } from './check-code.js';
import { CallableNameCollisionError, CodegenInputError } from './errors.js';
import { fixtureTools } from './fixtures/fixture-tools.js';
import { generateToolTypes } from './generate-tool-types.js';
import { parametersFromJsonSchema } from './json-schema.js';

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

  // Three whole programs with the DOM lib: seconds on a loaded machine, so more than the default timeout.
  it('compiles under tsc --strict with no errors', { timeout: 60_000 }, () => {
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

  it('declares nothing global besides the tool types, ToolCallError, console and sleep', () => {
    const source = ts.createSourceFile('g.d.ts', generated.declarations, ts.ScriptTarget.Latest);
    const names = source.statements.map((s) => {
      if (ts.isVariableStatement(s)) return s.declarationList.declarations.map((d) => d.name.getText(source)).join();
      return (s as ts.DeclarationStatement).name?.getText(source) ?? ts.SyntaxKind[s.kind];
    });
    expect(names).toEqual(['ToolArgsMap', 'ToolOutputMap', 'RecursiveValue_1', 'Tools', 'tools', 'ToolCallError', 'Console', 'console', 'sleep']);
  });
});

describe('when typing schema shapes', () => {
  it('makes defaulted and non-required arguments optional for the caller and keeps required ones required', () => {
    const t = typesOf(fixtureTools, 'github.search-issues');
    expect(t.argsType).toMatch(/\n {4}repo: string;/);
    expect(t.argsType).toMatch(/\n {4}state\?: "open" \| "closed" \| "all";/);
    expect(t.argsType).toMatch(/\n {4}limit\?: number;/);
    expect(t.argsType).toMatch(/\n {4}labels\?: \(\/\* @minLength 1 \*\/ string\)\[\];/);
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

/** Whether `code` type-checks against the declarations of `tools`. */
function checks(tools: readonly Tool[], code: string): boolean {
  return checkCode(code, generateToolTypes(tools)).ok;
}

describe('when an object has a catchall besides its properties', () => {
  const tools = [
    tool('extra', { parameters: z.object({ name: z.string(), size: z.boolean().optional() }).catchall(z.number()) }),
    tool('mcp.tool', {
      parameters: parametersFromJsonSchema({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: { type: 'number' } }).schema,
    }),
  ];

  it('joins the properties\' types into the index signature, so the declaration compiles (no TS2411)', () => {
    const generated = generateToolTypes(tools);
    expect(generated.tools[0]!.argsType).toContain('[key: string]: number | string | boolean | undefined;');
    expect(generated.tools[1]!.argsType).toContain('[key: string]: number | string;');
    expect(strictCompileErrors(generated.declarations)).toEqual([]);
  });

  it('accepts a call with extra keys and rejects a wrong property type', () => {
    expect(checks(tools, `await tools.extra({ name: 'a', x: 1 });\nawait tools.mcp_tool({ name: 'a', x: 1 });`)).toBe(true);
    expect(checks(tools, `await tools.extra({ name: 1 });`)).toBe(false);
    expect(checks(tools, `await tools.mcp_tool({ name: 1 });`)).toBe(false);
  });
});

describe('when a tool takes no arguments', () => {
  const tools = [
    tool('ping'),
    tool('open', { parameters: z.object({}) }),
    tool('loose', { parameters: z.looseObject({}) }),
    tool('nested', { parameters: z.object({ opts: z.strictObject({}) }) }),
  ];

  it('types strict empty arguments as Record<string, never> and stripping or loose ones as an index of unknown', () => {
    const generated = generateToolTypes(tools);
    const args = Object.fromEntries(generated.tools.map((t) => [t.toolName, t.argsType]));
    expect(args.ping).toBe('Record<string, never>');
    expect(args.open).toBe('{\n    [key: string]: unknown;\n}');
    expect(args.loose).toBe('{\n    [key: string]: unknown;\n}');
    expect(args.nested).toContain('opts: Record<string, never>;');
    expect(generated.toolsDeclaration).toContain('ping(args?: ToolArgsMap["ping"])');
  });

  it('accepts tools.ping() and tools.ping({}) but not a string, a number, an array or unknown keys', () => {
    expect(checks(tools, `await tools.ping();\nawait tools.ping({});\nawait tools.open();\nawait tools.open({ junk: 1 });`)).toBe(true);
    for (const bad of ['tools.ping("hello")', 'tools.ping(42)', 'tools.ping([1, 2])', 'tools.ping({ junk: 1 })', 'tools.open("hello")', 'tools.open(42)', 'tools.open([1, 2])']) {
      expect(checks(tools, `await ${bad};`), bad).toBe(false);
    }
  });
});

describe('when an output schema accepts undefined', () => {
  const tools = [
    tool('op', { output: { schema: z.string().optional() } }),
    tool('vo', { output: { schema: z.void() } }),
    tool('un', { output: { schema: z.undefined() } }),
    tool('uni', { output: { schema: z.union([z.number(), z.undefined()]) } }),
    tool('nop', { output: { schema: z.string().nullable().optional() } }),
    tool('nest', { output: { schema: z.union([z.string(), z.undefined()]).nullable().optional() } }),
    tool('obj', { output: { schema: z.object({ a: z.string().optional() }) } }),
    tool('unk', { output: { schema: z.unknown() } }),
    tool('def', { output: { schema: z.string().default('x') } }),
  ];

  it('types the absent value as null, which is what the pipeline resolves it to', () => {
    const out = Object.fromEntries(generateToolTypes(tools).tools.map((t) => [t.toolName, t.outputType]));
    expect(out).toEqual({
      op: 'string | null',
      vo: 'null',
      un: 'null',
      uni: 'number | null',
      nop: 'string | null',
      nest: 'string | null',
      obj: '{\n    a?: string;\n}',
      unk: 'unknown',
      def: 'string',
    });
  });

  it('makes a program compare with null, not undefined', () => {
    expect(checks(tools, `const v = await tools.op();\nif (v !== null) return v.length;\nconst n: null = await tools.vo();\nreturn n;`)).toBe(true);
    expect(checks(tools, `const v = await tools.op();\nif (v !== undefined) return v.length;`)).toBe(false);
  });

  it('wraps a type it cannot see into Exclude, and survives a schema that throws on undefined', () => {
    type Node = { next?: Node };
    const node: z.ZodType<Node | undefined> = z.lazy(() => z.object({ next: node }).optional());
    const throwing = z.string().optional().transform((s) => {
      if (s === undefined) throw new Error('no');
      return s;
    });
    const generated = generateToolTypes([tool('lazy', { output: { schema: node } }), tool('throws', { output: { schema: throwing } })]);
    expect(generated.tools[0]!.outputType).toMatch(/^Exclude<.*, undefined \| void> \| null$/s);
    expect(strictCompileErrors(generated.declarations)).toEqual([]);
  });
});

describe('when a schema has a Date or a BigInt', () => {
  it('types them as unknown with a warning naming the tool: no Date or BigInt crosses JSON', () => {
    const generated = generateToolTypes([tool('d', { parameters: z.object({ when: z.date(), n: z.bigint() }), output: { schema: z.object({ at: z.date() }) } })]);
    expect(generated.tools[0]!.argsType).toContain('when: /* unknown: a Date cannot cross the tool boundary (JSON) */ unknown;');
    expect(generated.tools[0]!.argsType).toContain('n: /* unknown: a BigInt cannot cross the tool boundary (JSON) */ unknown;');
    expect(generated.tools[0]!.outputType).toContain('at: /* unknown: a Date cannot cross the tool boundary (JSON) */ unknown;');
    expect(generated.warnings).toEqual([
      'tool "d" parameters: a Date cannot cross the tool boundary (JSON); typed as unknown',
      'tool "d" parameters: a BigInt cannot cross the tool boundary (JSON); typed as unknown',
      'tool "d" output.schema: a Date cannot cross the tool boundary (JSON); typed as unknown',
    ]);
  });

  it('types a coercing Date or BigInt argument as the string or number it is coerced from, with no warning', () => {
    const generated = generateToolTypes([tool('c', { parameters: z.object({ when: z.coerce.date(), n: z.coerce.bigint() }) })]);
    expect(generated.tools[0]!.argsType).toContain('when: string | number;');
    expect(generated.tools[0]!.argsType).toContain('n: string | number;');
    expect(generated.warnings).toEqual([]);
  });
});

describe('when an argument is preprocessed', () => {
  const tools = [tool('pre', { parameters: z.object({ n: z.preprocess((v) => (typeof v === 'string' ? Number(v) : v), z.number()), o: z.preprocess((v) => v, z.number().optional()) }) })];

  it('takes its optionality from the target schema, not the preprocess step', () => {
    const t = typesOf(tools, 'pre');
    expect(t.argsType).toMatch(/\n {4}n: number;/);
    expect(t.argsType).toMatch(/\n {4}o\?: number;/);
    expect(t.argsOptional).toBe(false);
    expect(checks(tools, 'await tools.pre({});')).toBe(false);
    expect(checks(tools, 'await tools.pre({ n: 1 });')).toBe(true);
  });
});

describe('when record values or tuple elements may be absent', () => {
  it('types a record keyed by literals whose value is optional as Partial', () => {
    const t = typesOf([tool('r', { parameters: z.object({ m: z.record(z.enum(['cpu', 'mem']), z.number().optional()), d: z.record(z.enum(['a']), z.number().default(1)) }), output: { schema: z.object({ d: z.record(z.enum(['a']), z.number().default(1)) }) } })], 'r');
    expect(t.argsType).toContain('m: Partial<Record<"cpu" | "mem", number>>;');
    expect(t.argsType).toContain('d: Partial<Record<"a", number>>;');
    expect(t.outputType).toContain('d: Record<"a", number>;');
  });

  it('marks a defaulted trailing tuple element optional for the caller only, and a non-trailing optional one T | undefined', () => {
    const schema = z.tuple([z.string().optional(), z.string(), z.number().default(1)]);
    const t = typesOf([tool('tu', { parameters: z.object({ t: schema }), output: { schema: z.object({ t: schema }) } })], 'tu');
    expect(t.argsType).toContain('t: [\n        string | undefined,\n        string,\n        number?\n    ];');
    expect(t.outputType).toContain('t: [\n        string | undefined,\n        string,\n        number\n    ];');
    expect(checks([tool('tu', { parameters: z.object({ t: schema }) })], `await tools.tu({ t: [undefined, 'a'] });`)).toBe(true);
  });
});

describe('when an array\'s elements are optional or defaulted', () => {
  // JSON has no undefined element: a program's becomes null (refused by the schema), a tool's is
  // refused by the pipeline. The element type is the type without undefined, on both sides.
  const tools = [
    tool('arrin', { parameters: z.object({ xs: z.array(z.string().optional()), ys: z.array(z.number().default(1)) }) }),
    tool('arrout', { output: { schema: z.array(z.string().optional()) } }),
  ];

  it('types the element without undefined', () => {
    expect(typesOf(tools, 'arrin').argsType).toMatch(/xs: string\[\];/);
    expect(typesOf(tools, 'arrin').argsType).toMatch(/ys: number\[\];/);
    expect(typesOf(tools, 'arrout').outputType).toBe('string[]');
  });

  it('refuses a program that would send an undefined element', () => {
    expect(checks(tools, 'return await tools.arrin({ xs: ["a", undefined], ys: [] });')).toBe(false);
    expect(checks(tools, 'return await tools.arrin({ xs: ["a"], ys: [2] });')).toBe(true);
    expect(checks(tools, 'const v = await tools.arrout(); return v.map((s) => s.length);')).toBe(true);
  });
});

describe('when literals and keys are not ASCII', () => {
  const values = ['Zürich', '東京', '😀', 'a\u202Eb', '\\u00FC', 'zero\u200Bwidth', 'line\u2028sep', 'nb\u00A0sp', 'lone\uD800'] as const;
  const tools = [
    tool('w', {
      parameters: z.object({ city: z.enum(values).describe('Stadt \\u00FC'), 'température': z.number() }),
      output: { schema: z.object({ 'température': z.literal('°C') }) },
    }),
  ];

  it('prints readable characters as themselves and keeps invisible or reordering ones escaped', () => {
    const generated = generateToolTypes(tools);
    const args = generated.tools[0]!.argsType;
    expect(args).toContain('city: "Zürich" | "東京" | "😀" | "a\\u202Eb" | "\\\\u00FC" | "zero\\u200Bwidth" | "line\\u2028sep" | "nb\\u00A0sp" | "lone\\uD800";');
    expect(args).toContain('"température": number;');
    expect(generated.tools[0]!.outputType).toContain('"température": "°C";');
    expect(args).toContain('/** Stadt \\u00FC */'); // a description is the author's text, not a literal
    expect(strictCompileErrors(generated.declarations)).toEqual([]);
  });

  it('keeps the literal types the same values', () => {
    expect(checks(tools, `await tools.w({ city: 'Zürich', 'température': 1 });\nawait tools.w({ city: '\\\\u00FC', 'température': 1 });\nawait tools.w({ city: 'a\\u202Eb', 'température': 1 });`)).toBe(true);
    expect(checks(tools, `await tools.w({ city: 'Zurich', 'température': 1 });`)).toBe(false);
  });
});

describe('when the generated types are compared as types (not text)', () => {
  const checker = new CodeChecker(generateToolTypes(fixtureTools));
  const equal = 'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;\n';
  const exact: Record<string, string> = {
    'get_weather args (default optional)':
      `ToolArgsMap['get_weather'], { city: string; units?: 'metric' | 'imperial'; days?: number; at?: string; hours?: number; notify?: string[]; callback?: string }`,
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
    expect(generated.argsMap).toContain('"a.b-c/d:e": Record<string, never>;');
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

describe('when parameters carry constraints the pipeline enforces', () => {
  /** The JSDoc tag lines (`@name value`) of one argument property, in order. */
  function tagsOf(args: string, key: string): string[] {
    const lines = args.split('\n');
    const at = lines.findIndex((line) => new RegExp(`^ {4}${key}\\??: `).test(line));
    if (at < 0) throw new Error(`no property ${key} in\n${args}`);
    const doc: string[] = [];
    for (let i = at - 1; i >= 0 && /^ {4}(\/\*\*| \*)/.test(lines[i]!); i--) doc.unshift(lines[i]!);
    return doc.map((line) => line.replace(/^\s*(\/\*\*|\*) ?/, '').replace(/ ?\*\/$/, '')).filter((text) => text.startsWith('@'));
  }

  it('shows the bundled docs_search its bounds, so `limit: 50` and an empty query are not a surprise', async () => {
    const { docsSearch } = await import('../examples/tools/documents.js');
    const args = generateToolTypes([docsSearch]).tools[0]!.argsType;
    expect(tagsOf(args, 'limit')).toEqual(['@integer', '@minimum 1', '@maximum 10', '@default 3']);
    expect(tagsOf(args, 'query')).toEqual(['@minLength 1']);
    expect(args).toContain('/**\n     * Hits per page\n     * @integer');
  });

  it('shows numeric bounds, exclusive bounds, integer and multipleOf of a zod number', () => {
    const args = typesOf([tool('n', { parameters: z.object({
      a: z.number().min(-5).max(5),
      b: z.number().positive().lt(1),
      c: z.int().multipleOf(3).nonnegative(),
      d: z.int32(),
    }) })], 'n').argsType;
    expect(tagsOf(args, 'a')).toEqual(['@minimum -5', '@maximum 5']);
    expect(tagsOf(args, 'b')).toEqual(['@exclusiveMinimum 0', '@exclusiveMaximum 1']);
    expect(tagsOf(args, 'c')).toEqual(['@integer', '@multipleOf 3', '@minimum 0']);
    expect(tagsOf(args, 'd')).toEqual(['@integer', '@format int32']);
  });

  it('shows string lengths, formats and patterns, and array item counts', () => {
    const args = typesOf([tool('s', { parameters: z.object({
      exact: z.string().length(4),
      email: z.email(),
      link: z.string().url(),
      id: z.uuid(),
      when: z.iso.datetime(),
      day: z.iso.date(),
      code: z.string().regex(/^[a-z]+$/i),
      prefixed: z.string().startsWith('ab').endsWith('z'),
      list: z.array(z.number()).min(2).max(4),
    }) })], 's').argsType;
    expect(tagsOf(args, 'exact')).toEqual(['@minLength 4', '@maxLength 4']);
    expect(tagsOf(args, 'email')).toEqual(['@format email']);
    expect(tagsOf(args, 'link')).toEqual(['@format uri']);
    expect(tagsOf(args, 'id')).toEqual(['@format uuid']);
    expect(tagsOf(args, 'when')).toEqual(['@format date-time']);
    expect(tagsOf(args, 'day')).toEqual(['@format date']);
    expect(tagsOf(args, 'code')).toEqual(['@pattern ^[a-z]+$ (flags i)']);
    expect(tagsOf(args, 'prefixed')).toEqual(['@startsWith "ab"', '@endsWith "z"']);
    expect(tagsOf(args, 'list')).toEqual(['@minItems 2', '@maxItems 4']);
  });

  it('shows the default through optional and nullable wrappers, and the checks under it', () => {
    const args = typesOf([tool('d', { parameters: z.object({
      page: z.number().int().min(1).default(1).optional(),
      sort: z.enum(['asc', 'desc']).nullable().default('asc'),
      fields: z.array(z.string()).default(['id', 'name']),
    }) })], 'd').argsType;
    expect(tagsOf(args, 'page')).toEqual(['@integer', '@minimum 1', '@default 1']);
    expect(tagsOf(args, 'sort')).toEqual(['@default "asc"']);
    expect(tagsOf(args, 'fields')).toEqual(['@default ["id","name"]']);
  });

  it('shows the shorthand form\'s constraints, which it translates to the same zod checks', () => {
    const args = typesOf([tool('sh', { parameters: {
      name: { type: 'string', required: true, minLength: 2, maxLength: 40, pattern: '^[a-z]' },
      count: { type: 'integer', minimum: 0, maximum: 9, default: 5 },
      ids: { type: 'array', items: { type: 'string' }, minItems: 1 },
    } })], 'sh').argsType;
    expect(tagsOf(args, 'name')).toEqual(['@minLength 2', '@maxLength 40', '@pattern ^[a-z]']);
    expect(tagsOf(args, 'count')).toEqual(['@integer', '@minimum 0', '@maximum 9', '@default 5']);
    expect(tagsOf(args, 'ids')).toEqual(['@minItems 1']);
  });

  it('writes the constraints of an array element or a union member inline, next to the type they bound', () => {
    const args = typesOf([tool('i', { parameters: z.object({
      tags: z.array(z.string().min(1).max(20)).max(5),
      either: z.union([z.email(), z.number().int()]),
    }) })], 'i').argsType;
    expect(args).toContain('tags: (/* @minLength 1 @maxLength 20 */ string)[];');
    expect(tagsOf(args, 'tags')).toEqual(['@maxItems 5']);
    expect(args).toContain('either: /* @format email */ string | /* @integer */ number;');
  });

  it('shows no constraints on the output side: the model reads the value, it does not write it', () => {
    const t = typesOf([tool('o', { output: { schema: z.object({ n: z.number().int().max(3), s: z.string().min(1) }) } })], 'o');
    expect(t.outputType).not.toContain('@');
  });

  it('keeps hostile constraint values inside their comment: huge numbers, `*/`, newlines, bidi characters, long defaults', () => {
    const generated = generateToolTypes([tool('h', { parameters: z.object({
      big: z.number().max(1e308).multipleOf(1e-300),
      re: z.string().regex(new RegExp('a*/ declare const process: any; /*\nb\u202Ec')),
      affix: z.string().startsWith('*/ declare const require: any; /*'),
      long: z.string().default('x'.repeat(100_000)),
      inline: z.array(z.string().regex(/x*\/ declare const fetch: any; \/*/)),
    }) })]);
    expect(strictCompileErrors(generated.declarations)).toEqual([]);
    const args = generated.tools[0]!.argsType;
    expect(args).not.toMatch(/^\s*declare const/m);
    expect(args).not.toContain('\u202E');
    expect(tagsOf(args, 'big')).toEqual(['@maximum 1e+308', '@multipleOf 1e-300']);
    expect(tagsOf(args, 're')).toEqual(['@pattern a*\\/ declare const process: any; \\/*\\nb\\u202Ec']);
    const long = tagsOf(args, 'long')[0]!;
    expect(long.length).toBeLessThan(220);
    expect(long).toMatch(/^@default "x+…$/);
    // The whole program still checks: no declaration escaped into the program's scope.
    expect(checks([tool('h', { parameters: z.object({ re: z.string().regex(/a*\/ declare const process: any; \/*/) }) })], 'process.exit(1);')).toBe(false);
  });

  it('shows the constraints of every tool of a large set (500 tools)', () => {
    const many = Array.from({ length: 500 }, (_, i) => tool(`t${i}`, { parameters: z.object({
      q: z.string().min(1).max(100).regex(/^[a-z]+$/), n: z.number().int().min(0).max(10).default(3), e: z.array(z.email()).max(5),
    }) }));
    const text = generateToolTypes(many).declarations;
    expect(text.match(/@maximum 10/g)).toHaveLength(500);
  });
});
