import { describe, expect, it } from 'vitest';
import { defineTool } from './define-tool.js';
import { createToolHost } from './host.js';

function modeFor(isConcurrencySafe: unknown, args: unknown = { q: 'x' }) {
  const host = createToolHost();
  host.register(
    defineTool({
      name: 'probe',
      description: 'Probe.',
      parameters: { q: { type: 'string', required: true } },
      execute: () => null,
      ...(isConcurrencySafe === 'omit' ? {} : { isConcurrencySafe: isConcurrencySafe as boolean }),
    }),
  );
  return host.executionMode({ name: 'probe', args }).kind;
}

describe('executionMode fails closed', () => {
  it.each([
    ['omitted', 'omit'],
    ['false', false],
    ["the string 'true'", 'true'],
    ['1', 1],
    ['a function that throws', () => {
      throw new Error('boom');
    }],
    ['a function returning a truthy non-true value', () => 1],
    ['a function returning a Promise of true', async () => true],
    ['a function returning undefined', () => undefined],
  ])('%s -> exclusive', (_label, flag) => {
    expect(modeFor(flag)).toBe('exclusive');
  });

  it('args that do not validate -> exclusive, even when the tool says true', () => {
    expect(modeFor(true, { q: 42 })).toBe('exclusive');
    expect(modeFor(() => true, { nope: 1 })).toBe('exclusive');
  });

  it('an unknown tool -> exclusive', () => {
    expect(createToolHost().executionMode({ name: 'missing', args: {} }).kind).toBe('exclusive');
  });

  it.each([
    ['true', true],
    ['a function returning exactly true', () => true],
  ])('%s -> parallel', (_label, flag) => {
    expect(modeFor(flag)).toBe('parallel');
  });

  it('passes the validated, frozen args to the function', () => {
    let seen: unknown;
    modeFor((args: unknown) => {
      seen = args;
      return true;
    });
    expect(seen).toEqual({ q: 'x' });
    expect(Object.isFrozen(seen)).toBe(true);
  });
});
