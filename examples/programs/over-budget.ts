// Which team members are over their monthly budget in November 2026?
// One team_list, then expenses and budget for every member in parallel; only the answer returns.
const month = '2026-11';
const { members } = await tools.team_list({});

const rows = await Promise.all(
  members.map(async (member) => {
    const [expenses, budget] = await Promise.all([
      tools.expenses_list({ employeeId: member.id, month }),
      tools.budget_get({ employeeId: member.id }),
    ]);
    const spentCents = expenses.records.filter((r) => r.status !== 'rejected').reduce((sum, r) => sum + r.amountCents, 0);
    const limitCents = budget?.monthlyLimitCents ?? 0;
    return { id: member.id, name: member.name, team: member.team, spentCents, limitCents, overByCents: spentCents - limitCents };
  }),
);

const over = rows.filter((r) => r.overByCents > 0).sort((a, b) => b.overByCents - a.overByCents);
console.log(`checked ${rows.length} members, ${over.length} over budget in ${month}`);
return over;
