const { members } = await tools.team_list();
const elena = members.find((m) => m.name === 'Elena Petrova');
if (!elena) throw new Error('Elena Petrova is not in the directory');
const [budget, list] = await Promise.all([tools.budget_get({ employeeId: elena.id }), tools.expenses_list({ employeeId: elena.id, month: '2026-11' })]);
if (!budget) throw new Error('no budget for Elena Petrova');
const spent = list.records.filter((r) => r.status !== 'rejected').reduce((s, r) => s + r.amountCents, 0);
return Math.round((1000 * spent) / budget.monthlyLimitCents) / 10;
