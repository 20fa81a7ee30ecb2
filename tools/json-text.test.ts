import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from './json.js';
import { jsonPreview, PRETTY_MAX_CHARS, readableJson } from './json-text.js';

const json = fc.jsonValue({ maxDepth: 8 }) as fc.Arbitrary<JsonValue>;

describe('readableJson', () => {
  it('is the indented text while indentation adds at most twice the compact text (or 1 KiB), else the compact text', () => {
    fc.assert(
      fc.property(json, (value) => {
        const compact = JSON.stringify(value);
        const pretty = JSON.stringify(value, null, 2);
        const out = readableJson(value);
        const allowed = Math.max(1_024, compact.length * 2);
        expect(out).toBe(compact.length <= PRETTY_MAX_CHARS && pretty.length - compact.length <= allowed ? pretty : compact);
      }),
    );
  });

  it('indents an ordinary result and keeps a deep one compact', () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: `row-${i}`, title: `Row number ${i}`, score: i / 7 }));
    expect(readableJson(rows)).toBe(JSON.stringify(rows, null, 2));
    let deep: JsonValue = [];
    for (let i = 0; i < 500; i++) deep = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, deep];
    expect(readableJson(deep)).toBe(JSON.stringify(deep));
    expect(JSON.stringify(deep, null, 2).length).toBeGreaterThan(3_000_000);
  });

  it('keeps a value compact once its compact text is over PRETTY_MAX_CHARS, however shallow', () => {
    const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `row-${i}`, title: `Row number ${i}`, score: i / 7 }));
    const over = rowsOf(20_000);
    expect(JSON.stringify(over).length).toBeGreaterThan(PRETTY_MAX_CHARS);
    expect(readableJson(over)).toBe(JSON.stringify(over));
    const under = rowsOf(10_000);
    expect(JSON.stringify(under).length).toBeLessThan(PRETTY_MAX_CHARS);
    expect(readableJson(under)).toBe(JSON.stringify(under, null, 2));
  });
});

describe('jsonPreview', () => {
  it('is the compact text when it fits, and otherwise a prefix of it with a note', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 1, max: 200 }), (value, max) => {
        const compact = JSON.stringify(value);
        const out = jsonPreview(value, max);
        if (compact.length <= max) expect(out).toBe(compact);
        else {
          expect(out.startsWith(compact.slice(0, max))).toBe(true);
          expect(out).toContain(`cut at ${max} characters`);
        }
      }),
    );
  });

  it('builds no more than it shows, for a huge value', () => {
    const huge = { text: 'x'.repeat(50_000_000), rows: Array.from({ length: 1_000_000 }, (_, i) => i) } as JsonValue;
    const out = jsonPreview(huge, 100);
    expect(out.length).toBeLessThan(200);
    expect(out.startsWith('{"text":"xxxx')).toBe(true);
  });
});
