const { members } = await tools.team_list();
const lists = await Promise.all(members.map((m) => tools.expenses_list({ employeeId: m.id })));
return lists
  .flatMap((l) => l.records)
  .sort((a, b) => b.amountCents - a.amountCents)
  .slice(0, 5)
  .map(({ id, employeeId, amountCents }) => ({ id, employeeId, amountCents }));
