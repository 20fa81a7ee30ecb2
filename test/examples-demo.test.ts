import { beforeAll, describe, expect, it } from 'vitest';
import { formatDemo, runDemo, type DemoEntry } from '../examples/demo.js';
import { BUDGETS, EXPENSES } from '../examples/data/expenses.js';
import { MEMBERS } from '../examples/data/team.js';

let entries: DemoEntry[] = [];
const entry = (name: string) => entries.find((e) => e.program === name)!;
const isolation = (process.env.PTC_DEMO_ISOLATION as 'process' | 'isolate' | undefined) ?? 'process';

beforeAll(async () => {
  entries = await runDemo({ isolation });
}, 120_000);

describe('when the demo runs every bundled program through run_code', () => {
  it('runs all five, each type-checked and completed', () => {
    expect(entries.map((e) => e.program)).toEqual(['over-budget', 'search-summarize', 'guard-denial', 'flag-large-expenses', 'manager-lookup']);
    for (const e of entries) expect(e.ok, `${e.program}: ${JSON.stringify(e.result)}`).toBe(true);
  });

  it('answers "who is over budget" exactly as the data says', () => {
    const expected = MEMBERS.map((m) => {
      const spent = EXPENSES.filter((x) => x.employeeId === m.id && x.date.startsWith('2026-11') && x.status !== 'rejected').reduce((s, x) => s + x.amountCents, 0);
      return { id: m.id, over: spent - BUDGETS.find((b) => b.employeeId === m.id)!.monthlyLimitCents };
    })
      .filter((r) => r.over > 0)
      .sort((a, b) => b.over - a.over);
    const result = entry('over-budget').result as { id: string; overByCents: number }[];
    expect(result.map((r) => [r.id, r.overByCents])).toEqual(expected.map((r) => [r.id, r.over]));
    expect(result.length).toBeGreaterThan(0);
    expect(entry('over-budget').accounting.calls).toBe(1 + 2 * MEMBERS.length);
  });

  it('records the guard denial inside the program and carries on', () => {
    const r = entry('guard-denial').result as { read: { docId: string }[]; refused: { docId: string; reason: string }[] };
    expect(r.read.map((d) => d.docId)).toEqual(['doc-06']);
    expect(r.refused).toEqual([{ docId: 'doc-07', reason: expect.stringContaining('doc-07 is classified confidential') }]);
  });

  it('asks for approval once per flag and flags every candidate', () => {
    const e = entry('flag-large-expenses');
    const r = e.result as { candidates: number; flagged: string[]; notFlagged: unknown[] };
    expect(r.candidates).toBeGreaterThan(0);
    expect(r.flagged).toHaveLength(r.candidates);
    expect(e.approvals).toHaveLength(r.candidates);
  });

  it('pages through search results and skips confidential hits without reading them', () => {
    const r = entry('search-summarize').result as { incidents: number; skippedConfidential: string[] };
    expect(r.incidents).toBeGreaterThanOrEqual(5);
    expect(r.skippedConfidential).toEqual(['doc-05']);
  });

  it('reports the big batch as a large saving and the small lookup honestly as no saving', () => {
    expect(entry('over-budget').accounting.contentReduction).toBeGreaterThan(0.5);
    expect(entry('manager-lookup').accounting.totalReduction).toBeLessThan(0);
    for (const e of entries) {
      expect(e.accounting.directContent.tokens).toBeGreaterThan(0);
      expect(e.accounting.ptcContent.tokens).toBeGreaterThan(0);
    }
  });

  it('prints, per program, the result and both sides of the accounting', () => {
    const text = formatDemo(entries);
    for (const e of entries) expect(text).toContain(`── ${e.program}`);
    expect(text).toMatch(/model reads {3}direct [\d,]+ B \/ [\d,]+ tok/);
    expect(text).toMatch(/manager-lookup .*MORE/);
  });
});
