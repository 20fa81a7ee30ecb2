/**
 * The agent loop without a framework: the host's schemas to the model, the model's calls
 * through `host.runTurn`, each result's content and additional contexts back, until the model
 * answers in text. `Model` is your model client wrapped in one function; the messages are in a
 * neutral shape to map to your provider's.
 */
import { modelContent, type AgentRef, type ContentBlock, type ToolCall, type ToolHost, type ToolSchema } from 'ptc-runtime';

/** One message of the conversation. */
export type LoopMessage =
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'assistant'; readonly text: string; readonly toolCalls: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly callId: string; readonly isError: boolean; readonly content: readonly ContentBlock[] };

/** Your model client: the conversation and the tools in, text and tool calls out. */
export type Model = (messages: readonly LoopMessage[], tools: readonly ToolSchema[]) => Promise<{ text: string; toolCalls: readonly ToolCall[] }>;

/** Runs the loop; `text` is the model's answer, absent when `maxTurns` ran out first. */
export async function runAgentLoop(options: { host: ToolHost; model: Model; prompt: string; agent: AgentRef; signal?: AbortSignal; maxTurns?: number }) {
  const { host, model, agent, signal, maxTurns = 8 } = options;
  const tools = host.schemas(); // name, description, parameters (JSON Schema): all the model sees
  const messages: LoopMessage[] = [{ role: 'user', text: options.prompt }];
  for (let turn = 0; turn < maxTurns; turn++) {
    const reply = await model(messages, tools);
    messages.push({ role: 'assistant', text: reply.text, toolCalls: reply.toolCalls });
    if (reply.toolCalls.length === 0) return { text: reply.text, messages };
    // One turn: parallel-safe calls side by side, results in call order, never a throw for a failed call.
    const results = await host.runTurn(reply.toolCalls, { agent, ...(signal ? { signal } : {}) });
    for (const r of results) messages.push({ role: 'tool', callId: r.callId, isError: r.isError, content: modelContent(r) });
  }
  return { text: undefined, messages };
}
