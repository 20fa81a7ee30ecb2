const { members } = await tools.team_list({ team: 'platform' });
const lists = await Promise.all(members.map((m) => tools.expenses_list({ employeeId: m.id, month: '2026-10', status: 'approved' })));
return lists.reduce((sum, l) => sum + l.totalCents, 0);
