/** examples/agent-loop.ts runs, and docs/agent-loop.md shows its loop verbatim. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runAgentLoop, type LoopMessage, type Model } from '../examples/agent-loop.js';
import { createHost } from '../examples/tools.js';
import { createRunCodeTool } from '../runtime/index.js';

describe('the framework-free agent loop', () => {
  it('is the loop docs/agent-loop.md shows', () => {
    const doc = readFileSync(new URL('../docs/agent-loop.md', import.meta.url), 'utf8');
    const file = readFileSync(new URL('../examples/agent-loop.ts', import.meta.url), 'utf8');
    const block = /```ts\n(\/\/ examples\/agent-loop\.ts[^\n]*\n)([\s\S]*?)```/.exec(doc);
    expect(block, 'a ts block starting with // examples/agent-loop.ts').not.toBeNull();
    expect(file).toContain(block![2]!);
  });

  it('runs the model\'s calls through the host and hands back what the model reads, in call order', async () => {
    const host = createHost();
    const runCode = createRunCodeTool({ host, isolation: 'isolate' });
    host.register(runCode);
    const seen: LoopMessage[][] = [];
    const model: Model = async (messages, tools) => {
      seen.push([...messages]);
      expect(tools.map((t) => t.name)).toContain('run_code');
      if (seen.length > 1) return { text: 'Two people, and doc-07 is confidential.', toolCalls: [] };
      return {
        text: '',
        toolCalls: [
          { id: 'c1', name: 'run_code', args: { code: 'const { members } = await tools.team_list({ team: "design" }); return members.length;' } },
          { id: 'c2', name: 'docs_read', args: { docId: 'doc-07' } },
        ],
      };
    };
    try {
      const { text, messages } = await runAgentLoop({ host, model, prompt: 'How big is design, and what is doc-07?', agent: { id: 'loop' } });
      expect(text).toBe('Two people, and doc-07 is confidential.');
      const results = messages.filter((m): m is Extract<LoopMessage, { role: 'tool' }> => m.role === 'tool');
      expect(results.map((r) => [r.callId, r.isError])).toEqual([['c1', false], ['c2', true]]);
      expect((results[0]!.content[0] as { text: string }).text).toMatch(/^result: 4\n/);
      expect((results[1]!.content[0] as { text: string }).text).toMatch(/^The call to "docs_read" was denied by the guard: document doc-07 is classified confidential/);
      expect(seen[1]!.slice(-2)).toEqual(results);
    } finally {
      await runCode.close();
    }
  }, 60_000);
});
