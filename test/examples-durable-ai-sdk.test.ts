/**
 * examples/durable-ai-sdk.ts runs: a scripted AI SDK model writes a program that asks; the run
 * suspends (the model reads one line, the app gets the token out of band, and no model-visible
 * message or stored output holds it); the app resumes it with a person's decision, after a
 * restart, from a file store; the model's next turn reads the program's final value.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createDurableAiSdkApp, FLAG_PROGRAM, FLAG_PROMPT } from '../examples/durable-ai-sdk.js';
import { createFileRunStore } from '../runtime/index.js';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const say = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] });
const KEY = 'durable-ai-sdk-test-key'.padEnd(32, '!');

function scriptedModel() {
  return new MockLanguageModelV3({
    doGenerate: [
      { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'run_code', input: JSON.stringify({ code: FLAG_PROGRAM }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] },
      say('A person must approve the flag; I will report back.'),
      say('Done.'),
    ],
  });
}

const dirs: string[] = [];
const apps: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-durable-ai-sdk-'));
  dirs.push(dir);
  return dir;
}

/** Everything the model was sent, as text. */
const sentToModel = (model: MockLanguageModelV3) => JSON.stringify(model.doGenerateCalls.map((c) => c.prompt));

async function suspendedConversation(dir: string) {
  const model = scriptedModel();
  const app = createDurableAiSdkApp({ store: createFileRunStore({ dir }), key: KEY });
  apps.push(app);
  const first = await app.ask(model, FLAG_PROMPT);
  return { model, app, first };
}

describe('the durable AI SDK example', () => {
  it('shows the suspension as one line to the model and hands the app the token out of band', async () => {
    const { model, app, first } = await suspendedConversation(storeDir());
    expect(app.suspensions).toHaveLength(1);
    const s = app.suspensions[0]!;
    expect(s).toMatchObject({ toolCallId: 'call_1', toolName: 'run_code', pending: [{ toolName: 'expense_flag', args: { expenseId: expect.any(String) } }] });
    expect(s.resumeToken).toMatch(/^ptcr1\./);
    // The step's output is the suspension without its token.
    const output = first.steps[0]!.toolResults[0]!.output as { suspended: Record<string, unknown> };
    expect(output.suspended).toMatchObject({ runId: s.runId, expiresAt: s.expiresAt });
    expect(output.suspended).not.toHaveProperty('resumeToken');
    // The model read the one line, and nowhere the token.
    const tool = model.doGenerateCalls[1]!.prompt.find((m) => m.role === 'tool') as { content: { output: { type: string; value: string } }[] };
    expect(tool.content[0]!.output).toMatchObject({ type: 'text', value: expect.stringContaining('a person must decide a call first (expense_flag') });
    expect(sentToModel(model)).not.toContain(s.resumeToken);
    expect(JSON.stringify(app.messages)).not.toContain(s.resumeToken);
    expect(JSON.stringify(first.steps)).not.toContain(s.resumeToken);
    expect(first.text).toBe('A person must approve the flag; I will report back.');
  }, 60_000);

  it('resumes after a restart with an allow, and the model\'s next turn reads the final value', async () => {
    const dir = storeDir();
    const { model, app } = await suspendedConversation(dir);
    const s = app.suspensions[0]!;
    await app.close();
    // A new process: the conversation and the suspension come from the app's database.
    const later = createDurableAiSdkApp({ store: createFileRunStore({ dir }), key: KEY, messages: structuredClone(app.messages) });
    apps.push(later);
    const { resumed, reply } = await later.decide(model, JSON.parse(JSON.stringify(s)), 'allow-once', 'ops@example.com');
    expect(resumed.suspension).toBeUndefined();
    expect(resumed.result.isError).toBe(false);
    expect((resumed.result.value as { result: unknown }).result).toEqual({ expenseId: s.pending[0]!.args && (s.pending[0]!.args as { expenseId: string }).expenseId, flagId: expect.stringMatching(/^flag-/) });
    expect(resumed.message).toMatchObject({ role: 'user', content: [{ type: 'text', text: expect.stringContaining('went on and finished (expense_flag allowed)') }] });
    // The third model call is the one after the resume: its last message is the outcome.
    const prompt = model.doGenerateCalls[2]!.prompt;
    const last = prompt[prompt.length - 1]! as { role: string; content: { type: string; text: string }[] };
    expect(last.role).toBe('user');
    expect(last.content[0]!.text).toContain('"flagId": "flag-');
    expect(reply.text).toBe('Done.');
    expect(sentToModel(model)).not.toContain(s.resumeToken);
    // Single use: the same suspension cannot be resumed twice.
    await expect(later.decide(model, s, 'allow-once', 'ops@example.com')).rejects.toThrow(/cannot be resumed/);
  }, 90_000);

  it('resumes with a deny: the program gets the refusal and the model reads what it returned', async () => {
    const { model, app } = await suspendedConversation(storeDir());
    const s = app.suspensions[0]!;
    const { resumed } = await app.decide(model, s, 'deny', 'ops@example.com');
    expect(resumed.result.isError).toBe(false);
    const value = (resumed.result.value as { result: { flagId: unknown; refused: string } }).result;
    expect(value.flagId).toBeNull();
    expect(value.refused).toMatch(/^Denied/);
    const prompt = model.doGenerateCalls[2]!.prompt;
    const last = prompt[prompt.length - 1]! as { content: { text: string }[] };
    expect(last.content[0]!.text).toContain('(expense_flag denied)');
    expect(last.content[0]!.text).toContain('"flagId": null');
  }, 60_000);
});
