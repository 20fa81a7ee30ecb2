const months = ['2026-09', '2026-10', '2026-11'];
const { members } = await tools.team_list();
const over: { employeeId: string; month: string }[] = [];
await Promise.all(
  members.map(async (m) => {
    const [budget, all] = await Promise.all([tools.budget_get({ employeeId: m.id }), tools.expenses_list({ employeeId: m.id })]);
    if (!budget) return;
    for (const month of months) {
      const spent = all.records.filter((r) => r.date.startsWith(month) && r.status !== 'rejected').reduce((s, r) => s + r.amountCents, 0);
      if (spent > budget.monthlyLimitCents) over.push({ employeeId: m.id, month });
    }
  }),
);
return over.sort((a, b) => a.employeeId.localeCompare(b.employeeId) || a.month.localeCompare(b.month));
