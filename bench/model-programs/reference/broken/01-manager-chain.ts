// Broken on purpose (the judge's test): the two names in the wrong order.
const { members } = await tools.team_list();
const priya = members.find((m) => m.name === 'Priya Raman')!;
const manager = members.find((m) => m.id === priya.managerId)!;
const next = members.find((m) => m.id === manager.managerId)!;
return [next.name, manager.name];
