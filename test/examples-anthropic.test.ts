/** examples/anthropic.ts runs: a scripted Messages API asks for run_code, reads the tool_result, answers. */
import { describe, expect, it } from 'vitest';
import { anthropicExample, EXAMPLE_PROGRAM } from '../examples/anthropic.js';
import { fakeAnthropic, reply, text, toolResultsOf, toolUse } from './support/anthropic-fake.js';

describe('the Anthropic example', () => {
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
