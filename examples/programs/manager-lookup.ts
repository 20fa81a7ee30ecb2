// Who is Priya Raman's (u-103) manager, and how do I reach them? Two small lookups: programmatic
// tool calling does not pay here (the program text and run_code's report cost more than the results).
const person = await tools.team_get({ id: 'u-103' });
if (!person) return { found: false };
const manager = person.managerId ? await tools.team_get({ id: person.managerId }) : null;
return { person: person.name, manager: manager?.name ?? null, email: manager?.email ?? null };
