/**
 * A durable run in the Vercel AI SDK's own loop. The model writes a program that flags an
 * expense; flagging asks a person, who is not there, so the approval channel answers `'defer'`
 * and the run suspends: its process is freed, the model reads one line (a person must decide, do
 * not run the program again) and the app gets the suspension, resume token and all, in
 * `onSuspended` (the step's output carries it without the token). Later (hours, a restart, another
 * replica sharing the store and the key) the app resumes it with the person's decision:
 * `resumeAiSdkRun` gives the follow-up message to append, and the model's next turn reads the
 * program's final value. Run directly, it uses a scripted model so it works offline.
 *
 * (Imports are relative, as in demo.ts: the example tools' host and the runtime must be one copy
 * of the package. In an app: `ptc-runtime/ai-sdk`, `ptc-runtime/runtime`.)
 */
import { generateText, stepCountIs, type LanguageModel, type ModelMessage } from 'ai';
import { resumeAiSdkRun, toAiSdkTools, type RunSuspension } from '../ai-sdk/index.js';
import { createMemoryRunStore, createRunCodeTool, type RunStore } from '../runtime/index.js';
import { createHost } from './tools.js';

/** What the user asks, and the program a model would write for it (the scripted models send it). */
export const FLAG_PROMPT = "Flag Noor Haddad's largest October 2026 expense for review.";
export const FLAG_PROGRAM = `
const { records } = await tools.expenses_list({ employeeId: 'u-201', month: '2026-10' });
const top = records.reduce((a, b) => (b.amountCents > a.amountCents ? b : a));
try {
  const flag = await tools.expense_flag({ expenseId: top.id, reason: 'largest expense in October' });
  return { expenseId: top.id, flagId: flag.flagId };
} catch (e) {
  return { expenseId: top.id, flagId: null, refused: (e as Error).message };
}`;

/** Options of {@link createDurableAiSdkApp}. */
export interface DurableAiSdkAppOptions {
  /** Where suspended runs wait (`createFileRunStore({ dir })` in an app; every replica shares it). */
  readonly store?: RunStore;
  /** The key resume tokens are signed with (32 bytes or more; from a secret store, never the code). */
  readonly key: string;
  /** The conversation so far (an app loads it from its database). */
  readonly messages?: ModelMessage[];
}

/** A small app: one conversation, its durable run_code, and the suspensions waiting for a person. */
export function createDurableAiSdkApp(options: DurableAiSdkAppOptions) {
  const agent = { id: 'analyst' };
  // Nobody is at the keyboard: a durable run's ask is deferred to later, any other ask denied.
  const host = createHost({ approval: { request: async ({ deferrable }) => (deferrable ? 'defer' : 'deny') } });
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 }, durable: { store: options.store ?? createMemoryRunStore(), keys: { current: options.key } } });
  host.register(runCode);
  // An app keeps these server-side (a table of pending approvals): the token is a secret.
  const suspensions: RunSuspension[] = [];
  const tools = toAiSdkTools(host, { agent, onSuspended: (s) => void suspensions.push(s) });
  const messages: ModelMessage[] = [...(options.messages ?? [])];

  async function turn(model: LanguageModel) {
    const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
    messages.push(...result.response.messages);
    return result;
  }

  return {
    messages,
    suspensions,
    /** The user asks; the model may write a program that suspends. */
    async ask(model: LanguageModel, prompt: string) {
      messages.push({ role: 'user', content: prompt });
      return turn(model);
    },
    /** A person decided every pending call of `suspension`: resume the run, put its outcome in the conversation, let the model go on. */
    async decide(model: LanguageModel, suspension: RunSuspension, decision: 'allow-once' | 'deny', by: string) {
      const resumed = await resumeAiSdkRun(runCode, suspension, { agent, decisions: suspension.pending.map((p) => ({ approvalId: p.approvalId, decision, by })) });
      if (resumed.suspension) suspensions.push(resumed.suspension);
      messages.push(resumed.message);
      return { resumed, reply: await turn(model) };
    },
    close: () => runCode.close(),
  };
}

if (process.argv[1]?.endsWith('durable-ai-sdk.js')) {
  const { MockLanguageModelV3 } = await import('ai/test');
  const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
  const say = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] });
  const model = new MockLanguageModelV3({
    doGenerate: [
      { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'run_code', input: JSON.stringify({ code: FLAG_PROGRAM }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] },
      say('Flagging needs a person to approve; I will go on once they decide.'),
      say('Done: the expense is flagged.'),
    ],
  });
  const app = createDurableAiSdkApp({ key: 'example-key-'.padEnd(32, '0') });
  try {
    await app.ask(model, FLAG_PROMPT);
    console.log('suspended:', app.suspensions[0]!.runId, app.suspensions[0]!.pending);
    const { resumed } = await app.decide(model, app.suspensions[0]!, 'allow-once', 'ops@example.com');
    console.log(resumed.text);
  } finally {
    await app.close();
  }
}
