/**
 * The ground truth of the model-program tasks, computed from the bundled data
 * (examples/data) and, where the answer is the search tool's ranking, from direct calls to the
 * bundled `docs_search` on a host of its own: never from a program run through run_code, so a
 * bug in run_code or in a reference program cannot make its own answer right.
 */
import { createHost } from '../../examples/tools.js';
import { actionItems } from '../../examples/tools/documents.js';
import { DOCUMENTS, type StoredDocument } from '../../examples/data/documents.js';
import { BUDGETS, EXPENSES, MONTHS, type Expense } from '../../examples/data/expenses.js';
import { MEMBERS, type Member } from '../../examples/data/team.js';
import type { ToolHost } from '../../tools/index.js';
import { TruthError } from './errors.js';

/** The member with this full name. */
export function memberNamed(name: string): Member {
  const m = MEMBERS.find((x) => x.name === name);
  if (!m) throw new TruthError(`no member named ${name} in examples/data/team.ts`);
  return m;
}

/** The member with this id. */
export function memberById(id: string): Member {
  const m = MEMBERS.find((x) => x.id === id);
  if (!m) throw new TruthError(`no member ${id} in examples/data/team.ts`);
  return m;
}

/** The expenses matching a filter. */
export function expensesWhere(keep: (e: Expense) => boolean): Expense[] {
  return EXPENSES.filter(keep);
}

/** Sum of `amountCents`. */
export const totalCents = (xs: readonly Expense[]): number => xs.reduce((s, e) => s + e.amountCents, 0);

/** A member's monthly budget in cents. */
export function budgetOf(employeeId: string): number {
  const b = BUDGETS.find((x) => x.employeeId === employeeId);
  if (!b) throw new TruthError(`no budget for ${employeeId} in examples/data/expenses.ts`);
  return b.monthlyLimitCents;
}

/** Counted against a budget: approved and pending, not rejected. */
export const countsAgainstBudget = (e: Expense): boolean => e.status !== 'rejected';

/** Every (member, month) whose non-rejected spend is over the monthly budget. */
export function overBudgetMonths(): { employeeId: string; month: string }[] {
  return MEMBERS.flatMap((m) =>
    MONTHS.filter((month) => totalCents(expensesWhere((e) => e.employeeId === m.id && e.date.startsWith(month) && countsAgainstBudget(e))) > budgetOf(m.id)).map((month) => ({ employeeId: m.id, month })),
  );
}

/** The one document whose title contains `part`. */
export function documentTitled(part: string): StoredDocument {
  const found = DOCUMENTS.filter((d) => d.title.includes(part));
  if (found.length !== 1) throw new TruthError(`expected one document titled "…${part}…", found ${found.length}`);
  return found[0]!;
}

/** A document by id, if it exists. */
export const documentById = (docId: string): StoredDocument | undefined => DOCUMENTS.find((d) => d.docId === docId);

/** Documents with this tag. */
export const documentsTagged = (tag: string): StoredDocument[] => DOCUMENTS.filter((d) => d.tags.includes(tag));

/** The parsed action items of a document (the parser `docs_read` uses). */
export { actionItems };

/** Counts of `keyOf` over `xs`, as a plain record. */
export function countBy<T>(xs: readonly T[], keyOf: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[keyOf(x)] = (out[keyOf(x)] ?? 0) + 1;
  return out;
}

interface SearchPage {
  readonly hits: readonly { readonly docId: string }[];
  readonly total: number;
  readonly nextCursor: string | null;
}

/** Direct calls to the bundled tools (no run_code), for truths that are the tools' own output. */
export class DirectTools {
  private host: ToolHost | undefined;
  private calls = 0;

  private async page(query: string, cursor?: string): Promise<SearchPage> {
    this.host ??= createHost();
    const result = await this.host.call({ id: `truth-${++this.calls}`, name: 'docs_search', args: { query, limit: 10, ...(cursor === undefined ? {} : { cursor }) } });
    if (result.isError) throw new TruthError(`docs_search ${JSON.stringify(query)} failed: ${JSON.stringify(result.content)}`);
    return result.value as unknown as SearchPage;
  }

  /** Every hit's docId for `query`, in ranked order, over all pages. */
  async searchAll(query: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.page(query, cursor);
      ids.push(...page.hits.map((h) => h.docId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return ids;
  }

  /** The search's `total` for `query`. */
  async total(query: string): Promise<number> {
    return (await this.page(query)).total;
  }

  /** Releases the host (its background jobs, if any). */
  close(): void {
    this.host?.close();
  }
}
