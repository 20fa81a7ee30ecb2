const { members } = await tools.team_list();
const lists = await Promise.all(members.map((m) => tools.expenses_list({ employeeId: m.id, status: 'approved' })));
const totals = new Map<string, number>();
for (const l of lists) for (const r of l.records) totals.set(r.merchant, (totals.get(r.merchant) ?? 0) + r.amountCents);
const [merchant, totalCents] = [...totals].sort((a, b) => b[1] - a[1])[0]!;
return { merchant, totalCents };
