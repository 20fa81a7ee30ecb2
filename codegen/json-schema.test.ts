import { describe, expect, it } from 'vitest';
import { defineTool } from '../tools/index.js';
import { CodeChecker } from './check-code.js';
import { generateToolTypes } from './generate-tool-types.js';
import { MAX_JSON_SCHEMA_DEPTH, MAX_SCHEMA_DESCRIPTION_CHARS, parametersFromJsonSchema, zodFromJsonSchema } from './json-schema.js';

/** Generated types of a tool whose parameters and output come from JSON Schema. */
function typesFrom(parameters: unknown, output?: unknown) {
  const params = parametersFromJsonSchema(parameters);
  const out = output === undefined ? undefined : zodFromJsonSchema(output);
  const tool = defineTool({
    name: 'mcp.tool',
    description: 'From JSON Schema.',
    parameters: params.schema,
    ...(out ? { output: { schema: out.schema } } : {}),
    execute: () => null,
  });
  const generated = generateToolTypes([tool]);
  return { generated, args: generated.tools[0]!.argsType, output: generated.tools[0]!.outputType, warnings: [...params.warnings, ...(out?.warnings ?? [])] };
}

const object = (properties: Record<string, unknown>, required: string[] = Object.keys(properties), extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
  ...extra,
});

describe('when a schema uses $ref and $defs', () => {
  it('resolves #/$defs and #/definitions references, whatever the draft', () => {
    const addr = object({ street: { type: 'string' } });
    const { args, warnings } = typesFrom(object({ home: { $ref: '#/$defs/Addr' }, work: { $ref: '#/definitions/Addr' } }, ['home'], { $defs: { Addr: addr } }));
    expect(warnings).toEqual([]);
    expect(args).toBe('{\n    home: {\n        street: string;\n    };\n    work?: {\n        street: string;\n    };\n}');
    const draft7 = typesFrom({ $schema: 'http://json-schema.org/draft-07/schema#', ...object({ a: { $ref: '#/definitions/X' } }), definitions: { X: { enum: ['p', 'q'] } } });
    expect(draft7.args).toContain('a: "p" | "q";');
  });

  it('hoists a reference to any pointer in the document', () => {
    const { args, warnings } = typesFrom(object({ a: { type: 'array', items: { type: 'integer' } }, b: { $ref: '#/properties/a/items' } }));
    expect(warnings).toEqual([]);
    expect(args).toContain('b: number;');
  });

  it('types a recursive definition as a named alias', () => {
    const { generated, output } = typesFrom(object({}), {
      $ref: '#/$defs/Node',
      $defs: { Node: object({ value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }) },
    });
    expect(output).toBe('RecursiveValue_1');
    expect(generated.declarations).toContain('type RecursiveValue_1 = {\n    value: number;\n    children: RecursiveValue_1[];\n};');
    expect(new CodeChecker(generated).declarationDiagnostics()).toEqual([]);
  });

  it('types recursion through a union (not an object) as an alias too', () => {
    const { generated, output } = typesFrom(object({}), {
      $ref: '#/$defs/L',
      $defs: { L: { anyOf: [{ type: 'string' }, { type: 'array', items: { $ref: '#/$defs/L' } }] } },
    });
    expect(output).toBe('string | RecursiveValue_1[]');
    expect(generated.declarations).toContain('type RecursiveValue_1 = string | RecursiveValue_1[];');
    expect(new CodeChecker(generated).declarationDiagnostics()).toEqual([]);
  });

  it('types a remote or dangling reference as unknown with a comment and a warning', () => {
    const { args, warnings } = typesFrom(object({ r: { $ref: 'https://example.com/s.json' }, m: { $ref: '#/$defs/Missing' } }));
    expect(args).toContain('r: /* unknown: $ref "https://example.com/s.json" cannot be resolved (only references into this document are) */ unknown;');
    expect(args).toContain('m: /* unknown: $ref "#/$defs/Missing" cannot be resolved');
    expect(warnings).toEqual([
      '#/properties/r: $ref "https://example.com/s.json" cannot be resolved (only references into this document are); typed as unknown',
      '#/properties/m: $ref "#/$defs/Missing" cannot be resolved (only references into this document are); typed as unknown',
    ]);
  });
});

describe('when a schema uses unions, enums and constants', () => {
  it('types anyOf and oneOf as unions, and a oneOf of tagged objects as a discriminated union', () => {
    const { args, generated } = typesFrom(
      object({
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        shape: { oneOf: [object({ kind: { const: 'circle' }, r: { type: 'number' } }), object({ kind: { const: 'square' }, side: { type: 'number' } })] },
      }),
    );
    expect(args).toContain('id: string | /* @integer */ number;');
    expect(args).toContain('kind: "circle";');
    const checker = new CodeChecker(generated);
    expect(checker.check(`await tools.mcp_tool({ id: 1, shape: { kind: 'square', side: 2 } });`).ok).toBe(true);
    expect(checker.check(`await tools.mcp_tool({ id: 1, shape: { kind: 'square', r: 2 } });`).ok).toBe(false);
  });

  it('types enums (mixed too) and const as literals, and type arrays and nullable as unions with null', () => {
    const { args } = typesFrom(
      object({
        e: { type: 'string', enum: ['a', 'b'] },
        mixed: { enum: ['x', 1, null, true] },
        c: { const: 42 },
        n: { type: ['string', 'null'] },
        openapi: { type: 'integer', nullable: true },
      }),
    );
    expect(args).toContain('e: "a" | "b";');
    expect(args).toContain('mixed: "x" | 1 | null | true;');
    expect(args).toContain('c: 42;');
    expect(args).toContain('n: string | null;');
    expect(args).toContain('/** @integer */\n    openapi: number | null;');
  });

  it('types an enum of objects as unknown with a warning', () => {
    const { args, warnings } = typesFrom(object({ o: { enum: [{ a: 1 }] } }));
    expect(args).toContain('o: /* unknown: an enum of objects or arrays has no literal type */ unknown;');
    expect(warnings).toHaveLength(1);
  });
});

describe('when a schema uses additionalProperties', () => {
  it('types false as a closed object, a schema as a record, and absent as an open object', () => {
    const { args, generated } = typesFrom(
      object({
        closed: object({ a: { type: 'string' } }),
        rec: { type: 'object', additionalProperties: { type: 'integer' } },
        open: { type: 'object', properties: { a: { type: 'string' } } },
      }),
    );
    expect(args).toContain('rec: {\n        [key: string]: /* @integer */ number;\n    };');
    expect(args).toContain('open: {\n        a?: string;\n        [key: string]: unknown;\n    };');
    const checker = new CodeChecker(generated);
    expect(checker.check(`await tools.mcp_tool({ closed: { a: 'x' }, rec: { n: 1 }, open: { b: 2 } });`).ok).toBe(true);
    expect(checker.check(`await tools.mcp_tool({ closed: { a: 'x', b: 1 }, rec: {}, open: {} });`).ok).toBe(false);
    expect(checker.check(`await tools.mcp_tool({ closed: { a: 'x' }, rec: { n: 'one' }, open: {} });`).ok).toBe(false);
  });

  it('rejects an unknown top-level argument when the server says additionalProperties: false', () => {
    const { generated } = typesFrom(object({ a: { type: 'string' } }));
    expect(new CodeChecker(generated).check(`await tools.mcp_tool({ a: 'x', b: 1 });`).ok).toBe(false);
  });
});

describe('when a schema has what zod cannot express', () => {
  it('drops constraint-only keywords with a warning and keeps the type', () => {
    const { args, warnings } = typesFrom(object({ s: { type: 'string', if: { minLength: 2 }, then: { maxLength: 5 } }, t: { type: 'number', not: { const: 3 } } }));
    expect(args).toContain('s: string;');
    expect(args).toContain('t: number;');
    expect(warnings).toEqual([
      '#/properties/s/if: if/then/else cannot be expressed; dropped (not checked here, the tool still checks it)',
      '#/properties/t/not: "not" cannot be expressed; dropped (not checked here, the tool still checks it)',
    ]);
  });

  it('types an unknown type name as unknown', () => {
    const { args } = typesFrom(object({ f: { type: 'file' } }));
    expect(args).toContain('f: /* unknown: has no known type ("file") */ unknown;');
  });

  it('drops regular expressions by default, so a hostile pattern never runs on the host', () => {
    const hostile = '^(a+)+$';
    const { schema } = zodFromJsonSchema({ type: 'string', pattern: hostile });
    expect(schema.safeParse('a'.repeat(40) + '!').success).toBe(true);
    const kept = zodFromJsonSchema({ type: 'string', pattern: '^[a-z]+$' }, { patterns: 'keep' });
    expect(kept.schema.safeParse('ABC').success).toBe(false);
  });

  it('never throws on input that is not a schema, cyclic, too deep or malformed', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    let deep: unknown = { type: 'string' };
    for (let i = 0; i < MAX_JSON_SCHEMA_DEPTH + 10; i++) deep = { type: 'array', items: deep };
    for (const input of [null, 5, 'x', [], cyclic, deep, { type: 'object', properties: 'nope', required: 5 }, { type: 7 }, { $ref: 3 }, { anyOf: 'x' }]) {
      const result = zodFromJsonSchema(input);
      expect(result.warnings.length).toBeGreaterThan(0);
      expect(() => generateToolTypes([defineTool({ name: 't', description: 'T', output: { schema: result.schema }, execute: () => null })])).not.toThrow();
    }
  });

  it('falls back to a loose object for parameters that are not a plain object schema', () => {
    const { schema, warnings } = parametersFromJsonSchema({ type: 'string' });
    expect(schema.safeParse({ anything: 1 }).success).toBe(true);
    expect(warnings.at(-1)).toBe('#: the parameters schema is not a plain object schema; any arguments are accepted here');
  });

  it('types true as unknown and false as never', () => {
    expect(zodFromJsonSchema(true).schema.safeParse(1).success).toBe(true);
    expect(zodFromJsonSchema(false).schema.safeParse(1).success).toBe(false);
  });
});

describe('when the converted schema validates', () => {
  it('validates what the JSON Schema says (required, enum, additionalProperties)', () => {
    const { schema } = parametersFromJsonSchema(object({ q: { type: 'string' }, n: { type: 'integer', minimum: 1 } }, ['q']));
    expect(schema.safeParse({ q: 'x' }).success).toBe(true);
    expect(schema.safeParse({ n: 2 }).success).toBe(false);
    expect(schema.safeParse({ q: 'x', n: 0 }).success).toBe(false);
    expect(schema.safeParse({ q: 'x', extra: 1 }).success).toBe(false);
  });
});

describe('when a hostile server names, orders or loops its schemas to break the types', () => {
  it('lets an optional property named constructor or toString be left out, and still checks it when given', () => {
    const params = parametersFromJsonSchema({ type: 'object', properties: { constructor: { type: 'string' }, toString: { type: 'number' }, nested: { type: 'object', properties: { valueOf: { type: 'boolean' } } } }, required: [] });
    expect(params.schema.safeParse({}).success).toBe(true);
    expect(params.schema.safeParse({ nested: {} }).success).toBe(true);
    expect(params.schema.safeParse({ constructor: 'x', toString: 2, nested: { valueOf: true } }).success).toBe(true);
    expect(params.schema.safeParse({ constructor: 1 }).success).toBe(false);
    expect(params.schema.safeParse({ nested: { valueOf: 'no' } }).success).toBe(false);
    const required = parametersFromJsonSchema(object({ constructor: { type: 'string' } }));
    expect(required.schema.safeParse({}).success).toBe(false);
    const { args } = typesFrom({ type: 'object', properties: { constructor: { type: 'string', description: 'Who built it' } } });
    expect(args).toBe('{\n    /** Who built it */\n    constructor?: string;\n    [key: string]: unknown;\n}');
  });

  it('drops patternProperties whatever the key order, never leaving an object that refuses every key', () => {
    const before = { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false };
    const after = { type: 'object', additionalProperties: false, patternProperties: { '^x-': { type: 'string' } } };
    for (const schema of [before, after]) {
      const { output } = typesFrom(object({}), schema);
      expect(output).toBe('{\n    [key: string]: unknown;\n}');
      expect(zodFromJsonSchema(schema).schema.safeParse({ 'x-a': 'q' }).success).toBe(true);
    }
    const typed = { type: 'object', additionalProperties: { type: 'number' }, patternProperties: { '^s_': { type: 'string' } } };
    expect(zodFromJsonSchema(typed).schema.safeParse({ s_name: 'text', n: 1 }).success).toBe(true);
  });

  it('types a $ref cycle with no value in between as unknown, not as an alias of itself', () => {
    const { generated, args, warnings } = typesFrom(object({ x: { $ref: '#/$defs/a' } }, [], { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } }));
    expect(generated.declarations).not.toMatch(/type (\w+) = \1;/);
    expect(args).toContain('x?: /* unknown: $ref cycle with no value in between (#/$defs/a -> #/$defs/b -> #/$defs/a) */ unknown;');
    expect(warnings).toContainEqual(expect.stringMatching(/^#\/\$defs\/b: \$ref cycle with no value in between \(#\/\$defs\/a -> #\/\$defs\/b -> #\/\$defs\/a\); typed as unknown/));
    expect(new CodeChecker(generated).declarationDiagnostics()).toEqual([]);
    expect(parametersFromJsonSchema(object({ x: { $ref: '#/$defs/a' } }, [], { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } })).schema.safeParse({ x: 1 }).success).toBe(true);
  });

  it('keeps the keywords beside a $ref, so a cycle through them types what both sides say', () => {
    const schema = object({ x: { $ref: '#/$defs/a' } }, ['x'], {
      $defs: {
        a: { $ref: '#/$defs/b', type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        b: { $ref: '#/$defs/a', type: 'object', properties: { m: { type: 'string' } }, required: ['m'] },
      },
    });
    const { generated, args } = typesFrom(schema);
    expect(generated.declarations).not.toMatch(/type (\w+) = \1;/);
    expect(args).toMatch(/m: string;[\s\S]*n: number;/);
    const parse = parametersFromJsonSchema(schema).schema;
    expect(parse.safeParse({ x: { n: 1, m: 'a' } }).success).toBe(true);
    expect(parse.safeParse({ x: { n: 1 } }).success).toBe(false);
    expect(new CodeChecker(generated).declarationDiagnostics()).toEqual([]);
  });

  it('keeps a recursion through a value a real recursive type', () => {
    const { generated, args } = typesFrom(object({ x: { $ref: '#/$defs/a' } }, [], { $defs: { a: { type: 'object', properties: { b: { $ref: '#/$defs/b' } } }, b: { type: 'object', properties: { a: { $ref: '#/$defs/a' } } } } }));
    expect(args).toContain('x?: RecursiveArgs_1;');
    expect(generated.declarations).toMatch(/type RecursiveArgs_1 = \{\n {4}b\?: \{\n {8}a\?: RecursiveArgs_1;/);
  });

  it('cuts long descriptions and titles of properties, saying how many', () => {
    const { args, warnings } = typesFrom({ type: 'object', properties: { a: { type: 'string', description: 'd'.repeat(5000) }, b: { type: 'string', title: 't'.repeat(900) } } });
    expect(args).toContain(`/** ${'d'.repeat(MAX_SCHEMA_DESCRIPTION_CHARS - 1)}… */`);
    expect(args.length).toBeLessThan(2 * MAX_SCHEMA_DESCRIPTION_CHARS + 200);
    expect(warnings).toContain(`#: 2 description(s) or title(s) longer than ${MAX_SCHEMA_DESCRIPTION_CHARS} characters were cut`);
  });

  it('escapes bidi and zero-width characters of descriptions in the JSDoc the model reads', () => {
    const { args } = typesFrom({ type: 'object', properties: { a: { type: 'string', description: 'safe\u202Etxt.exe \u2066x\u2069 zero\u200Bwidth \u001b[2K' } } });
    expect(args).toContain('/** safe\\u202Etxt.exe \\u2066x\\u2069 zero\\u200Bwidth \\u001B[2K */');
    expect(args).not.toMatch(/[\u202E\u2066\u2069\u200B\u001b]/);
  });
});

describe('when a schema has constraints (MCP tools)', () => {
  /** The comment lines of the property `key` in generated args text. */
  function docOf(args: string, key: string): string {
    const lines = args.split('\n');
    const at = lines.findIndex((line) => new RegExp(`^ {4}${key}\\??: `).test(line));
    const doc: string[] = [];
    for (let i = at - 1; i >= 0 && /^ {4}(\/\*\*| \*)/.test(lines[i]!); i--) doc.unshift(lines[i]!.trim());
    return doc.join('\n');
  }

  it('shows bounds, lengths, formats, item counts and defaults as JSDoc tags, as the converted schema enforces them', () => {
    const parameters = object({
      limit: { type: 'integer', minimum: 1, maximum: 10, default: 3, description: 'Hits per page' },
      ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 },
      query: { type: 'string', minLength: 1, maxLength: 200 },
      email: { type: 'string', format: 'email' },
      when: { type: 'string', format: 'date-time' },
      ids: { type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1, maxItems: 3 },
    }, ['query']);
    const { args } = typesFrom(parameters);
    expect(docOf(args, 'limit')).toBe('/**\n* Hits per page\n* @integer\n* @minimum 1\n* @maximum 10\n* @default 3\n*/');
    expect(docOf(args, 'ratio')).toBe('/**\n* @exclusiveMinimum 0\n* @exclusiveMaximum 1\n* @multipleOf 0.25\n*/');
    expect(docOf(args, 'query')).toBe('/**\n* @minLength 1\n* @maxLength 200\n*/');
    expect(docOf(args, 'email')).toBe('/** @format email */');
    expect(docOf(args, 'when')).toBe('/** @format date-time */');
    expect(docOf(args, 'ids')).toBe('/**\n* @minItems 1\n* @maxItems 3\n*/');
    expect(args).toContain('ids?: (/* @format uuid */ string)[];');
    const { schema } = parametersFromJsonSchema(parameters);
    expect(schema.safeParse({ query: 'x', limit: 11 }).success).toBe(false);
    expect(schema.safeParse({ query: '' }).success).toBe(false);
    expect(schema.safeParse({ query: 'x', limit: 10, ratio: 0.5 }).success).toBe(true);
  });

  it('notes a dropped pattern (the server checks it; the host never runs it)', () => {
    const hostile = '^(a+)+$';
    const { args } = typesFrom(object({ code: { type: 'string', pattern: hostile, description: 'A code' } }));
    expect(docOf(args, 'code')).toBe('/**\n* A code\n* @pattern ^(a+)+$\n*/');
    const { schema } = parametersFromJsonSchema(object({ code: { type: 'string', pattern: hostile } }));
    expect(schema.safeParse({ code: 'a'.repeat(40) + '!' }).success).toBe(true);
  });

  it('keeps a hostile pattern or default inside its comment', () => {
    const { generated, args } = typesFrom(object({
      p: { type: 'string', pattern: 'a*/ declare const process: any; /*\nb\u2028c\u202Ed' },
      d: { type: 'string', default: '*/ declare const require: any; /*' },
      n: { type: 'number', maximum: 1e308, minimum: -1e308 },
    }, []));
    expect(args).not.toMatch(/^\s*declare const/m);
    expect(docOf(args, 'p')).toBe('/** @pattern a*\\/ declare const process: any; /*\\u000Ab\\u2028c\\u202Ed */');
    expect(docOf(args, 'd')).toBe('/** @default "*\\/ declare const require: any; /*" */');
    expect(docOf(args, 'n')).toBe('/**\n* @minimum -1e+308\n* @maximum 1e+308\n*/');
    const checker = new CodeChecker(generated);
    expect(checker.check('process.exit(1);').ok).toBe(false);
    expect(checker.check('await tools.mcp_tool({ p: "ab" }); return 1;').ok).toBe(true);
  });
});
