/** examples/anthropic.ts runs: a scripted Messages API asks for run_code, reads the tool_result, answers. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anthropicExample, EXAMPLE_PROGRAM } from '../examples/anthropic.js';
import { fakeAnthropic, reply, text, toolResultsOf, toolUse } from './support/anthropic-fake.js';

describe('the Anthropic example', () => {
  it('has the loop docs/agent-loop.md shows, line for line', () => {
    const doc = readFileSync(new URL('../docs/agent-loop.md', import.meta.url), 'utf8');
    const file = readFileSync(new URL('../examples/anthropic.ts', import.meta.url), 'utf8');
    const block = /```ts\n\/\/ from examples\/anthropic\.ts\n([\s\S]*?)```/.exec(doc);
    expect(block, 'a ts block starting with // from examples/anthropic.ts').not.toBeNull();
    const lines = block![1]!.trim().split('\n').map((l) => l.trim());
    const fileLines = file.split('\n').map((l) => l.trim());
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.filter((l) => !fileLines.includes(l))).toEqual([]);
  });

  it('runs the program through run_code and puts its totals in the next request', async () => {
    const api = fakeAnthropic([reply([text('Let me total it up.'), toolUse('toolu_1', 'run_code', { code: EXAMPLE_PROGRAM })]), reply([text('Ada spent the most.')])]);
    const { message } = await anthropicExample(api.client);
    expect(message.content).toEqual([text('Ada spent the most.')]);
    expect(api.requests).toHaveLength(2);
    const sent = (api.requests[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(sent).toEqual(expect.arrayContaining(['run_code', 'team_list', 'expenses_list']));
    const [result] = toolResultsOf(api.requests[1]);
    expect(result).toMatchObject({ tool_use_id: 'toolu_1' });
    expect(result!.is_error).toBeUndefined();
    const shown = (result!.content as { type: string; text: string }[]).map((b) => b.text).join('\n');
    // The run's output: four members' totals, in the run_code result the model reads.
    expect(shown.match(/"euros": \d+(\.\d+)?/g)).toHaveLength(4);
    expect(shown).toMatch(/"name": "[^"]+"/);
  }, 60_000);
});
