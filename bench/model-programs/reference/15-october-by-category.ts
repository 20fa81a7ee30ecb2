const { members } = await tools.team_list();
const lists = await Promise.all(members.map((m) => tools.expenses_list({ employeeId: m.id, month: '2026-10' })));
const counts: Record<string, number> = {};
for (const l of lists) for (const r of l.records) counts[r.category] = (counts[r.category] ?? 0) + 1;
return counts;
