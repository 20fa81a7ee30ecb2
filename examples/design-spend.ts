/**
 * The task the framework examples share: the question a user asks, and the program a model
 * would write for it (each example's scripted model sends it, so the examples run offline).
 */
export const EXAMPLE_PROMPT = 'How much did the design team spend in October 2026, per person?';

/** The program a model would write for {@link EXAMPLE_PROMPT}. */
export const EXAMPLE_PROGRAM = `
const { members } = await tools.team_list({ team: 'design' });
const totals = await Promise.all(members.map(async (m) => {
  const { totalCents } = await tools.expenses_list({ employeeId: m.id, month: '2026-10' });
  return { name: m.name, euros: totalCents / 100 };
}));
return totals;`;
