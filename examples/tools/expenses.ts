/**
 * Expense tools: `expenses_list`, `budget_get` (read-only, parallel) and `expense_flag`, the one
 * write: exclusive (a barrier among sibling calls) and, under the example policy, approval-gated.
 * Flags live in the tool set's own state, so each `createExampleTools()` starts clean.
 */
import { z } from 'zod';
import { defineTool, type Tool } from '../../tools/index.js';
import { BUDGETS, EXPENSES, MONTHS, type Expense } from '../data/expenses.js';
import { MEMBERS } from '../data/team.js';

const expenseSchema = z.object({
  id: z.string().describe('Expense id, e.g. "exp-0042"; pass it to expense_flag'),
  employeeId: z.string(),
  date: z.string().describe('YYYY-MM-DD'),
  amountCents: z.number().int().describe('Integer euro cents'),
  currency: z.literal('EUR'),
  category: z.enum(['travel', 'lodging', 'meals', 'software', 'hardware', 'client-entertainment']),
  merchant: z.string(),
  status: z.enum(['approved', 'pending', 'rejected']),
});

const euros = (cents: number) => `EUR ${(cents / 100).toFixed(2)}`;
const row = (e: Expense) => `${e.id}  ${e.date}  ${euros(e.amountCents).padStart(12)}  ${e.category.padEnd(20)} ${e.merchant.padEnd(20)} ${e.status}`;

/** Builds the three expense tools over one flag store. */
export function createExpenseTools(): Tool[] {
  const flags = new Map<string, { flagId: string; expenseId: string; reason: string }>();

  const expensesList = defineTool({
    name: 'expenses_list',
    description: `List one person's expense records, optionally for one month (${MONTHS.join(', ')}) and status. totalCents sums the listed records.`,
    parameters: {
      employeeId: { type: 'string', required: true, description: 'Member id from team_list' },
      month: { type: 'string', pattern: '^\\d{4}-\\d{2}$', description: 'YYYY-MM' },
      status: { type: 'string', enum: ['approved', 'pending', 'rejected'] },
    },
    output: {
      schema: z.object({
        employeeId: z.string(),
        month: z.string().nullable(),
        records: z.array(expenseSchema),
        totalCents: z.number().int(),
      }),
      render: (_a, v) =>
        `${v.records.length} expense(s) for ${v.employeeId}${v.month ? ` in ${v.month}` : ''}, total ${euros(v.totalCents)}:\n` + v.records.map(row).join('\n'),
    },
    isConcurrencySafe: true,
    execute: (args) => {
      const records = EXPENSES.filter((e) => e.employeeId === args.employeeId && (!args.month || e.date.startsWith(args.month)) && (!args.status || e.status === args.status));
      return { employeeId: args.employeeId, month: args.month ?? null, records, totalCents: records.reduce((s, e) => s + e.amountCents, 0) };
    },
  });

  const budgetGet = defineTool({
    name: 'budget_get',
    description: "A person's monthly expense budget. Returns null for an unknown member id.",
    parameters: { employeeId: { type: 'string', required: true, description: 'Member id from team_list' } },
    output: {
      schema: z.object({ employeeId: z.string(), monthlyLimitCents: z.number().int(), currency: z.literal('EUR') }).nullable(),
      render: (args, v) => (v ? `Budget for ${v.employeeId}: ${euros(v.monthlyLimitCents)} per month.` : `No budget for ${args.employeeId}.`),
    },
    isConcurrencySafe: true,
    execute: (args) => BUDGETS.find((b) => b.employeeId === args.employeeId) ?? null,
  });

  const expenseFlag = defineTool({
    name: 'expense_flag',
    description: "Flag one expense for review by the employee's manager. Visible to the employee; needs approval.",
    parameters: {
      expenseId: { type: 'string', required: true, description: 'Expense id from expenses_list' },
      reason: { type: 'string', required: true, minLength: 3, maxLength: 200 },
    },
    output: {
      schema: z.object({ flagId: z.string(), expenseId: z.string(), reviewerId: z.string().nullable(), alreadyFlagged: z.boolean() }),
      render: (_a, v) => `${v.alreadyFlagged ? 'Already flagged' : 'Flagged'} ${v.expenseId} as ${v.flagId}; reviewer ${v.reviewerId ?? 'none'}.`,
    },
    // Omitted isConcurrencySafe: a write is exclusive, a barrier among its siblings.
    execute: (args) => {
      const expense = EXPENSES.find((e) => e.id === args.expenseId);
      if (!expense) throw new Error(`no expense with id ${args.expenseId}`);
      const reviewerId = MEMBERS.find((m) => m.id === expense.employeeId)?.managerId ?? null;
      const existing = flags.get(args.expenseId);
      if (existing) return { flagId: existing.flagId, expenseId: args.expenseId, reviewerId, alreadyFlagged: true };
      const flag = { flagId: `flag-${flags.size + 1}`, expenseId: args.expenseId, reason: args.reason };
      flags.set(args.expenseId, flag);
      return { flagId: flag.flagId, expenseId: args.expenseId, reviewerId, alreadyFlagged: false };
    },
  });

  return [expensesList, budgetGet, expenseFlag];
}
