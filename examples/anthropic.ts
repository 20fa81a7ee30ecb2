/**
 * ptc-runtime in the Messages API loop you write with `@anthropic-ai/sdk`: the host's tools,
 * run_code among them, as the request's `tools`, and each reply's `tool_use` blocks run through
 * the host's pipeline and trace by `runToolUses`, which gives the `tool_result` blocks of the
 * next user message. Pass any client (`new Anthropic()` reads ANTHROPIC_API_KEY); run directly,
 * it uses a scripted Messages API so it works offline.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { runToolUses, toAnthropicTools } from 'ptc-runtime/anthropic';
import { createRunCodeTool } from 'ptc-runtime/runtime';
import { createHost } from './tools.js';
import { EXAMPLE_PROGRAM, EXAMPLE_PROMPT } from './design-spend.js';

export async function anthropicExample(client: Anthropic, { model = 'claude-sonnet-4-6', maxTurns = 5 } = {}) {
  const host = createHost(); // the example tools (team, expenses, documents) and their policy
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 } });
  host.register(runCode);
  const tools = toAnthropicTools(host); // run_code and every tool beside it
  const messages: MessageParam[] = [{ role: 'user', content: EXAMPLE_PROMPT }];
  try {
    for (let turn = 0; turn < maxTurns; turn++) {
      const message: Message = await client.messages.create({ model, max_tokens: 4096, tools, messages });
      messages.push({ role: 'assistant', content: message.content });
      if (message.stop_reason !== 'tool_use') return { message, messages };
      // Every tool_use block of the reply in one host.runTurn; the results in tool_use order.
      messages.push({ role: 'user', content: await runToolUses(host, message, { agent: { id: 'analyst' } }) });
    }
    throw new Error(`no answer after ${maxTurns} turns`);
  } finally {
    await runCode.close();
  }
}

/** The program the scripted model sends (tests reuse it). */
export { EXAMPLE_PROGRAM };

if (process.argv[1]?.endsWith('anthropic.js')) {
  const { default: AnthropicClient } = await import('@anthropic-ai/sdk');
  const usage = { input_tokens: 0, output_tokens: 0, cache_creation: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, inference_geo: null, output_tokens_details: null, server_tool_use: null, service_tier: null, speed: null };
  const base = { type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', container: null, diagnostics: null, stop_details: null, stop_sequence: null, usage } as const;
  const replies: Message[] = [
    { ...base, id: 'msg_1', stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 'toolu_1', name: 'run_code', input: { code: EXAMPLE_PROGRAM }, caller: { type: 'direct' } }] },
    { ...base, id: 'msg_2', stop_reason: 'end_turn', content: [{ type: 'text', text: '(the model would answer from the totals here)', citations: null }] },
  ];
  let sent = 0;
  const client = new AnthropicClient({ apiKey: 'offline', maxRetries: 0, openTelemetry: false, fetch: async () => new Response(JSON.stringify(replies[sent++]), { headers: { 'content-type': 'application/json' } }) });
  const { messages } = await anthropicExample(client);
  console.log(JSON.stringify(messages.at(-2)?.content, null, 2));
}
