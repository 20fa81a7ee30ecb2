import { describe, expect, it } from 'vitest';
import { createHost, createExampleTools, tools } from '../examples/tools.js';
import { hostFromModule } from '../cli/load-tools.js';
import * as exampleModule from '../examples/tools.js';
import type { ToolEvent } from '../tools/index.js';

const call = (host: ReturnType<typeof createHost>, name: string, args: unknown, id = `c-${name}`) => host.call({ id, name, args }, { agent: { id: 'test' } });

describe('when the example tools are called directly', () => {
  it('returns fields and handles, not prose', async () => {
    const host = createHost();
    const team = await call(host, 'team_list', { team: 'design' });
    expect(team.isError).toBe(false);
    const members = (team.value as { members: { id: string; managerId: string | null }[] }).members;
    expect(members.map((m) => m.id)).toEqual(['u-200', 'u-201', 'u-202', 'u-203']);
    const expenses = await call(host, 'expenses_list', { employeeId: members[1]!.id, month: '2026-10' });
    const v = expenses.value as { records: { id: string; amountCents: number }[]; totalCents: number };
    expect(v.records.length).toBeGreaterThan(0);
    expect(v.totalCents).toBe(v.records.reduce((s, r) => s + r.amountCents, 0));
    expect(v.records[0]!.id).toMatch(/^exp-\d{4}$/);
  });

  it('treats an unknown member as a null value rather than an error', async () => {
    const result = await call(createHost(), 'team_get', { id: 'u-999' });
    expect(result.isError).toBe(false);
    expect(result.value).toBeNull();
  });

  it('pages search results with an opaque cursor until nextCursor is null', async () => {
    const host = createHost();
    const seen: string[] = [];
    let cursor: string | undefined;
    let total = 0;
    do {
      const r = await call(host, 'docs_search', { query: 'incident', limit: 2, ...(cursor ? { cursor } : {}) });
      const page = r.value as { hits: { docId: string }[]; nextCursor: string | null; total: number };
      seen.push(...page.hits.map((h) => h.docId));
      total = page.total;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(total);
    expect(total).toBeGreaterThanOrEqual(6);
  });

  it('reports a malformed cursor as an error naming it', async () => {
    const r = await call(createHost(), 'docs_search', { query: 'incident', cursor: 'abc' });
    expect(r.isError).toBe(true);
    expect(r.error?.message).toContain('invalid cursor "abc"');
  });
});

describe('when the example policy applies', () => {
  it('the guard denies reading a confidential document and names it', async () => {
    const r = await call(createHost(), 'docs_read', { docId: 'doc-07' });
    expect(r.denied?.by).toBe('guard');
    expect(r.denied?.reason).toContain('doc-07 is classified confidential');
    expect(r.value).toBeUndefined();
  });

  it('lets internal documents through with parsed action items', async () => {
    const r = await call(createHost(), 'docs_read', { docId: 'doc-01' });
    const doc = r.value as { actionItems: { ownerId: string | null }[] };
    expect(doc.actionItems.map((a) => a.ownerId)).toEqual(['u-102', 'u-103', 'u-104']);
  });

  it('asks before flagging: without an approval channel the call fails closed', async () => {
    const r = await call(createHost(), 'expense_flag', { expenseId: 'exp-0001', reason: 'check this' });
    expect(r.denied?.by).toBe('approval');
    expect(r.denied?.reason).toMatch(/unavailable/);
  });

  it('flags once when approved, and each tool set has its own flag store', async () => {
    const events: ToolEvent[] = [];
    const host = createHost({ approval: { request: async () => 'allow-once' }, onEvent: (e) => events.push(e) });
    const first = await call(host, 'expense_flag', { expenseId: 'exp-0001', reason: 'check this' }, 'f1');
    const again = await call(host, 'expense_flag', { expenseId: 'exp-0001', reason: 'check this' }, 'f2');
    expect(first.value).toMatchObject({ flagId: 'flag-1', alreadyFlagged: false });
    expect(again.value).toMatchObject({ flagId: 'flag-1', alreadyFlagged: true });
    const fresh = createHost({ approval: { request: async () => 'allow-once' } });
    expect((await call(fresh, 'expense_flag', { expenseId: 'exp-0001', reason: 'check this' })).value).toMatchObject({ alreadyFlagged: false });
    expect(events.filter((e) => e.type === 'tool/decision' && e.stage === 'approval')).toHaveLength(2);
  });

  it('marks the write exclusive and the reads parallel', () => {
    const host = createHost();
    expect(host.executionMode({ name: 'expense_flag', args: { expenseId: 'exp-0001', reason: 'x' } })).toEqual({ kind: 'exclusive' });
    expect(host.executionMode({ name: 'docs_read', args: { docId: 'doc-01' } })).toEqual({ kind: 'parallel' });
  });
});

describe('when the CLI loads examples/tools.ts', () => {
  it('uses createHost, so the policy comes along', async () => {
    const host = hostFromModule(exampleModule as unknown as Record<string, unknown>)!;
    expect(host.tools().map((t) => t.name)).toEqual(createExampleTools().map((t) => t.name));
    expect((await call(host, 'docs_read', { docId: 'doc-05' })).denied?.by).toBe('guard');
    expect(tools).toHaveLength(7);
  });
});
