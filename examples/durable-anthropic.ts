/**
 * A durable run in the Messages API loop you write with `@anthropic-ai/sdk`. The model writes a
 * program that flags an expense; flagging asks a person who is not there, so the approval
 * channel answers `'defer'` and the run suspends: its process is freed, its `tool_result` is the
 * one line the model reads (a person must decide, do not run the program again), and the app
 * gets the suspension, resume token and all, in `runToolUses`' `onSuspended`. Later the app
 * resumes it with the person's decision: `resumeAnthropicRun` gives the user message to append,
 * and the model's next reply reads the program's final value. Run directly, it uses a scripted
 * Messages API so it works offline.
 *
 * (Imports are relative, as in demo.ts: the example tools' host and the runtime must be one copy
 * of the package. In an app: `ptc-runtime/anthropic`, `ptc-runtime/runtime`.)
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { resumeAnthropicRun, runToolUses, toAnthropicTools, type RunSuspension } from '../anthropic/index.js';
import { createMemoryRunStore, createRunCodeTool, type RunStore } from '../runtime/index.js';
import { createHost } from './tools.js';
import { FLAG_PROGRAM, FLAG_PROMPT } from './durable-ai-sdk.js';

export { FLAG_PROGRAM, FLAG_PROMPT };

/** Options of {@link createDurableAnthropicApp}. */
export interface DurableAnthropicAppOptions {
  readonly client: Anthropic;
  readonly model?: string;
  /** Where suspended runs wait (`createFileRunStore({ dir })` in an app; every replica shares it). */
  readonly store?: RunStore;
  /** The key resume tokens are signed with (32 bytes or more; from a secret store). */
  readonly key: string;
  /** The conversation so far (an app loads it from its database). */
  readonly messages?: MessageParam[];
}

/** A small app: one conversation, its durable run_code, and the suspensions waiting for a person. */
export function createDurableAnthropicApp(options: DurableAnthropicAppOptions) {
  const { client, model = 'claude-sonnet-4-6' } = options;
  const agent = { id: 'analyst' };
  const host = createHost({ approval: { request: async ({ deferrable }) => (deferrable ? 'defer' : 'deny') } });
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 }, durable: { store: options.store ?? createMemoryRunStore(), keys: { current: options.key } } });
  host.register(runCode);
  const tools = toAnthropicTools(host);
  const suspensions: RunSuspension[] = []; // server-side: the token is a secret
  const messages: MessageParam[] = [...(options.messages ?? [])];

  async function loop(maxTurns = 5): Promise<Message> {
    for (let turn = 0; turn < maxTurns; turn++) {
      const message: Message = await client.messages.create({ model, max_tokens: 4096, tools, messages });
      messages.push({ role: 'assistant', content: message.content });
      if (message.stop_reason !== 'tool_use') return message;
      messages.push({ role: 'user', content: await runToolUses(host, message, { agent, onSuspended: (s) => void suspensions.push(s) }) });
    }
    throw new Error(`no answer after ${maxTurns} turns`);
  }

  return {
    messages,
    suspensions,
    /** The user asks; the model may write a program that suspends. */
    ask(prompt: string) {
      messages.push({ role: 'user', content: prompt });
      return loop();
    },
    /** A person decided every pending call of `suspension`: resume, append the outcome, let the model go on. */
    async decide(suspension: RunSuspension, decision: 'allow-once' | 'deny', by: string) {
      const resumed = await resumeAnthropicRun(runCode, suspension, { agent, decisions: suspension.pending.map((p) => ({ approvalId: p.approvalId, decision, by })) });
      if (resumed.suspension) suspensions.push(resumed.suspension);
      messages.push(resumed.message);
      return { resumed, reply: await loop() };
    },
    close: () => runCode.close(),
  };
}

if (process.argv[1]?.endsWith('durable-anthropic.js')) {
  const { default: AnthropicClient } = await import('@anthropic-ai/sdk');
  const usage = { input_tokens: 0, output_tokens: 0, cache_creation: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, inference_geo: null, output_tokens_details: null, server_tool_use: null, service_tier: null, speed: null };
  const base = { type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', container: null, diagnostics: null, stop_details: null, stop_sequence: null, usage } as const;
  const say = (id: string, text: string): Message => ({ ...base, id, stop_reason: 'end_turn', content: [{ type: 'text', text, citations: null }] });
  const replies: Message[] = [
    { ...base, id: 'msg_1', stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 'toolu_1', name: 'run_code', input: { code: FLAG_PROGRAM }, caller: { type: 'direct' } }] },
    say('msg_2', 'Flagging needs a person to approve; I will go on once they decide.'),
    say('msg_3', 'Done: the expense is flagged.'),
  ];
  let sent = 0;
  const client = new AnthropicClient({ apiKey: 'offline', maxRetries: 0, openTelemetry: false, fetch: async () => new Response(JSON.stringify(replies[sent++]), { headers: { 'content-type': 'application/json' } }) });
  const app = createDurableAnthropicApp({ client, key: 'example-key-'.padEnd(32, '0') });
  try {
    await app.ask(FLAG_PROMPT);
    const { resumed } = await app.decide(app.suspensions[0]!, 'allow-once', 'ops@example.com');
    console.log(resumed.text);
  } finally {
    await app.close();
  }
}
