/** examples/langchain.ts runs: LangChain's scripted model calls run_code, reads the result, answers; in a LangGraph graph and in a loop of one's own. */
import { readFileSync } from 'node:fs';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_PROGRAM, langGraphExample, toolLoopExample } from '../examples/langchain.js';

const scripted = () => fakeModel().respondWithTools([{ id: 'call_1', name: 'run_code', args: { code: EXAMPLE_PROGRAM } }]).respond(new AIMessage('Ada spent the most.'));

function checkRun(model: ReturnType<typeof scripted>, messages: readonly BaseMessage[]) {
  expect(messages.at(-1)?.content).toBe('Ada spent the most.');
  const tool = messages.find((m): m is ToolMessage => ToolMessage.isInstance(m));
  expect([tool?.tool_call_id, tool?.status]).toEqual(['call_1', 'success']);
  const artifact = tool!.artifact as { result: { name: string; euros: number }[]; calls: unknown[] };
  expect(artifact.result).toHaveLength(4);
  expect(artifact.result.every((r) => typeof r.name === 'string' && r.euros >= 0)).toBe(true);
  expect(artifact.calls).toHaveLength(5); // team_list, then expenses_list for each of the four members
  // The model's second call got our rendered result for run_code.
  const seen = model.calls[1]!.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m));
  expect(seen?.tool_call_id).toBe('call_1');
  expect(String(seen?.content)).toContain(`"name": "${artifact.result[0]!.name}"`);
}

describe('the LangChain example', () => {
  it('runs the program through run_code in a LangGraph ToolNode and puts its totals in the model\'s next input', async () => {
    const model = scripted();
    checkRun(model, await langGraphExample(model));
  }, 60_000);

  it('does the same in a loop of one\'s own around runToolCalls', async () => {
    const model = scripted();
    checkRun(model, await toolLoopExample(model));
  }, 60_000);
});

describe('the LangChain section of docs/agent-loop.md', () => {
  it('shows code that is in examples/langchain.ts, line for line', () => {
    const full = readFileSync(new URL('../docs/agent-loop.md', import.meta.url), 'utf8');
    const start = full.indexOf('## LangChain / LangGraph');
    // Up to the next section, or the durable-runs part (whose code is examples/durable-langchain.ts').
    const doc = full.slice(start, Math.min(full.indexOf('\n## ', start + 1), full.indexOf('\n### Durable runs', start)));
    const example = readFileSync(new URL('../examples/langchain.ts', import.meta.url), 'utf8');
    const lines = new Set(example.split('\n').map((l) => l.trim()));
    const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(2);
    for (const line of blocks.flatMap((b) => b.split('\n')).map((l) => l.trim()).filter(Boolean)) expect(lines.has(line), line).toBe(true);
  });
});
