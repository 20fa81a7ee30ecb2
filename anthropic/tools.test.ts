import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolHost, defineTool, ToolSelectionError } from '../tools/index.js';
import { AnthropicToolDefinitionError, DEFAULT_CODE_EXECUTION_CALLER, toAnthropicTools, toAnthropicRunnableTools } from './index.js';

function host() {
  const h = createToolHost();
  h.register([
    defineTool({ name: 'read_file', description: 'Reads a file.', parameters: { path: { type: 'string', required: true, description: 'Absolute path' } }, execute: () => 'x' }),
    defineTool({ name: 'search', description: 'Searches.', parameters: z.object({ q: z.string().min(1).describe('Query') }), execute: () => 'x' }),
    defineTool({ name: 'ping', description: 'Pings.', execute: () => 'pong' }),
  ]);
  return h;
}

describe('toAnthropicTools', () => {
  it('gives one definition per tool from host.schemas(): name, description, parameters as input_schema, nothing else', () => {
    const h = host();
    const tools = toAnthropicTools(h);
    expect(tools).toEqual(h.schemas().map((s) => ({ name: s.name, description: s.description, input_schema: s.parameters })));
    expect(tools[0]).toEqual({
      name: 'read_file',
      description: 'Reads a file.',
      input_schema: { type: 'object', properties: { path: { type: 'string', description: 'Absolute path' } }, required: ['path'], additionalProperties: false },
    });
    expect(tools[2]!.input_schema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('narrows to include minus exclude, and names a tool the host lacks', () => {
    const h = host();
    expect(toAnthropicTools(h, { include: ['search', 'ping'], exclude: ['ping'] }).map((t) => t.name)).toEqual(['search']);
    expect(() => toAnthropicTools(h, { exclude: ['serch'] })).toThrow(ToolSelectionError);
    expect(() => toAnthropicTools(h, { exclude: ['serch'] })).toThrow(/exclude names tools the host does not have: "serch"/);
  });

  it('hands out fresh objects: editing one set changes neither the host nor the next set', () => {
    const h = host();
    const first = toAnthropicTools(h);
    (first[0]!.input_schema as { properties: Record<string, unknown> }).properties.extra = { type: 'string' };
    first[0]!.description = 'edited';
    expect(toAnthropicTools(h)[0]).toEqual(toAnthropicTools(host())[0]);
  });

  describe('with providerCodeExecution', () => {
    const callers = (option: Parameters<typeof toAnthropicTools>[1]) => toAnthropicTools(host(), option).map((t) => t.allowed_callers);

    it('sends no allowed_callers without it (the API\'s default: direct calls only)', () => {
      expect(callers({})).toEqual([undefined, undefined, undefined]);
      expect(callers({ providerCodeExecution: false })).toEqual([undefined, undefined, undefined]);
      expect(toAnthropicTools(host()).some((t) => 'allowed_callers' in t || 'strict' in t)).toBe(false);
    });

    it('true lets Claude and the default code execution version call each tool', () => {
      expect(DEFAULT_CODE_EXECUTION_CALLER).toBe('code_execution_20260120');
      expect(callers({ providerCodeExecution: true })).toEqual(Array(3).fill(['direct', 'code_execution_20260120']));
    });

    it('a version, or an exact list, is the user\'s choice', () => {
      expect(callers({ include: ['ping'], providerCodeExecution: 'code_execution_20260521' })).toEqual([['direct', 'code_execution_20260521']]);
      expect(callers({ include: ['ping'], providerCodeExecution: ['code_execution_20260120'] })).toEqual([['code_execution_20260120']]);
    });

    it('refuses a value that is no caller, naming it', () => {
      const bad = (value: unknown) => () => toAnthropicTools(host(), { providerCodeExecution: value as never });
      expect(bad('direct')).toThrow(/"direct" is not a code execution version/);
      expect(bad('code_execution')).toThrow(/"code_execution" is not a code execution version/);
      expect(bad([])).toThrow(/the list is empty/);
      expect(bad(['direct', 'web_search_20260209'])).toThrow(/"web_search_20260209" is not an allowed caller/);
      expect(bad(['direct', 'direct'])).toThrow(/"direct" is listed twice/);
      expect(bad(1)).toThrow(/got number/);
      expect(bad(null)).toThrow(/got null/);
    });
  });

  it('refuses a tool whose name the Messages API does not take, naming it and the way out', () => {
    const h = host();
    h.register(defineTool({ name: 'fs.read-file', description: 'MCP style.', execute: () => 'x' }));
    expect(() => toAnthropicTools(h)).toThrow(AnthropicToolDefinitionError);
    expect(() => toAnthropicTools(h)).toThrow('Tool "fs.read-file" cannot be sent to the Anthropic Messages API: a tool name there may hold only letters, digits, "_" and "-" (at most 128). Leave it out with { exclude: ["fs.read-file"] }, or register it under another name.');
    expect(toAnthropicTools(h, { exclude: ['fs.read-file'] })).toHaveLength(3);
    expect(() => toAnthropicRunnableTools(h)).toThrow(AnthropicToolDefinitionError);
  });
});

describe('toAnthropicRunnableTools', () => {
  it('carries the same definitions, typed custom, with run and an identity parse', () => {
    const h = host();
    const runnable = toAnthropicRunnableTools(h, { providerCodeExecution: true });
    const definitions = toAnthropicTools(h, { providerCodeExecution: true });
    expect(runnable.map(({ run: _run, parse: _parse, ...definition }) => definition)).toEqual(definitions.map((d) => ({ type: 'custom', ...d })));
    const input = { q: 5 };
    expect(runnable[1]!.parse(input)).toBe(input);
  });

  it('answers a run with no tool_use context through the pipeline, which refuses a call without an id', async () => {
    const [, , ping] = toAnthropicRunnableTools(host());
    await expect(ping!.run({})).rejects.toMatchObject({ name: 'ToolError', content: [{ type: 'text', text: expect.stringContaining('has no id') }] });
    await expect(ping!.run({}, { toolUse: { type: 'tool_use', id: 'toolu_1', name: 'ping', input: {} }, toolUseBlock: { type: 'tool_use', id: 'toolu_1', name: 'ping', input: {} } })).resolves.toEqual([{ type: 'text', text: 'pong' }]);
  });
});
