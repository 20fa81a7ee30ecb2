import { describe, expect, it } from 'vitest';
import { capOutput } from './output-cap.js';
import { createSpillStore } from './spill-store.js';
import { DEFAULT_RUN_LIMITS, resolveRunLimits, RunLimitsError } from './limits.js';

describe('when output fits the cap', () => {
  it('passes result and logs through untouched', () => {
    const spills = createSpillStore();
    const out = capOutput({ resultJson: '{"a":1}', logs: ['hi'], maxOutputBytes: 100, spills });
    expect(out).toEqual({ result: { a: 1 }, logs: ['hi'], producedBytes: 13, returnedBytes: 13 });
  });
});

describe('when output is over the cap', () => {
  it('spills the result whole, with head, tail and a handle the host can read', () => {
    const spills = createSpillStore();
    const big = JSON.stringify(Array.from({ length: 1000 }, (_, i) => `row-${i}`));
    const out = capOutput({ resultJson: big, logs: ['small'], maxOutputBytes: 1_000, spills });
    const part = out.result as { spilled: { id: string; bytes: number }; head: string; tail: string };
    expect(part.spilled.bytes).toBe(Buffer.byteLength(big));
    expect(spills.read(part.spilled.id)).toBe(big);
    expect(big.startsWith(part.head)).toBe(true);
    expect(big.endsWith(part.tail)).toBe(true);
    expect(out.logs).toEqual(['small']);
    expect(out.returnedBytes).toBeLessThanOrEqual(1_000);
    expect(out.producedBytes).toBeGreaterThan(1_000);
  });

  it('spills both parts when each is large', () => {
    const spills = createSpillStore();
    const logs = Array.from({ length: 300 }, (_, i) => `line ${i}`);
    const out = capOutput({ resultJson: JSON.stringify('x'.repeat(5_000)), logs, maxOutputBytes: 1_000, spills });
    expect(out.result).toHaveProperty('spilled');
    expect(out.logs).toHaveProperty('spilled');
    expect(JSON.parse(spills.read((out.logs as { spilled: { id: string } }).spilled.id)!)).toEqual(logs);
  });

  it('never splits a surrogate pair in the previews', () => {
    const spills = createSpillStore();
    const out = capOutput({ resultJson: JSON.stringify('😀'.repeat(2_000)), logs: [], maxOutputBytes: 200, spills });
    const part = out.result as { head: string; tail: string };
    expect(part.head).toBe(Buffer.from(part.head, 'utf8').toString('utf8'));
    expect(/^[\uDC00-\uDFFF]/.test(part.tail)).toBe(false);
    expect(/[\uD800-\uDBFF]$/.test(part.head)).toBe(false);
  });
});

describe('when the spill store is full', () => {
  it('evicts the oldest spills first', () => {
    const spills = createSpillStore({ maxEntries: 2 });
    const a = spills.put('a');
    const b = spills.put('b');
    const c = spills.put('c');
    expect(spills.read(a.id)).toBeUndefined();
    expect([spills.read(b.id), spills.read(c.id)]).toEqual(['b', 'c']);
    expect(spills.read('__proto__')).toBeUndefined();
  });
});

describe('when limits are configured', () => {
  it('fills defaults and refuses bad or unknown limits, naming them', () => {
    expect(resolveRunLimits({ wallMs: 5 })).toEqual({ ...DEFAULT_RUN_LIMITS, wallMs: 5 });
    expect(() => resolveRunLimits({ maxCalls: 0 })).toThrow(/limits\.maxCalls must be a positive integer.*got 0/);
    expect(() => resolveRunLimits({ cpuMs: 1.5 })).toThrow(RunLimitsError);
    expect(() => resolveRunLimits({ wallMs: 2 ** 40 })).toThrow(/wallMs/);
    expect(() => resolveRunLimits({ nope: 1 } as never)).toThrow(/limits\.nope/);
  });
});
