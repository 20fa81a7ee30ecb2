import { describe, expect, it } from 'vitest';
import { defineTool } from './define-tool.js';
import { createToolHost } from './host.js';
import { selectToolSchemas, ToolSelectionError } from './select-tools.js';

function host() {
  const h = createToolHost();
  for (const name of ['a', 'b', 'c']) h.register(defineTool({ name, description: `Tool ${name}.`, execute: () => name }));
  return h;
}

describe('selectToolSchemas', () => {
  it('gives every schema by default, in registration order', () => {
    expect(selectToolSchemas(host()).map((s) => s.name)).toEqual(['a', 'b', 'c']);
  });

  it('keeps registration order for include, and applies exclude after it', () => {
    expect(selectToolSchemas(host(), { include: ['c', 'a'] }).map((s) => s.name)).toEqual(['a', 'c']);
    expect(selectToolSchemas(host(), { include: ['c', 'a'], exclude: ['c'] }).map((s) => s.name)).toEqual(['a']);
    expect(selectToolSchemas(host(), { exclude: ['b'] }).map((s) => s.name)).toEqual(['a', 'c']);
  });

  it('refuses names the host does not have, naming them and the tools there are', () => {
    expect(() => selectToolSchemas(host(), { include: ['a', 'x', 'constructor'] })).toThrow(new ToolSelectionError('include', ['x', 'constructor'], ['a', 'b', 'c']));
    expect(() => selectToolSchemas(host(), { exclude: ['zz'] })).toThrow('exclude names tools the host does not have: "zz". Available tools: a, b, c.');
    expect(() => selectToolSchemas(host(), { include: 'a' as never })).toThrow('include must be an array of tool names');
  });

  it('gives fresh copies: changing one does not change the host', () => {
    const h = host();
    (selectToolSchemas(h)[0]!.parameters as Record<string, unknown>).injected = true;
    expect(h.schemas()[0]!.parameters).not.toHaveProperty('injected');
  });
});
