/**
 * examples/durable-openai-agents.ts runs with the SDK's ScriptedModel: the model's program asks,
 * the run suspends (the model reads one line; the output item's custom data and the run's
 * history hold no token; the app gets it in onSuspended), the app resumes it with a decision
 * after a restart from a file store, and the model's next turn reads the final value.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createDurableAgentsApp, FLAG_PROGRAM, FLAG_PROMPT } from '../examples/durable-openai-agents.js';
import { createFileRunStore } from '../runtime/index.js';
import { sentResults } from './support/openai-agents-driver.js';

const KEY = 'durable-agents-test-key'.padEnd(32, '!');
const dirs: string[] = [];
const apps: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const lastText = (input: unknown): string => {
  const items = input as { role?: string; content?: unknown }[];
  const last = items[items.length - 1]!;
  expect(last.role).toBe('user');
  return typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
};

describe('the durable OpenAI Agents example', () => {
  it('suspends in a run, then resumes after a restart (allow) and the next turn reads the final value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptc-durable-agents-'));
    dirs.push(dir);
    const model = new ScriptedModel([
      [functionCall('run_code', { code: FLAG_PROGRAM }, { callId: 'call_1' })],
      [assistantMessage('A person must approve the flag.')],
      [assistantMessage('Done.')],
    ]);
    const app = createDurableAgentsApp({ store: createFileRunStore({ dir }), key: KEY });
    apps.push(app);
    const first = await app.ask(model, FLAG_PROMPT);
    expect(first.finalOutput).toBe('A person must approve the flag.');
    expect(app.suspensions).toHaveLength(1);
    const s = app.suspensions[0]!;
    expect(s).toMatchObject({ toolCallId: 'call_1', toolName: 'run_code', pending: [{ toolName: 'expense_flag' }] });
    // The app's record of the call: the suspension, no token.
    expect(first.calls[0]).toMatchObject({ callId: 'call_1', isError: false, value: { suspended: { runId: s.runId } } });
    expect(JSON.stringify(first.calls)).not.toContain(s.resumeToken);
    // The model read the one line.
    expect(sentResults(model.calls[1]!.request.input).get('call_1')?.text).toContain('a person must decide a call first (expense_flag');
    const history = JSON.parse(JSON.stringify(app.history()));
    expect(JSON.stringify(history)).not.toContain(s.resumeToken);
    await app.close();

    const later = createDurableAgentsApp({ store: createFileRunStore({ dir }), key: KEY, history });
    apps.push(later);
    const { resumed, reply } = await later.decide(model, s, 'allow-once', 'ops@example.com');
    expect(resumed.suspension).toBeUndefined();
    expect((resumed.result.value as { result: { flagId: string } }).result.flagId).toMatch(/^flag-/);
    expect(resumed.message).toMatchObject({ type: 'message', role: 'user' });
    expect(reply.finalOutput).toBe('Done.');
    const sent = model.calls[2]!.request.input;
    expect(lastText(sent)).toContain('went on and finished (expense_flag allowed)');
    expect(lastText(sent)).toContain('"flagId": "flag-');
    expect(JSON.stringify(model.calls.map((c) => c.request.input))).not.toContain(s.resumeToken);
    model.assertComplete();
  }, 90_000);

  it('resumes with a deny: the model reads the refusal the program returned', async () => {
    const model = new ScriptedModel([[functionCall('run_code', { code: FLAG_PROGRAM }, { callId: 'call_1' })], [assistantMessage('Waiting.')], [assistantMessage('Not flagged.')]]);
    const app = createDurableAgentsApp({ key: KEY });
    apps.push(app);
    await app.ask(model, FLAG_PROMPT);
    const { reply } = await app.decide(model, app.suspensions[0]!, 'deny', 'ops@example.com');
    expect(reply.finalOutput).toBe('Not flagged.');
    const text = lastText(model.calls[2]!.request.input);
    expect(text).toContain('(expense_flag denied)');
    expect(text).toContain('"flagId": null');
  }, 60_000);
});
