/** examples/ai-sdk.ts runs: a scripted AI SDK model calls run_code, reads the result, answers. */
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdkExample, EXAMPLE_PROGRAM } from '../examples/ai-sdk.js';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

describe('the AI SDK example', () => {
  it('runs the program through run_code and puts its totals in the model\'s next prompt', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'run_code', input: JSON.stringify({ code: EXAMPLE_PROGRAM }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] },
        { content: [{ type: 'text', text: 'Ada spent the most.' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
      ],
    });
    const result = await aiSdkExample(model);
    expect(result.text).toBe('Ada spent the most.');
    const sent = (model.doGenerateCalls[0]!.tools ?? []).map((t) => t.name);
    expect(sent).toEqual(expect.arrayContaining(['run_code', 'team_list', 'expenses_list']));
    const output = result.steps[0]!.toolResults[0]!.output as { result: { name: string; euros: number }[]; calls: unknown[] };
    expect(output.result.length).toBe(4);
    expect(output.result.every((r) => typeof r.name === 'string' && r.euros >= 0)).toBe(true);
    expect(output.calls).toHaveLength(5); // team_list, then expenses_list for each of the four members
    const tool = model.doGenerateCalls[1]!.prompt.find((m) => m.role === 'tool') as { content: { output: { type: string; value: string } }[] };
    expect(tool.content[0]!.output.type).toBe('text');
    expect(tool.content[0]!.output.value).toContain(`"name": "${output.result[0]!.name}"`);
  }, 60_000);
});
