/**
 * examples/openai-agents.ts, run as the docs show it: the Agents SDK's loop over the example
 * host, offline with the SDK's ScriptedModel. The program's result must match the data, and the
 * approval example must pause, cross toString/fromString and flag exactly once.
 */
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_PROGRAM, openAiAgentsApprovalExample, openAiAgentsExample } from '../examples/openai-agents.js';
import { EXPENSES } from '../examples/data/expenses.js';
import { MEMBERS } from '../examples/data/team.js';
import { sentResults } from './support/openai-agents-driver.js';

describe('the OpenAI Agents SDK example', () => {
  it('runs the model\'s program through run_code and gives the app its value and the model its output', async () => {
    const model = new ScriptedModel([[functionCall('run_code', { code: EXAMPLE_PROGRAM }, { callId: 'call_1' })], [assistantMessage('Here are the totals.')]]);
    const { finalOutput, calls } = await openAiAgentsExample(model);
    expect(finalOutput).toBe('Here are the totals.');
    model.assertComplete();
    const expected = MEMBERS.filter((m) => m.team === 'design').map((m) => ({
      name: m.name,
      euros: EXPENSES.filter((e) => e.employeeId === m.id && e.date.startsWith('2026-10')).reduce((s, e) => s + e.amountCents, 0) / 100,
    }));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ callId: 'call_1', toolName: 'run_code', isError: false });
    expect((calls[0]!.value as { result: unknown }).result).toEqual(expected);
    expect(sentResults(model.lastCall?.request.input).get('call_1')?.text).toContain(JSON.stringify(expected[0]!.name));
  }, 60_000);

  it('pauses on expense_flag, and runs it once after the saved state is approved', async () => {
    const first = new ScriptedModel([[functionCall('expense_flag', { expenseId: 'exp-0001', reason: 'the receipt is missing' }, { callId: 'flag_1' })]]);
    const resumed = new ScriptedModel([[assistantMessage('Flagged.')]]);
    const { asked, finalOutput, calls } = await openAiAgentsApprovalExample({ first, resumed });
    expect(asked).toEqual([{ tool: 'expense_flag', arguments: JSON.stringify({ expenseId: 'exp-0001', reason: 'the receipt is missing' }) }]);
    expect(finalOutput).toBe('Flagged.');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ callId: 'flag_1', toolName: 'expense_flag', isError: false, value: { expenseId: 'exp-0001', alreadyFlagged: false } });
  });
});
