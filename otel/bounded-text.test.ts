import { describe, expect, it } from 'vitest';
import { boundedJson, boundedText, textField } from './bounded-text.js';

describe('boundedJson', () => {
  it('writes plain JSON exactly as JSON.stringify does when it fits', () => {
    const value = { a: [1, 'two', null, true], 'x-y': { nested: 'q"uote' }, n: -1.5 };
    expect(boundedJson(value, 1000)).toBe(JSON.stringify(value));
  });

  it('stops at the limit and says so, however large the value', () => {
    const huge = { rows: Array.from({ length: 10_000 }, (_, i) => ({ id: i, text: 'x'.repeat(100) })) };
    const out = boundedJson(huge, 64);
    expect(out.startsWith(JSON.stringify(huge).slice(0, 64))).toBe(true);
    expect(out).toBe(`${JSON.stringify(huge).slice(0, 64)}…[cut at 64 chars]`);
  });

  it('cuts one huge string without escaping all of it', () => {
    const out = boundedJson('a'.repeat(10_000_000), 10);
    expect(out).toBe(`"aaaaaaaaa…[cut at 10 chars]`);
  });

  it('writes non-JSON as JSON.stringify would, and a cycle or a throwing getter as a note', () => {
    expect(boundedJson({ f: () => 1, u: undefined, nan: NaN, big: 1n }, 100)).toBe('{"nan":null,"big":null}');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(boundedJson(cyclic, 10_000)).toContain('"[nested too deeply]"');
    const hostile = Object.defineProperty({ ok: 1 }, 'bad', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(boundedJson(hostile, 100)).toBe('{"ok":1…[unreadable value]');
  });
});

describe('boundedText and textField', () => {
  it('cut long text naming the limit and the length', () => {
    expect(boundedText('abcdef', 3)).toBe('abc…[cut at 3 of 6 chars]');
    expect(boundedText('abc', 3)).toBe('abc');
  });

  it('take only non-empty strings', () => {
    expect(textField('id')).toBe('id');
    expect(textField('')).toBeUndefined();
    expect(textField(42)).toBeUndefined();
    expect(textField({ toString: () => 'x' })).toBeUndefined();
  });
});
