const { members } = await tools.team_list();
const diego = members.find((m) => m.name === 'Diego Santos');
if (!diego) throw new Error('Diego Santos is not in the directory');
const { records } = await tools.expenses_list({ employeeId: diego.id, status: 'pending' });
const largest = records.reduce<(typeof records)[number] | undefined>((best, r) => (!best || r.amountCents > best.amountCents ? r : best), undefined);
if (!largest) return { expenseId: null, flagged: false };
try {
  await tools.expense_flag({ expenseId: largest.id, reason: 'largest pending expense this quarter' });
  return { expenseId: largest.id, flagged: true };
} catch (e) {
  if (!(e instanceof ToolCallError)) throw e;
  return { expenseId: largest.id, flagged: false, note: e.message };
}
