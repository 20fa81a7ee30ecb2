// Broken on purpose (the judge's test): returns every record, sorted, instead of the five largest.
const { members } = await tools.team_list();
const lists = await Promise.all(members.map((m) => tools.expenses_list({ employeeId: m.id })));
return lists.flatMap((l) => l.records).sort((a, b) => b.amountCents - a.amountCents);
