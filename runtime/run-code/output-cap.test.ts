import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../tools/index.js';
import { capOutput } from './output-cap.js';
import { isSpilledPart, logsPart, renderText, resultPart } from './render.js';
import { createSpillStore } from './spill-store.js';
import { DEFAULT_RUN_LIMITS, resolveRunLimits, RunLimitsError } from './limits.js';

const text = (value: unknown, cap = Number.POSITIVE_INFINITY) => renderText(value as JsonValue, cap);
const bytes = (t: string) => Buffer.byteLength(t, 'utf8');
/** The run_code value capOutput's parts end up in, as run_code builds it. */
const valueOf = (out: ReturnType<typeof capOutput>, rest: { calls?: unknown[]; counts?: unknown } = {}) => ({
  result: out.result,
  logs: out.logs,
  calls: rest.calls ?? [],
  stats: { calls: rest.counts ?? {} },
});

describe('when output fits the cap', () => {
  it('passes result and logs through untouched, and returnedBytes is the rendered text', () => {
    const spills = createSpillStore();
    const out = capOutput({ resultJson: '{"a":1}', logs: ['hi'], maxOutputBytes: 100, spills });
    expect(out).toMatchObject({ result: { a: 1 }, logs: ['hi'], producedBytes: 13 });
    expect(text(valueOf(out))).toBe('result: {\n  "a": 1\n}\nlogs:\n  | hi');
    expect(out.returnedBytes).toBe(bytes(text(valueOf(out))));
  });

  it('renders a 15 KB result nested 500 deep compactly, within the cap, not into megabytes', () => {
    let deep: unknown = [];
    for (let i = 0; i < 500; i++) deep = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, deep];
    const resultJson = JSON.stringify(deep);
    const out = capOutput({ resultJson, logs: [], maxOutputBytes: 16_384, spills: createSpillStore() });
    expect(out.result).toEqual(deep);
    expect(text(valueOf(out))).toBe(`result: ${resultJson}`);
    expect(out.returnedBytes).toBe(bytes(`result: ${resultJson}`));
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
    expect(big.startsWith(part.head) && part.head.length > 0).toBe(true);
    expect(big.endsWith(part.tail) && part.tail.length > 0).toBe(true);
    expect(out.logs).toEqual(['small']);
    expect(out.returnedBytes).toBe(bytes(text(valueOf(out), 1_000)));
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
    expect(out.returnedBytes).toBeLessThanOrEqual(1_000);
  });

  it('sizes the previews in UTF-8 bytes: CJK output stays within the cap', () => {
    const spills = createSpillStore();
    const cjk = '漢字かな交じり文'.repeat(1_250); // 10,000 characters, 30,000 bytes
    const out = capOutput({ resultJson: JSON.stringify(cjk), logs: [cjk.slice(0, 3_000)], maxOutputBytes: 16_384, spills });
    const rendered = text(valueOf(out), 16_384);
    expect(bytes(rendered)).toBe(out.returnedBytes);
    expect(out.returnedBytes).toBeLessThanOrEqual(16_384);
    const part = out.result as { head: string; tail: string };
    expect(bytes(part.head)).toBeLessThanOrEqual(16_384 / 8);
    expect(bytes(part.head)).toBeGreaterThan(16_384 / 8 - 3);
  });

  it('never splits a surrogate pair in the previews', () => {
    const spills = createSpillStore();
    const out = capOutput({ resultJson: JSON.stringify('😀'.repeat(2_000)), logs: [], maxOutputBytes: 200, spills });
    const part = out.result as { head: string; tail: string };
    expect(part.head).toBe(Buffer.from(part.head, 'utf8').toString('utf8'));
    expect(/^[\uDC00-\uDFFF]/.test(part.tail)).toBe(false);
    expect(/[\uD800-\uDBFF]$/.test(part.head)).toBe(false);
  });

  it('never makes a part bigger by spilling it', () => {
    const spills = createSpillStore();
    // The logs are small: their spill notice would be longer than they are.
    const out = capOutput({ resultJson: JSON.stringify('y'.repeat(2_000)), logs: ['a'], maxOutputBytes: 100, spills });
    expect(out.logs).toEqual(['a']);
    expect(out.result).toHaveProperty('spilled');
  });

  it('counts the rest of the report (call counts, failed calls) against the cap', () => {
    const calls = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, tool: `tool_with_a_long_name_${i}`, status: 'error', ms: 1, settlement: 'completed' })) as never[];
    const counts = { total: 10, ok: 0, error: 10, denied: 0, refused: 0, interrupted: 0 };
    const resultJson = JSON.stringify('z'.repeat(700));
    const out = capOutput({ resultJson, logs: [], maxOutputBytes: 900, spills: createSpillStore(), calls, counts });
    expect(out.result).toHaveProperty('spilled');
    expect(out.returnedBytes).toBe(bytes(text(valueOf(out, { calls, counts }), 900)));
    expect(out.returnedBytes).toBeLessThanOrEqual(900);
  });

  it('keeps what the model reads within the cap and reports its exact size, whatever the output', () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'é', '漢', '😀', '\n', '\u2028', '"', '\\', '\u001b', ' '), maxLength: 200 });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.array(line, { maxLength: 30 }), fc.integer({ min: 400, max: 4_000 }), (value, logs, cap) => {
        const spills = createSpillStore();
        const resultJson = JSON.stringify(value);
        const out = capOutput({ resultJson, logs, maxOutputBytes: cap, spills });
        const rendered = text(valueOf(out), cap);
        expect(out.returnedBytes).toBe(bytes(rendered));
        expect(out.returnedBytes).toBeLessThanOrEqual(cap);
        // A spilled part is smaller as shown than it would have been inline (compact, the smallest inline form).
        const spilledResult = out.result as { spilled?: { id: string }; head: string; tail: string };
        if (isSpilledPart(out.result)) {
          expect(spills.read(spilledResult.spilled!.id)).toBe(resultJson);
          expect(resultJson.startsWith(spilledResult.head) && resultJson.endsWith(spilledResult.tail)).toBe(true);
          expect(bytes(resultPart(out.result))).toBeLessThan(bytes(`result: ${resultJson}`));
        }
        if (isSpilledPart(out.logs)) {
          const logsJson = JSON.stringify(logs);
          expect(spills.read(out.logs.spilled.id)).toBe(logsJson);
          expect(logsJson.startsWith(out.logs.head) && logsJson.endsWith(out.logs.tail)).toBe(true);
          expect(bytes(logsPart(out.logs))).toBeLessThan(bytes(logsPart(logs)));
        }
      }),
      { numRuns: 300 },
    );
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
    expect(DEFAULT_RUN_LIMITS.hostMs).toBe(2_000);
  });
});
