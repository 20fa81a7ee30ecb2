// Broken on purpose (the judge's test): a misspelt argument, which the type check rejects.
const { members } = await tools.team_list({ team: 'platform' });
const lists = await Promise.all(members.map((m) => tools.expenses_list({ employee: m.id, month: '2026-10', status: 'approved' })));
return lists.reduce((sum, l) => sum + l.totalCents, 0);
