/**
 * examples/durable-anthropic.ts runs against `@anthropic-ai/sdk` with a fake fetch: the model's
 * program asks, the run suspends (its tool_result is the one line; no request holds the token;
 * the app gets it in onSuspended), the app resumes it with a decision after a restart from a file
 * store, and the next request carries the program's final value. The runnable tools report a
 * suspension the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDurableAnthropicApp, FLAG_PROGRAM, FLAG_PROMPT } from '../examples/durable-anthropic.js';
import { toAnthropicRunnableTools, type RunSuspension } from '../anthropic/index.js';
import { createFileRunStore, createMemoryRunStore, createRunCodeTool } from '../runtime/index.js';
import { createHost } from '../examples/tools.js';
import { fakeAnthropic, reply, text, toolResultsOf, toolUse } from './support/anthropic-fake.js';

const KEY = 'durable-anthropic-test-key'.padEnd(32, '!');
const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const lastUserText = (messages: readonly { role: string; content: unknown }[]): string => {
  const last = messages[messages.length - 1]!;
  expect(last.role).toBe('user');
  return (last.content as { type: string; text: string }[]).map((b) => b.text).join('\n');
};

describe('the durable Anthropic example', () => {
  it('suspends with a one-line tool_result, then resumes after a restart (allow) and the next request carries the final value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptc-durable-anthropic-'));
    dirs.push(dir);
    const api = fakeAnthropic([reply([toolUse('toolu_1', 'run_code', { code: FLAG_PROGRAM })]), reply([text('A person must approve the flag.')]), reply([text('Done.')])]);
    const app = createDurableAnthropicApp({ client: api.client, store: createFileRunStore({ dir }), key: KEY });
    closers.push(app.close);
    const first = await app.ask(FLAG_PROMPT);
    expect(first.content).toEqual([text('A person must approve the flag.')]);
    expect(app.suspensions).toHaveLength(1);
    const s = app.suspensions[0]!;
    expect(s).toMatchObject({ toolCallId: 'toolu_1', toolName: 'run_code', pending: [{ toolName: 'expense_flag' }] });
    const [result] = toolResultsOf(api.requests[1]);
    expect(result!.is_error).toBeUndefined();
    expect(JSON.stringify(result!.content)).toContain('a person must decide a call first (expense_flag');
    const saved = JSON.parse(JSON.stringify(app.messages));
    await app.close();

    const later = createDurableAnthropicApp({ client: api.client, store: createFileRunStore({ dir }), key: KEY, messages: saved });
    closers.push(later.close);
    const { resumed, reply: answer } = await later.decide(s, 'allow-once', 'ops@example.com');
    expect(resumed.suspension).toBeUndefined();
    expect((resumed.result.value as { result: { flagId: string } }).result.flagId).toMatch(/^flag-/);
    expect(answer.content).toEqual([text('Done.')]);
    const sent = lastUserText(api.requests[2]!.body.messages);
    expect(sent).toContain('went on and finished (expense_flag allowed)');
    expect(sent).toContain('"flagId": "flag-');
    expect(JSON.stringify(api.requests.map((r) => r.body))).not.toContain(s.resumeToken);
  }, 90_000);

  it('resumes with a deny: the next request carries the refusal the program returned', async () => {
    const api = fakeAnthropic([reply([toolUse('toolu_1', 'run_code', { code: FLAG_PROGRAM })]), reply([text('Waiting.')]), reply([text('Not flagged.')])]);
    const app = createDurableAnthropicApp({ client: api.client, key: KEY });
    closers.push(app.close);
    await app.ask(FLAG_PROMPT);
    await app.decide(app.suspensions[0]!, 'deny', 'ops@example.com');
    const sent = lastUserText(api.requests[2]!.body.messages);
    expect(sent).toContain('(expense_flag denied)');
    expect(sent).toContain('"flagId": null');
  }, 60_000);

  it('the runnable tools hand a suspension to onSuspended and give the runner the one line', async () => {
    const host = createHost({ approval: { request: async ({ deferrable }) => (deferrable ? 'defer' : 'deny') } });
    const runCode = createRunCodeTool({ host, durable: { store: createMemoryRunStore(), keys: { current: KEY } } });
    host.register(runCode);
    closers.push(() => runCode.close());
    const seen: RunSuspension[] = [];
    const tools = toAnthropicRunnableTools(host, { agent: { id: 'analyst' }, include: ['run_code'], onSuspended: (s) => void seen.push(s) });
    const content = await tools[0]!.run({ code: FLAG_PROGRAM }, { toolUse: { id: 'toolu_9', type: 'tool_use', name: 'run_code', input: {} } } as never);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ toolCallId: 'toolu_9', pending: [{ toolName: 'expense_flag' }] });
    expect(JSON.stringify(content)).toContain('a person must decide');
    expect(JSON.stringify(content)).not.toContain(seen[0]!.resumeToken);
  }, 60_000);
});
