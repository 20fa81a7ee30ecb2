import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { ToolDefinitionError, ToolRegistrationError } from './errors.js';
import { createToolHost } from './host.js';
import { readFileTool } from './test-support.js';

const ok = { name: 'ok_tool', description: 'Does a thing.', execute: () => null };

function definitionError(def: unknown): ToolDefinitionError {
  try {
    defineTool(def as Parameters<typeof defineTool>[0]);
  } catch (err) {
    expect(ToolDefinitionError.isInstance(err)).toBe(true);
    return err as ToolDefinitionError;
  }
  throw new Error('defineTool accepted an invalid definition');
}

describe('defineTool', () => {
  it('returns a frozen tool whose parameters are a strict zod object', () => {
    const tool = readFileTool();
    expect(Object.isFrozen(tool)).toBe(true);
    expect(tool.parameters.safeParse({ path: '/a' }).success).toBe(true);
    expect(tool.parameters.safeParse({ path: '/a', extra: 1 }).success).toBe(false);
    expect(tool.parametersJsonSchema).toEqual({
      type: 'object',
      properties: { path: { type: 'string', description: 'Absolute path' }, limit: { type: 'number' } },
      required: ['path'],
      additionalProperties: false,
    });
  });

  it('translates every shorthand type, nesting, enum, default and nullable', () => {
    const tool = defineTool({
      ...ok,
      parameters: {
        s: { type: 'string', enum: ['a', 'b'], required: true },
        n: { type: 'number', minimum: 0 },
        i: { type: 'integer', default: 3 },
        b: { type: 'boolean', nullable: true },
        list: { type: 'array', items: { type: 'object', properties: { id: { type: 'string', required: true } } } },
        nested: { type: 'object', properties: { deep: { type: 'object', properties: { x: { type: 'number', required: true } } } } },
      },
    });
    const parse = (v: unknown) => tool.parameters.safeParse(v);
    expect(parse({ s: 'a' }).data).toEqual({ s: 'a', i: 3 });
    expect(parse({ s: 'c' }).success).toBe(false);
    expect(parse({ s: 'a', i: 1.5 }).success).toBe(false);
    expect(parse({ s: 'a', b: null }).success).toBe(true);
    expect(parse({ s: 'a', list: [{ id: 'x' }] }).success).toBe(true);
    expect(parse({ s: 'a', list: [{}] }).success).toBe(false);
    expect(parse({ s: 'a', nested: { deep: { x: 1 } } }).success).toBe(true);
    expect(parse({ s: 'a', nested: { deep: {} } }).success).toBe(false);
  });

  it('accepts a zod object as parameters and any zod schema as output', () => {
    const tool = defineTool({
      ...ok,
      parameters: z.object({ q: z.string().describe('query') }),
      output: { schema: z.array(z.string()) },
      execute: (args) => [args.q],
    });
    expect(tool.parametersJsonSchema).toMatchObject({ properties: { q: { type: 'string', description: 'query' } } });
    expect(tool.output.schema?.safeParse(['a']).success).toBe(true);
  });

  describe('when the definition is invalid', () => {
    it.each([
      ['a name with spaces', { ...ok, name: 'bad name' }, 'name'],
      ['an empty name', { ...ok, name: '' }, 'name'],
      ['a reserved name', { ...ok, name: '__proto__' }, 'name'],
      ['a missing description', { ...ok, description: undefined }, 'description'],
      ['a missing execute', { ...ok, execute: undefined }, 'execute'],
      ['a non-function render', { ...ok, output: { render: 'text' } }, 'output.render'],
      ['an unknown output field', { ...ok, output: { schemas: {} } }, 'output.schemas'],
      ['an unknown type', { ...ok, parameters: { p: { type: 'str' } } }, 'parameters.p.type'],
      ['a nested unknown type', { ...ok, parameters: { p: { type: 'object', properties: { q: { type: 'date' } } } } }, 'parameters.p.properties.q.type'],
      ['required on array items', { ...ok, parameters: { p: { type: 'array', items: { type: 'string', required: true } } } }, 'parameters.p.items.required'],
      ['required on the output root', { ...ok, output: { schema: { type: 'string', required: true } } }, 'output.schema.required'],
      ['a non-boolean required', { ...ok, parameters: { p: { type: 'string', required: 'yes' } } }, 'parameters.p.required'],
      ['an array without items', { ...ok, parameters: { p: { type: 'array' } } }, 'parameters.p.items'],
      ['an object without properties', { ...ok, parameters: { p: { type: 'object' } } }, 'parameters.p.properties'],
      ['an unknown spec field', { ...ok, parameters: { p: { type: 'string', secret: 'x' } } }, 'parameters.p.secret'],
      ['a default of the wrong type', { ...ok, parameters: { p: { type: 'number', default: 'ten' } } }, 'parameters.p.default'],
      ['a bad enum', { ...ok, parameters: { p: { type: 'string', enum: [] } } }, 'parameters.p.enum'],
      ['a bad pattern', { ...ok, parameters: { p: { type: 'string', pattern: '(' } } }, 'parameters.p.pattern'],
      ['non-object zod parameters', { ...ok, parameters: z.string() }, 'parameters'],
      ['parameters that are not a record', { ...ok, parameters: 'path' }, 'parameters'],
    ])('rejects %s, naming the tool and the field', (_label, def, field) => {
      const err = definitionError(def);
      expect(err.field).toBe(field);
      expect(err.message).toContain(`"${(def as { name: string }).name || '?'}"`);
      expect(err.message).toContain(field);
    });
  });
});

describe('registry', () => {
  it('register returns a disposable that unregisters', () => {
    const host = createToolHost();
    const reg = host.register(readFileTool());
    expect(host.schemas().map((s) => s.name)).toEqual(['read_file']);
    reg.dispose();
    expect(host.schemas()).toEqual([]);
    reg.dispose();
    expect(() => host.register(readFileTool())).not.toThrow();
  });

  it('refuses a duplicate name, and registers a list all or none', () => {
    const host = createToolHost();
    host.register(readFileTool());
    expect(() => host.register(readFileTool())).toThrow(ToolRegistrationError);
    const other = defineTool({ ...ok, name: 'other' });
    expect(() => host.register([other, readFileTool()])).toThrow(/already registered/);
    expect(host.get('other')).toBeUndefined();
  });

  it('refuses a tool whose program name (tools.<callable>) a registered tool has, naming both, all or none', () => {
    const host = createToolHost();
    host.register(defineTool({ ...ok, name: 'evil_read' }));
    const err = (() => {
      try {
        host.register([defineTool({ ...ok, name: 'fine' }), defineTool({ ...ok, name: 'evil.read' })]);
      } catch (e) {
        return e;
      }
    })();
    expect(ToolRegistrationError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ toolName: 'evil.read' });
    expect((err as Error).message).toBe('Cannot register tool "evil.read": its program name tools.evil_read is already the program name of tool "evil_read"; rename one of them (a program could not tell them apart)');
    expect(host.get('fine')).toBeUndefined();
    // Within one list too, and a freed name can be taken again.
    expect(() => createToolHost().register([defineTool({ ...ok, name: 'a-b' }), defineTool({ ...ok, name: 'a.b' })])).toThrow(/"a\.b": its program name tools\.a_b is already the program name of tool "a-b"/);
    const reg = host.register(defineTool({ ...ok, name: 'x_y' }));
    expect(() => host.register(defineTool({ ...ok, name: 'x/y' }))).toThrow(/tools\.x_y is already the program name of tool "x_y"/);
    reg.dispose();
    expect(() => host.register(defineTool({ ...ok, name: 'x/y' }))).not.toThrow();
  });

  it('refuses objects that were not made by defineTool', () => {
    const host = createToolHost();
    expect(() => host.register({ name: 'x', execute() {} } as never)).toThrow(/not a tool made by defineTool/);
  });

  it('schemas() exposes only name, description and parameters, whatever else a tool carries', () => {
    const host = createToolHost();
    const def = {
      name: 'leaky',
      description: 'Public text.',
      parameters: { q: { type: 'string', required: true, description: 'query' } },
      execute: () => 'x',
      apiKey: 'sk-SECRET-1',
      internal: { token: 'SECRET-2' },
      output: { schema: { type: 'string', description: 'SECRET-3 output description' } },
    };
    host.register(defineTool(def as never));
    const schemas = host.schemas();
    expect(schemas).toEqual([
      {
        name: 'leaky',
        description: 'Public text.',
        parameters: {
          type: 'object',
          properties: { q: { type: 'string', description: 'query' } },
          required: ['q'],
          additionalProperties: false,
        },
      },
    ]);
    expect(JSON.stringify(schemas)).not.toMatch(/SECRET/);
    expect(Object.keys(host.get('leaky')!)).not.toContain('apiKey');
  });

  it('treats model-chosen names like constructor or __proto__ as unknown', async () => {
    const host = createToolHost();
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const result = await host.call({ id: name, name, args: {} });
      expect(result.error?.kind).toBe('unknown-tool');
    }
  });
});
