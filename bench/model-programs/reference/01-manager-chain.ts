const { members } = await tools.team_list();
const byId = new Map(members.map((m) => [m.id, m]));
const priya = members.find((m) => m.name === 'Priya Raman');
if (!priya) throw new Error('Priya Raman is not in the directory');
const manager = priya.managerId ? byId.get(priya.managerId) : undefined;
const next = manager?.managerId ? byId.get(manager.managerId) : undefined;
return [manager?.name ?? null, next?.name ?? null];
