/**
 * The 15 tasks of the model-program evaluation (docs/model-programs.md): what a user asks of an
 * agent that has only run_code over the bundled example tools. A blind model session gets the
 * prompts (bench/model-programs/handout.ts writes them out) and run_code's description, and
 * writes one program per task, `NN-<id>.ts`; run-programs.ts runs each through run_code and
 * judges what it returns.
 *
 * Each prompt says what to return, as a user who wants a structured answer would, and nothing
 * about the API beyond what run_code's description says. `rule` is the judging rule in words
 * (docs/model-programs.md lists them); `expect` computes the answer from the bundled data or
 * direct tool calls (truth.ts) and builds the judge that enforces the rule.
 */
import { MONTHS } from '../../examples/data/expenses.js';
import { MEMBERS } from '../../examples/data/team.js';
import type { JsonValue } from '../../tools/index.js';
import { each, exact, fields, sameElements, within, type Judge } from './judges.js';
import {
  actionItems,
  budgetOf,
  countBy,
  countsAgainstBudget,
  documentById,
  documentsTagged,
  documentTitled,
  expensesWhere,
  memberById,
  memberNamed,
  overBudgetMonths,
  totalCents,
  type DirectTools,
} from './truth.js';
import { TruthError } from './errors.js';

/** Kinds of agent work a task exercises (several per task). */
export type Exercise = 'lookup' | 'search-then-fetch' | 'aggregate' | 'join' | 'pagination' | 'failure' | 'denial' | 'constraint' | 'reduce-large' | 'fan-out';

/** One task: its prompt, what it exercises, and how its answer is judged. */
export interface ModelTask {
  /** Stable id, kebab-case; the program file is `NN-<id>.ts` (NN: its 1-based position). */
  readonly id: string;
  /** The request, as the blind session reads it. */
  readonly prompt: string;
  readonly exercises: readonly Exercise[];
  /** The judging rule in words. */
  readonly rule: string;
  /** Computes the expected answer and the judge of a program's returned value. */
  expect(tools: DirectTools): Promise<Expectation> | Expectation;
}

/** A task's answer: one value the judge accepts (the canonical answer), and the judge. */
export interface Expectation {
  readonly expected: JsonValue;
  readonly judge: Judge;
}

const t = (task: ModelTask): ModelTask => Object.freeze(task);
/** The expectation whose judge is deep equality with the answer. */
const exactly = (expected: JsonValue): Expectation => ({ expected, judge: exact(expected) });

/** The tasks, in file order. */
export const TASKS: readonly ModelTask[] = Object.freeze([
  t({
    id: 'manager-chain',
    prompt: "Who is Priya Raman's manager, and who is that person's manager? Return the two names as an array, her manager first.",
    exercises: ['lookup', 'join'],
    rule: 'exactly the array of the two full names, nearest manager first',
    expect: () => {
      const first = memberById(memberNamed('Priya Raman').managerId ?? '');
      return exactly([first.name, memberById(first.managerId ?? '').name]);
    },
  }),
  t({
    id: 'stale-index-owners',
    prompt: 'One of our postmortems is about the product search index going stale. Find it and tell me who owns its action items. Return { docId, owners }, with owners as the full names of those people.',
    exercises: ['search-then-fetch', 'join'],
    rule: 'docId equal; owners the same names in any order, each once; other keys tolerated',
    expect: () => {
      const doc = documentTitled('stale search index');
      const owners = [...new Set(actionItems(doc).map((a) => a.ownerId))].map((id) => memberById(id ?? '').name);
      return { expected: { docId: doc.docId, owners }, judge: fields({ docId: exact(doc.docId), owners: sameElements(owners) }) };
    },
  }),
  t({
    id: 'platform-october-approved',
    prompt: 'How much did the platform team spend in approved expenses in October 2026? Return the total in euro cents, as a number.',
    exercises: ['aggregate', 'join', 'fan-out', 'constraint'],
    rule: 'the integer number of cents, exactly',
    expect: () => {
      const ids = new Set(MEMBERS.filter((m) => m.team === 'platform').map((m) => m.id));
      return exactly(totalCents(expensesWhere((e) => ids.has(e.employeeId) && e.date.startsWith('2026-10') && e.status === 'approved')));
    },
  }),
  t({
    id: 'over-budget-months',
    prompt:
      'Who went over their monthly expense budget, and in which months? Count approved and pending expenses, not rejected ones. Return an array of { employeeId, month } (month as YYYY-MM), one entry per person and month over budget.',
    exercises: ['aggregate', 'join', 'fan-out'],
    rule: 'the same (employeeId, month) pairs in any order, each once; other keys in an entry tolerated',
    expect: () => {
      const pairs = overBudgetMonths();
      return { expected: pairs, judge: sameElements(pairs, { keys: ['employeeId', 'month'] }) };
    },
  }),
  t({
    id: 'budget-share',
    prompt:
      'What share of her monthly budget did Elena Petrova spend in November 2026, counting approved and pending expenses but not rejected ones? Return the percentage as a number rounded to one decimal, e.g. 87.5.',
    exercises: ['lookup', 'join'],
    rule: 'a number within 0.05 of the exact percentage (so the rounded value, or the unrounded one)',
    expect: () => {
      const id = memberNamed('Elena Petrova').id;
      const spent = totalCents(expensesWhere((e) => e.employeeId === id && e.date.startsWith('2026-11') && countsAgainstBudget(e)));
      const share = (100 * spent) / budgetOf(id);
      return { expected: Math.round(share * 10) / 10, judge: within(share, 0.05) };
    },
  }),
  t({
    id: 'postmortem-actions-by-team',
    prompt:
      'Go through all our incident postmortems that you are allowed to read and count their action items by the team of the person who owns each item. Return an object like { platform: 3, design: 1 }, with one key per team that owns at least one item.',
    exercises: ['search-then-fetch', 'pagination', 'denial', 'join', 'fan-out'],
    rule: 'exactly one key per team owning an item in a readable postmortem (documents tagged "postmortem", not confidential), each with its exact count',
    expect: () => {
      const items = documentsTagged('postmortem')
        .filter((d) => d.classification !== 'confidential')
        .flatMap((d) => actionItems(d));
      if (items.some((a) => a.ownerId === null)) throw new TruthError('a postmortem action item has no owner: the task assumes every item has one');
      return exactly(countBy(items, (a) => memberById(a.ownerId!).team));
    },
  }),
  t({
    id: 'search-every-page',
    prompt: 'Search the documents for "incident policy roadmap" and give me every match, not just the first page: return the docIds of all matching documents, best match first.',
    exercises: ['pagination', 'constraint'],
    rule: "exactly the search's ranked docIds over all its pages, in rank order",
    expect: async (tools) => exactly(await tools.searchAll('incident policy roadmap')),
  }),
  t({
    id: 'form-topic-counts',
    prompt:
      'A form gave me these topics, some of them left blank: ["checkout", "", "incident", "  ", "design"]. For each topic, how many documents in the store match it? Return an array of counts in the same order, with 0 for a blank topic.',
    exercises: ['constraint', 'fan-out'],
    rule: "exactly the array of the search's total per topic, 0 for the blank ones, in the given order",
    expect: async (tools) => exactly(await Promise.all(['checkout', '', 'incident', '  ', 'design'].map((q) => (q.trim() === '' ? 0 : tools.total(q))))),
  }),
  t({
    id: 'old-wiki-links',
    prompt:
      'These document links come from an old wiki page: doc-03, doc-13, doc-08, doc-99. Some of them may no longer exist. Return an object that maps each of those docIds to the document\'s title, or to null when there is no such document.',
    exercises: ['failure', 'fan-out'],
    rule: 'exactly the four docIds as keys; each the exact title, or null for a document that does not exist',
    expect: () => exactly(Object.fromEntries(['doc-03', 'doc-13', 'doc-08', 'doc-99'].map((id) => [id, documentById(id)?.title ?? null]))),
  }),
  t({
    id: 'roadmap-readable',
    prompt: 'Read every document that a search for "roadmap" finds. Return { titles, refused }: the titles of the documents you could read, and the docIds of those you were not allowed to read.',
    exercises: ['search-then-fetch', 'denial'],
    rule: 'titles: the titles of the non-confidential hits, any order; refused: the docIds of the confidential hits, any order; other keys tolerated',
    expect: async (tools) => {
      const hits = (await tools.searchAll('roadmap')).map((id) => documentById(id)!);
      const titles = hits.filter((d) => d.classification !== 'confidential').map((d) => d.title);
      const refused = hits.filter((d) => d.classification === 'confidential').map((d) => d.docId);
      return { expected: { titles, refused }, judge: fields({ titles: sameElements(titles), refused: sameElements(refused) }) };
    },
  }),
  t({
    id: 'flag-largest-pending',
    prompt:
      'Flag Diego Santos\'s largest pending expense for review, with the reason "largest pending expense this quarter". Return { expenseId, flagged }, where flagged says whether the flag was actually placed.',
    exercises: ['lookup', 'denial'],
    rule: 'expenseId: the id of his largest pending expense; flagged: false (the harness, like `ptc run`, answers approval asks "no", so the flag is refused); other keys tolerated',
    expect: () => {
      const id = memberNamed('Diego Santos').id;
      const pending = expensesWhere((e) => e.employeeId === id && e.status === 'pending').sort((a, b) => b.amountCents - a.amountCents);
      if (pending.length === 0 || (pending.length > 1 && pending[0]!.amountCents === pending[1]!.amountCents)) throw new TruthError('Diego Santos has no single largest pending expense');
      return { expected: { expenseId: pending[0]!.id, flagged: false }, judge: fields({ expenseId: exact(pending[0]!.id), flagged: exact(false) }) };
    },
  }),
  t({
    id: 'top-merchant',
    prompt: "Across everyone's approved expenses in all months, which merchant received the most money? Return { merchant, totalCents }.",
    exercises: ['aggregate', 'reduce-large', 'fan-out'],
    rule: 'merchant and totalCents exactly; other keys tolerated',
    expect: () => {
      const totals = new Map<string, number>();
      for (const e of expensesWhere((x) => x.status === 'approved')) totals.set(e.merchant, (totals.get(e.merchant) ?? 0) + e.amountCents);
      const [[merchant, cents], second] = [...totals].sort((a, b) => b[1] - a[1]) as [[string, number], [string, number]];
      if (second[1] === cents) throw new TruthError('two merchants tie for the most approved spend');
      return { expected: { merchant, totalCents: cents }, judge: fields({ merchant: exact(merchant), totalCents: exact(cents) }) };
    },
  }),
  t({
    id: 'pending-counts',
    prompt: 'How many pending expenses does each person in the directory have, over all months? Return an object that maps every member id to their count.',
    exercises: ['aggregate', 'fan-out'],
    rule: 'exactly one key per member id (all 15), each with the exact count (0 included)',
    expect: () => exactly(Object.fromEntries(MEMBERS.map((m) => [m.id, expensesWhere((e) => e.employeeId === m.id && e.status === 'pending').length]))),
  }),
  t({
    id: 'five-largest',
    prompt: 'What are the five largest single expenses in the company (any status, any month)? Return them largest first, as an array of { id, employeeId, amountCents }.',
    exercises: ['reduce-large', 'fan-out'],
    rule: 'exactly five entries in order, each with the exact id, employeeId and amountCents; other keys in an entry tolerated',
    expect: () => {
      const top = expensesWhere(() => true).sort((a, b) => b.amountCents - a.amountCents);
      if (top[4]!.amountCents === top[5]!.amountCents) throw new TruthError('the fifth and sixth largest expenses tie');
      const five = top.slice(0, 5).map((e) => ({ id: e.id, employeeId: e.employeeId, amountCents: e.amountCents }));
      return { expected: five, judge: each(five.map((e) => fields({ id: exact(e.id), employeeId: exact(e.employeeId), amountCents: exact(e.amountCents) }))) };
    },
  }),
  t({
    id: 'october-by-category',
    prompt: 'Break down October 2026 for the whole company by expense category: how many expense records (any status) fall in each category? Return an object that maps each category to its count.',
    exercises: ['aggregate', 'reduce-large', 'fan-out', 'constraint'],
    rule: 'exactly one key per category with records in October 2026, each with the exact count',
    expect: () => {
      if (!MONTHS.includes('2026-10')) throw new TruthError('the bundled expenses have no October 2026');
      return exactly(countBy(expensesWhere((e) => e.date.startsWith('2026-10')), (e) => e.category));
    },
  }),
]);

/** The program file of a task: `NN-<id>.ts`, NN its 1-based position in {@link TASKS}. */
export function programFileName(task: ModelTask): string {
  const index = TASKS.indexOf(task);
  if (index < 0) throw new TruthError(`task ${task.id} is not one of TASKS`);
  return `${String(index + 1).padStart(2, '0')}-${task.id}.ts`;
}
