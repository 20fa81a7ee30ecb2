// jsonSchemaParameters: a tool defined with a JSON Schema declares it verbatim (the suite's
// json-schema-2020-12 scenario checks $schema, $defs and additionalProperties survive) and
// validates with its zod conversion.
import { describe, expect, it } from 'vitest';
import { createToolHost, defineTool, toModelJsonSchema } from '../tools/index.js';
import { CodegenInputError, generateToolTypes, jsonSchemaParameters } from './index.js';

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  additionalProperties: false,
} as const;

describe('jsonSchemaParameters', () => {
  const tool = defineTool({
    name: 'json_schema_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    parameters: jsonSchemaParameters(SCHEMA),
    execute: (args) => JSON.stringify(args),
  });

  it('declares the schema as given: $schema, $defs, $ref and additionalProperties kept', () => {
    expect(tool.parametersJsonSchema).toEqual(SCHEMA);
    expect(toModelJsonSchema(tool.parameters)).toEqual(SCHEMA);
  });

  it('hands out copies: changing one does not change the tool', () => {
    const copy = toModelJsonSchema(tool.parameters) as { $defs: { address: { type: string } } };
    copy.$defs.address.type = 'string';
    expect(toModelJsonSchema(tool.parameters)).toEqual(SCHEMA);
    expect(Object.isFrozen(tool.parametersJsonSchema)).toBe(true);
  });

  it('validates calls with the converted schema: $ref followed, unknown keys refused', async () => {
    const host = createToolHost();
    host.register(tool);
    const ok = await host.call({ id: '1', name: 'json_schema_tool', args: { name: 'a', address: { city: 'x' } } });
    expect(ok.isError).toBe(false);
    const badRef = await host.call({ id: '2', name: 'json_schema_tool', args: { address: { city: 3 } } });
    expect(badRef.isError).toBe(true);
    expect(badRef.error?.message).toMatch(/args\.address\.city/);
    const extra = await host.call({ id: '3', name: 'json_schema_tool', args: { name: 'a', other: 1 } });
    expect(extra.isError).toBe(true);
    expect(extra.error?.message).toMatch(/other/);
  });

  it('types the arguments for programs from the conversion', () => {
    const types = generateToolTypes([tool]);
    expect(types.declarations).toMatch(/city\?: string/);
  });

  it('refuses a root that is not an object schema, and an approximation unless allowed, naming it', () => {
    expect(() => jsonSchemaParameters({ type: 'string' })).toThrow(CodegenInputError);
    expect(() => jsonSchemaParameters({ type: 'string' })).toThrow(/"type": "object" at its root/);
    const approx = { type: 'object', properties: { a: { type: 'string', not: { const: 'x' } } } };
    expect(() => jsonSchemaParameters(approx)).toThrow(/#\/properties\/a.*not/);
    expect(toModelJsonSchema(jsonSchemaParameters(approx, { allowApproximations: true }))).toEqual(approx);
  });
});
