// Flag pending platform-team expenses above EUR 150 for review. expense_flag is a write: it runs
// exclusively (a barrier among the program's calls) and the policy asks for approval per call.
const { members } = await tools.team_list({ team: 'platform' });
const lists = await Promise.all(members.map((m) => tools.expenses_list({ employeeId: m.id, status: 'pending' })));
const large = lists.flatMap((l) => l.records).filter((r) => r.amountCents > 15_000);

const flagged: string[] = [];
const notFlagged: { expenseId: string; reason: string }[] = [];
for (const expense of large) {
  try {
    const flag = await tools.expense_flag({ expenseId: expense.id, reason: `pending ${expense.category} over EUR 150` });
    flagged.push(flag.flagId);
  } catch (err) {
    notFlagged.push({ expenseId: expense.id, reason: (err as Error).message });
  }
}
return { candidates: large.length, flagged, notFlagged };
