import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSessionHost } from '../../cli/session-host.js';
import type { JsonValue } from '../../tools/index.js';
import { EvalHarnessError } from './errors.js';
import { runCodeListing, tasksHandout } from './handout-content.js';
import { each, exact, fields, record, sameElements, within } from './judges.js';
import { formatReport, runPrograms, type ProgramRecord } from './run-programs.js';
import { programFileName, TASKS, type Expectation } from './tasks.js';
import { DirectTools } from './truth.js';

const here = new URL('.', import.meta.url).pathname;
const REFERENCE = join(here, 'reference');
const BROKEN = join(here, 'reference', 'broken');
const tasksNamed = (...ids: string[]) => TASKS.filter((t) => ids.includes(t.id));

/** Every one-point change of a value: a leaf changed, an element or a key removed, an element added. */
function* mutations(value: JsonValue, where = 'result'): Generator<{ where: string; value: JsonValue }> {
  if (Array.isArray(value)) {
    yield { where: `${where} + one more element`, value: [...value, value[0] ?? 'extra'] };
    for (let i = 0; i < value.length; i++) {
      yield { where: `${where}[${i}] removed`, value: value.filter((_, j) => j !== i) };
      for (const m of mutations(value[i]!, `${where}[${i}]`)) yield { where: m.where, value: value.map((x, j) => (j === i ? m.value : x)) };
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      const { [key]: child, ...rest } = value;
      yield { where: `${where}.${key} removed`, value: rest };
      for (const m of mutations(child!, `${where}.${key}`)) yield { where: m.where, value: { ...value, [key]: m.value } };
    }
  } else if (typeof value === 'number') yield { where: `${where} + 1`, value: value + 1 };
  else if (typeof value === 'string') yield { where: `${where} changed`, value: `${value}x` };
  else if (typeof value === 'boolean') yield { where: `${where} flipped`, value: !value };
  else yield { where: `${where} not null`, value: 'x' };
}

describe('the judges', () => {
  it('compare objects whatever their key order, and arrays in order', () => {
    expect(exact({ a: 1, b: [1, 2] })({ b: [1, 2], a: 1 })).toEqual({ ok: true });
    expect(exact([1, 2])([2, 1])).toEqual({ ok: false, reason: 'result[0]: expected 1, got 2' });
    expect(exact({ a: 1 })({ a: 1, b: 2 })).toMatchObject({ ok: false, reason: expect.stringContaining('unexpected key(s) "b"') });
  });

  it('count duplicates when order does not matter', () => {
    expect(sameElements(['x', 'y'])(['y', 'x'])).toEqual({ ok: true });
    expect(sameElements(['x', 'y'])(['x', 'y', 'y'])).toMatchObject({ ok: false, reason: expect.stringContaining('unexpected "y"') });
    expect(sameElements(['x', 'y'])(['x'])).toMatchObject({ ok: false, reason: expect.stringContaining('missing "y"') });
  });

  it('compare elements on the named keys only, and refuse an element without one', () => {
    const judge = sameElements([{ id: 'a', m: 1 }], { keys: ['id', 'm'] });
    expect(judge([{ m: 1, id: 'a', note: 'over by 3' }])).toEqual({ ok: true });
    expect(judge([{ id: 'a' }]).ok).toBe(false);
  });

  it('tolerate extra keys in fields, never in a record, and never a missing key', () => {
    expect(fields({ a: exact(1) })({ a: 1, note: 'x' })).toEqual({ ok: true });
    expect(fields({ a: exact(1) })({ b: 1 })).toMatchObject({ ok: false, reason: 'result: missing the key "a" in {"b":1}' });
    expect(record({ a: exact(1) })({ a: 1, note: 'x' }).ok).toBe(false);
  });

  it('accept a number within the tolerance, inclusive, and nothing else', () => {
    expect(within(171.27, 0.05)(171.3)).toEqual({ ok: true });
    expect(within(171.25, 0.05)(171.3)).toEqual({ ok: true });
    expect(within(171.27, 0.05)(171.4).ok).toBe(false);
    expect(within(1, 0.05)('1').ok).toBe(false);
    expect(within(1, 0.05)(Number.NaN).ok).toBe(false);
  });

  it('judge arrays element by element, by length first', () => {
    expect(each([exact(1)])([1, 2])).toMatchObject({ ok: false, reason: 'result: expected 1 element(s), got 2: [1,2]' });
  });
});

describe("every task's expectation", () => {
  const truth = new DirectTools();
  afterAll(() => truth.close());
  const expectations = new Map<string, Expectation>();
  const expectationOf = async (id: string) => {
    if (!expectations.has(id)) expectations.set(id, await TASKS.find((t) => t.id === id)!.expect(truth));
    return expectations.get(id)!;
  };

  it('has 15 tasks with distinct ids, each with a prompt, a rule and what it exercises', () => {
    expect(TASKS).toHaveLength(15);
    expect(new Set(TASKS.map((t) => t.id)).size).toBe(15);
    for (const t of TASKS) {
      expect(t.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(t.prompt.length).toBeGreaterThan(40);
      expect(t.rule.length).toBeGreaterThan(10);
      expect(t.exercises.length).toBeGreaterThan(0);
    }
    expect(programFileName(TASKS[0]!)).toBe('01-manager-chain.ts');
    expect(programFileName(TASKS[14]!)).toBe('15-october-by-category.ts');
  });

  it.each(TASKS.map((t) => t.id))('%s: accepts its canonical answer, refuses every one-point change of it and every junk value', async (id) => {
    const { expected, judge } = await expectationOf(id);
    expect(judge(expected)).toEqual({ ok: true });
    let changes = 0;
    for (const m of mutations(expected)) {
      changes++;
      const verdict = judge(m.value);
      expect(verdict.ok, `${id}: ${m.where} was accepted`).toBe(false);
    }
    expect(changes).toBeGreaterThan(0);
    for (const junk of [undefined, null, 0, '', true, [], {}, 'I could not do it']) expect(judge(junk).ok, `${id}: ${JSON.stringify(junk)} was accepted`).toBe(false);
  });

  it('computes answers with substance (no task is answered by an empty value)', async () => {
    expect((await expectationOf('search-every-page')).expected).toHaveLength(11); // more than docs_search's 10 per page
    expect((await expectationOf('over-budget-months')).expected).toHaveLength(10);
    expect((await expectationOf('postmortem-actions-by-team')).expected).toEqual({ platform: 7, design: 2, sales: 1 });
    expect((await expectationOf('roadmap-readable')).expected).toEqual({ titles: ['Platform roadmap H1 2027'], refused: ['doc-07'] });
    expect((await expectationOf('old-wiki-links')).expected).toMatchObject({ 'doc-13': null, 'doc-99': null });
    expect((await expectationOf('form-topic-counts')).expected).toEqual([1, 0, 7, 0, 4]); // 7 is more than a default page of 3
  });
});

describe('the reference programs', () => {
  it('exist for every task, under bench/model-programs/reference/', () => {
    const names = readdirSync(REFERENCE);
    expect(TASKS.map(programFileName).filter((n) => !names.includes(n))).toEqual([]);
  });
});

describe('when the runner runs programs through run_code as `ptc run` does', () => {
  const byTask = (records: readonly ProgramRecord[]) => Object.fromEntries(records.map((r) => [r.task, r]));

  it('judges correct reference programs correct (search, pages, a denial, a failing call, a refused approval)', async () => {
    const report = await runPrograms({ dir: REFERENCE, tasks: tasksNamed('stale-index-owners', 'postmortem-actions-by-team', 'old-wiki-links', 'flag-largest-pending') });
    expect(report.records.map((r) => [r.task, r.outcome, r.detail])).toEqual([
      ['stale-index-owners', 'correct', ''],
      ['postmortem-actions-by-team', 'correct', ''],
      ['old-wiki-links', 'correct', ''],
      ['flag-largest-pending', 'correct', ''],
    ]);
    expect(byTask(report.records)['postmortem-actions-by-team']!.calls).toBeGreaterThan(7);
    expect(formatReport(report)).toMatch(/^4 of 4 first attempt \(wrong answer 0, runtime error 0, type-check rejected 0, missing 0\)$/m);
  }, 180_000);

  it('judges broken programs: a wrong answer, a type-check rejection, a runtime error, a spilled wrong answer, a missing file', async () => {
    const report = await runPrograms({
      dir: BROKEN,
      tasks: tasksNamed('manager-chain', 'stale-index-owners', 'platform-october-approved', 'search-every-page', 'form-topic-counts', 'roadmap-readable', 'five-largest'),
    });
    const r = byTask(report.records);
    expect(r['manager-chain']).toMatchObject({ outcome: 'wrong-answer', detail: 'result[0]: expected "Lin Wei", got "Grace Okafor"', calls: 1 });
    expect(r['stale-index-owners']).toMatchObject({ outcome: 'missing' });
    expect(r['platform-october-approved']).toMatchObject({ outcome: 'rejected', calls: null });
    expect(r['platform-october-approved']!.detail).toMatch(/'employee' does not exist/);
    expect(r['search-every-page']).toMatchObject({ outcome: 'wrong-answer', detail: expect.stringContaining('expected 11 element(s), got 3') });
    expect(r['form-topic-counts']).toMatchObject({ outcome: 'runtime-error' });
    expect(r['form-topic-counts']!.detail).toMatch(/args\.query/);
    expect(r['roadmap-readable']).toMatchObject({ outcome: 'runtime-error' });
    expect(r['roadmap-readable']!.detail).toMatch(/Denied: the call to "docs_read" was denied by a guard/);
    expect(r['five-largest']).toMatchObject({ outcome: 'wrong-answer', spilled: true, detail: expect.stringContaining('expected 5 element(s), got 517') });
    expect(report.correct).toBe(0);
    const text = formatReport(report);
    expect(text).toMatch(/^0 of 7 first attempt \(wrong answer 3, runtime error 2, type-check rejected 1, missing 1\)$/m);
    expect(text).toMatch(/^08-form-topic-counts\.ts\s+runtime error\s+-\s+"run_code" failed: The program threw/m);
  }, 180_000);

  it('lists a file that names no task, and refuses a directory it cannot read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalset-programs-'));
    try {
      writeFileSync(join(dir, '1-manager-chain.ts'), 'return 1;');
      writeFileSync(join(dir, 'notes.md'), 'not a program');
      const report = await runPrograms({ dir, tasks: [] });
      expect(report.unmatched).toEqual(['1-manager-chain.ts']);
      expect(formatReport(report)).toContain('not a task\'s file name, not run: "1-manager-chain.ts"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await expect(runPrograms({ dir: join(dir, 'gone') })).rejects.toSatisfy((e: unknown) => EvalHarnessError.isInstance(e) && /cannot read the programs directory/.test((e as Error).message));
  });
});

describe('the handout for the blind session', () => {
  it("is run_code's tools/list entry as `ptc mcp serve` lists it: the same text the host gives a model", async () => {
    const listed = await runCodeListing();
    const session = await buildSessionHost({ approve: 'no', isolation: 'process', mcp: [], mcpConfig: [] });
    try {
      const schema = session.host.schemas().find((s) => s.name === 'run_code')!;
      expect(listed.description).toBe(schema.description);
    } finally {
      await session.close();
    }
    expect(listed.name).toBe('run_code');
    expect(listed.description).toContain('declare const tools: Tools;');
    for (const tool of ['team_list', 'team_get', 'expenses_list', 'budget_get', 'expense_flag', 'docs_search', 'docs_read']) expect(listed.description).toContain(`${tool}(`);
    expect(listed.inputSchema).toMatchObject({ type: 'object', properties: { code: { type: 'string' } }, required: ['code'] });
  }, 60_000);

  it('is what docs/model-programs.md lists: every file, prompt and rule', () => {
    const doc = readFileSync(join(here, '..', '..', 'docs', 'model-programs.md'), 'utf8');
    for (const t of TASKS) expect(doc).toContain(`| ${programFileName(t).replace(/\.ts$/, '')} | ${t.prompt} | ${t.exercises.join(', ')} | ${t.rule} |`);
  });

  it('gives every prompt under its file name, and nothing of how it is judged', () => {
    const text = tasksHandout();
    for (const t of TASKS) {
      expect(text).toContain(`## ${programFileName(t)}\n\n${t.prompt}\n`);
      expect(text).not.toContain(t.rule);
    }
    expect(text).not.toMatch(/reference|judge|expected/i);
  });
});
