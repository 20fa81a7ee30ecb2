/**
 * examples/durable-langchain.ts runs with @langchain/core's scripted model in a checkpointed
 * LangGraph graph: the model's program asks, the run suspends (the ToolMessage is one line, its
 * artifact has no token, the app gets it in onSuspended), the app resumes it with a decision
 * after a restart (same file store and checkpointer, new host and graph), and the model's next
 * turn reads the final value. runToolCalls reports a suspension the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MemorySaver } from '@langchain/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import { createDurableLangGraphApp, FLAG_PROGRAM, FLAG_PROMPT } from '../examples/durable-langchain.js';
import { runToolCalls, type RunSuspension } from '../langchain/index.js';
import { createFileRunStore, createMemoryRunStore, createRunCodeTool } from '../runtime/index.js';
import { createHost } from '../examples/tools.js';

const KEY = 'durable-langchain-test-key'.padEnd(32, '!');
const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const scripted = (last: string) =>
  fakeModel()
    .respondWithTools([{ id: 'call_1', name: 'run_code', args: { code: FLAG_PROGRAM } }])
    .respond(new AIMessage('A person must approve the flag.'))
    .respond(new AIMessage(last));

describe('the durable LangGraph example', () => {
  it('suspends with a one-line ToolMessage, then resumes after a restart (allow) and the next turn reads the final value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptc-durable-langchain-'));
    dirs.push(dir);
    const checkpointer = new MemorySaver();
    const model = scripted('Done.');
    const app = createDurableLangGraphApp({ model, store: createFileRunStore({ dir }), key: KEY, checkpointer });
    closers.push(app.close);
    const first = await app.ask('thread-1', FLAG_PROMPT);
    expect(first.at(-1)?.content).toBe('A person must approve the flag.');
    expect(app.suspensions).toHaveLength(1);
    const s = app.suspensions[0]!;
    expect(s).toMatchObject({ toolCallId: 'call_1', toolName: 'run_code', threadId: 'thread-1', pending: [{ toolName: 'expense_flag' }] });
    const tool = first.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    expect(tool.status).toBe('success');
    expect(String(tool.content)).toContain('a person must decide a call first (expense_flag');
    expect(tool.artifact).toMatchObject({ suspended: { runId: s.runId } });
    expect(JSON.stringify(first)).not.toContain(s.resumeToken);
    await app.close();

    const later = createDurableLangGraphApp({ model, store: createFileRunStore({ dir }), key: KEY, checkpointer });
    closers.push(later.close);
    const { resumed, messages } = await later.decide(JSON.parse(JSON.stringify(s)), 'allow-once', 'ops@example.com');
    expect(resumed.suspension).toBeUndefined();
    expect((resumed.result.value as { result: { flagId: string } }).result.flagId).toMatch(/^flag-/);
    expect(messages.at(-1)?.content).toBe('Done.');
    // The model's third call saw the whole thread, ending with the outcome.
    const seen = model.calls[2]!.messages;
    const last = seen.at(-1)!;
    expect(HumanMessage.isInstance(last)).toBe(true);
    expect(String(last.content)).toContain('went on and finished (expense_flag allowed)');
    expect(String(last.content)).toContain('"flagId": "flag-');
    expect(JSON.stringify(model.calls.map((c) => c.messages))).not.toContain(s.resumeToken);
  }, 90_000);

  it('resumes with a deny: the model reads the refusal the program returned', async () => {
    const model = scripted('Not flagged.');
    const app = createDurableLangGraphApp({ model, key: KEY });
    closers.push(app.close);
    await app.ask('thread-2', FLAG_PROMPT);
    const { messages } = await app.decide(app.suspensions[0]!, 'deny', 'ops@example.com');
    expect(messages.at(-1)?.content).toBe('Not flagged.');
    const last = String(model.calls[2]!.messages.at(-1)!.content);
    expect(last).toContain('(expense_flag denied)');
    expect(last).toContain('"flagId": null');
  }, 60_000);

  it('runToolCalls hands a suspension to onSuspended and its ToolMessage holds no token', async () => {
    const host = createHost({ approval: { request: async ({ deferrable }) => (deferrable ? 'defer' : 'deny') } });
    const runCode = createRunCodeTool({ host, durable: { store: createMemoryRunStore(), keys: { current: KEY } } });
    host.register(runCode);
    closers.push(() => runCode.close());
    const seen: RunSuspension[] = [];
    const [message] = await runToolCalls(host, { tool_calls: [{ id: 'call_9', name: 'run_code', args: { code: FLAG_PROGRAM } }] }, { agent: { id: 'analyst' }, onSuspended: (s) => void seen.push(s) });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ toolCallId: 'call_9', pending: [{ toolName: 'expense_flag' }] });
    expect(message!.artifact).toMatchObject({ suspended: { runId: seen[0]!.runId } });
    expect(JSON.stringify(message)).not.toContain(seen[0]!.resumeToken);
  }, 60_000);
});
