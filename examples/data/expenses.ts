/**
 * Bundled expense records and monthly budgets. Generated from a fixed seed (a small LCG), so
 * every run, test and demo sees the same ~600 records without shipping a large data file.
 */
import { MEMBERS, type Member } from './team.js';

/** One expense line. Amounts are integer cents (no float money). */
export interface Expense {
  readonly id: string;
  readonly employeeId: string;
  readonly date: string;
  readonly amountCents: number;
  readonly currency: 'EUR';
  readonly category: 'travel' | 'lodging' | 'meals' | 'software' | 'hardware' | 'client-entertainment';
  readonly merchant: string;
  readonly status: 'approved' | 'pending' | 'rejected';
}

/** A person's monthly budget. */
export interface Budget {
  readonly employeeId: string;
  readonly monthlyLimitCents: number;
  readonly currency: 'EUR';
}

/** Months with data, oldest first. */
export const MONTHS: readonly string[] = Object.freeze(['2026-09', '2026-10', '2026-11']);

const LIMIT_BY_ROLE: Record<Member['role'], number> = {
  engineer: 60_000,
  designer: 60_000,
  lead: 90_000,
  manager: 150_000,
  'account-exec': 220_000,
};

const MERCHANTS: Record<Expense['category'], readonly string[]> = {
  travel: ['Lufthansa', 'Eurostar', 'Uber', 'KLM', 'SNCF'],
  lodging: ['Marriott', 'Hilton', 'citizenM', 'Airbnb'],
  meals: ['Pret A Manger', 'Local bistro', 'Deliveroo', 'Conference catering'],
  software: ['JetBrains', 'Figma', 'GitHub', 'Linear'],
  hardware: ['Apple Store', 'Dell', 'Logitech'],
  'client-entertainment': ['Steakhouse', 'Opera tickets', 'Golf club'],
};
const CATEGORIES = Object.keys(MERCHANTS) as Expense['category'][];

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function generate(): { expenses: Expense[]; budgets: Budget[] } {
  const rand = lcg(20261130);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const expenses: Expense[] = [];
  let n = 0;
  for (const member of MEMBERS) {
    // A few people overspend on purpose, so "who is over budget" has a non-trivial answer.
    const heavy = ['u-103', 'u-202', 'u-301', 'u-304'].includes(member.id) ? 1.9 : 1;
    for (const month of MONTHS) {
      const count = 8 + Math.floor(rand() * 8);
      for (let i = 0; i < count; i++) {
        const category = member.role === 'account-exec' && rand() < 0.3 ? 'client-entertainment' : pick(CATEGORIES.filter((c) => c !== 'client-entertainment'));
        const base = { travel: 18_000, lodging: 22_000, meals: 3_500, software: 4_000, hardware: 30_000, 'client-entertainment': 25_000 }[category];
        const amountCents = Math.round(base * (0.2 + rand()) * heavy * (LIMIT_BY_ROLE[member.role] / 60_000) ** 0.5 / 2.4);
        const day = String(1 + Math.floor(rand() * 28)).padStart(2, '0');
        const r = rand();
        expenses.push(
          Object.freeze({
            id: `exp-${String(++n).padStart(4, '0')}`,
            employeeId: member.id,
            date: `${month}-${day}`,
            amountCents,
            currency: 'EUR' as const,
            category,
            merchant: pick(MERCHANTS[category]),
            status: r < 0.8 ? ('approved' as const) : r < 0.95 ? ('pending' as const) : ('rejected' as const),
          }),
        );
      }
    }
  }
  expenses.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : 1));
  const budgets = MEMBERS.map((mem) => Object.freeze({ employeeId: mem.id, monthlyLimitCents: LIMIT_BY_ROLE[mem.role], currency: 'EUR' as const }));
  return { expenses, budgets };
}

const data = generate();
/** All expense records, by date. */
export const EXPENSES: readonly Expense[] = Object.freeze(data.expenses);
/** One budget per member. */
export const BUDGETS: readonly Budget[] = Object.freeze(data.budgets);
