/**
 * Contract drivers for ptc-runtime/anthropic over the real client and a scripted Messages API:
 * the manual loop (`messages.create` -> `runToolUses` -> the next `create`) and the SDK's own
 * loop (`client.beta.messages.toolRunner` over `toAnthropicRunnableTools`). What the model was
 * shown is read from the second request's body, as the API would receive it.
 */
import type { AdapterDriver, RunOptions, SeenResult, TurnOutcome } from '../adapter-contract.js';
import { runToolUses, toAnthropicRunnableTools, toAnthropicTools } from '../../anthropic/index.js';
import { fakeAnthropic, MODEL, reply, text, toolResultsOf, toolUse, type RecordedRequest } from './anthropic-fake.js';

/** What the model reads in a `tool_result`, by `tool_use_id`. */
export function seenInRequest(request: RecordedRequest | undefined): Map<string, SeenResult> {
  const seen = new Map<string, SeenResult>();
  for (const block of toolResultsOf(request)) {
    const content = block.content;
    const blocks = typeof content === 'string' ? [content] : ((content ?? []) as { type: string; text?: string; source?: { media_type?: string } }[]).map((b) => (b.type === 'text' ? b.text! : `[${b.type} ${b.source?.media_type}]`));
    seen.set(block.tool_use_id, { form: block.is_error === true ? 'error' : 'result', text: blocks.join('\n') });
  }
  return seen;
}

const scripted = (options: RunOptions) => fakeAnthropic([reply(options.calls.map((c) => toolUse(c.id, c.name, c.args))), reply([text('done')])]);

const outcome = (requests: readonly RecordedRequest[]): TurnOutcome => ({ seen: seenInRequest(requests[1]), outputs: new Map(), pendingApprovals: [] });

/** The manual loop, the way the adapter's docs write it. */
export const anthropicLoopDriver: AdapterDriver = {
  async run(options) {
    const { client, requests } = scripted(options);
    const { host, agent, signal } = options;
    const params = { model: MODEL, max_tokens: 1024, tools: toAnthropicTools(host), messages: [{ role: 'user' as const, content: 'go' }] };
    const first = await client.messages.create(params, { signal });
    const results = await runToolUses(host, first, { agent, ...(signal ? { signal } : {}) });
    await client.messages.create({ ...params, messages: [...params.messages, { role: 'assistant', content: first.content }, { role: 'user', content: results }] }, { signal });
    return outcome(requests);
  },
};

/** The SDK's tool runner. */
export const anthropicRunnerDriver: AdapterDriver = {
  async run(options) {
    const { client, requests } = scripted(options);
    const { host, agent, signal } = options;
    const runner = client.beta.messages.toolRunner({ model: MODEL, max_tokens: 1024, tools: toAnthropicRunnableTools(host, { agent }), messages: [{ role: 'user', content: 'go' }] }, { signal });
    await runner.runUntilDone();
    return outcome(requests);
  },
};
