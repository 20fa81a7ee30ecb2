import { describe, expect, it } from 'vitest';
import { declareTool } from '../../codegen/index.js';
import { fixtureTools } from '../../codegen/fixtures/fixture-tools.js';
import { syntheticCatalog } from '../../examples/tool-catalog.js';
import { createToolHost, defineTool, type ToolEvent } from '../../tools/index.js';
import { createRunCodeTool } from '../run-code/run-code-tool.js';
import { createToolSearchTool, defaultToolRanker, type ToolRanker, type ToolRanking, type ToolSearchValue } from './tool-search-tool.js';
import { toolTypesOf, visibleTools } from './visible-tools.js';

function searchHost() {
  const events: ToolEvent[] = [];
  const host = createToolHost({ onEvent: (e) => events.push(e) });
  host.register([...fixtureTools]);
  const runCode = createRunCodeTool({ host, warmup: false });
  host.register(runCode);
  host.register(createToolSearchTool({ host }));
  let n = 0;
  const search = (args: unknown) => host.call({ id: `s${++n}`, name: 'tool_search', args }, { agent: { id: 'a' } });
  return { host, events, search, runCode };
}

describe('when the model calls tool_search', () => {
  it('returns the declarations of the best matches as the program is checked against them', async () => {
    const { host, search } = searchHost();
    const result = await search({ query: 'github issues', limit: 2 });
    expect(result.isError).toBe(false);
    const value = result.value as unknown as ToolSearchValue;
    expect(value.matches[0]).toEqual({
      name: 'github.search-issues',
      callable: 'github_search_issues',
      description: 'Search issues in a GitHub repository.\nResults are sorted by last update, newest first.',
      declaration: declareTool(toolTypesOf(visibleTools(host)), fixtureTools.find((t) => t.name === 'github.search-issues')!),
    });
    expect(value.matches[0]!.declaration).toContain('github_search_issues(args: {');
    expect(value.matches.length).toBeLessThanOrEqual(2);
    // The model reads the declarations, with the original name where it differs from the callable one.
    const text = result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(text).toContain('// tool "github.search-issues"\ninterface Tools {');
    expect(text).toContain('```ts\n');
  });

  it('never lists run_code or itself, and a program cannot call it', async () => {
    const { host, search, runCode } = searchHost();
    for (const query of ['run_code', 'tool_search', 'run a TypeScript program', 'find tools']) {
      const value = (await search({ query, limit: 20 })).value as unknown as ToolSearchValue;
      expect(value.matches.map((m) => m.name)).not.toContain('run_code');
      expect(value.matches.map((m) => m.name)).not.toContain('tool_search');
    }
    expect(visibleTools(host).map((t) => t.name)).not.toContain('tool_search');
    expect(runCode.description).not.toContain('tool_search(args');
  });

  it('says plainly when nothing matches (a value, not an error)', async () => {
    const { search } = searchHost();
    const result = await search({ query: 'zzqx' });
    expect(result.isError).toBe(false);
    expect(result.value).toEqual({ matches: [] });
    expect(result.content).toEqual([{ type: 'text', text: 'No tool matches "zzqx". Search with other words, or use a name from the run_code description\'s list.' }]);
  });

  it('validates its arguments in the pipeline like any tool', async () => {
    const { search } = searchHost();
    for (const args of [{ query: '' }, { query: 'x', limit: 0 }, { query: 'x', limit: 21 }, { limit: 3 }, { query: 'x', extra: 1 }]) {
      const result = await search(args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(result.error?.kind).toBe('invalid-args');
    }
  });

  it('is denied by a guard like any tool: it is a pipeline tool, not a side door', async () => {
    const { host, events, search } = searchHost();
    host.hooks.guard((e) => (e.toolName === 'tool_search' ? 'discovery is off in this session' : undefined));
    const result = await search({ query: 'weather' });
    expect(result.denied).toMatchObject({ by: 'guard', reason: 'discovery is off in this session' });
    expect(result.value).toBeUndefined();
    expect(events.filter((e) => e.type === 'tool/call' || e.type === 'tool/decision').map((e) => e.type)).toEqual(['tool/call', 'tool/decision']);
  });

  it('sees a tool registered after it, and forgets one unregistered', async () => {
    const { host, search } = searchHost();
    const late = host.register(defineTool({ name: 'translate_text', description: 'Translate text between languages.', parameters: { text: { type: 'string', required: true } }, execute: () => '' }));
    expect(((await search({ query: 'translate' })).value as unknown as ToolSearchValue).matches.map((m) => m.name)).toEqual(['translate_text']);
    late.dispose();
    expect(((await search({ query: 'translate' })).value as unknown as ToolSearchValue).matches).toEqual([]);
  });

  it('keeps a result within its budget, counting what it leaves out', async () => {
    const host = createToolHost();
    host.register(syntheticCatalog(100));
    host.register(createToolSearchTool({ budget: { maxTokens: 1_000 } }));
    const value = (await host.call({ id: 'b', name: 'tool_search', args: { query: 'list', limit: 20 } })).value as unknown as ToolSearchValue;
    expect(value.matches.length).toBeGreaterThanOrEqual(1);
    expect(value.omitted).toBe(20 - value.matches.length);
    expect(value.omitted).toBeGreaterThan(0);
  });

  it('cuts a single declaration over the budget with a visible comment', async () => {
    const host = createToolHost();
    const huge = defineTool({
      name: 'huge',
      description: 'A tool with a huge schema.',
      parameters: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`field_${i}`, { type: 'string' as const, description: `Field ${i} ${'long words '.repeat(20)}` }])),
      execute: () => null,
    });
    host.register([huge, createToolSearchTool({ budget: { maxTokens: 1_000 } })]);
    const value = (await host.call({ id: 'h', name: 'tool_search', args: { query: 'huge' } })).value as unknown as ToolSearchValue;
    expect(value.matches).toHaveLength(1);
    expect(value.matches[0]!.declaration.length).toBeLessThan(4_200);
    expect(value.matches[0]!.declaration).toMatch(/\/\/ … cut: this declaration has \d+ characters, over the tool_search result budget\. The type check still knows the whole type\.\n$/);
  });

  it('names a bad budget option', () => {
    expect(() => createToolSearchTool({ budget: { maxTokens: 5 } })).toThrow(/createToolSearchTool: descriptionBudget\.maxTokens/);
  });
});

describe('when the host plugs in its own ranking (rank)', () => {
  function rankedHost(rank: ToolRanker) {
    const host = createToolHost();
    host.register([...fixtureTools]);
    createToolSearchTool({ host, rank });
    return (query: string, limit?: number) => host.call({ id: 'r', name: 'tool_search', args: { query, ...(limit ? { limit } : {}) } });
  }
  const names = (result: { value?: unknown }) => (result.value as unknown as ToolSearchValue).matches.map((m) => m.name);

  it('uses it, dropping names of tools that are not visible, repeats and what is past the limit', async () => {
    const asked: [string, number][] = [];
    const search = rankedHost(() => (query, limit) => {
      asked.push([query, limit]);
      return ['ping', 'no_such_tool', 'run_code', 'ping', 'read_file', 'get_weather', 'set_labels'];
    });
    expect(names(await search('anything at all', 3))).toEqual(['ping', 'read_file', 'get_weather']);
    expect(asked).toEqual([['anything at all', 3]]);
  });

  it('still puts an exact tool or callable name first', async () => {
    const search = rankedHost(() => () => ['ping', 'read_file']);
    expect(names(await search('github_search_issues', 2))).toEqual(['github.search-issues', 'ping']);
  });

  it('may answer asynchronously (an embedding service), and is built once per tool set', async () => {
    let builds = 0;
    const host = createToolHost();
    host.register([...fixtureTools]);
    createToolSearchTool({
      host,
      rank: (tools) => {
        builds++;
        const byLength = [...tools].sort((a, b) => a.name.length - b.name.length).map((t) => t.name);
        return async (_query, limit) => byLength.slice(0, limit);
      },
    });
    const search = async () => ((await host.call({ id: 'a', name: 'tool_search', args: { query: 'x', limit: 1 } })).value as unknown as ToolSearchValue).matches.map((m) => m.name);
    expect(await search()).toEqual(['ping']);
    expect(await search()).toEqual(['ping']);
    const b = defineTool({ name: 'b', description: 'B.', execute: () => null });
    host.register(b);
    expect(await search()).toEqual(['b']);
    expect(builds).toBe(2);
  });

  it('fails the call with the ranking\'s own message when it throws or returns no list', async () => {
    const failing = await rankedHost(() => () => {
      throw new Error('embedding service unreachable');
    })('x');
    expect(failing.isError).toBe(true);
    expect(failing.error?.message).toContain('the tool ranking failed: embedding service unreachable');
    const wrong = await rankedHost(() => (() => 'ping') as unknown as ToolRanking)('x');
    expect(wrong.error?.message).toContain('the tool ranking returned string, not a list of tool names');
  });

  it('refuses a rank option that is not a function, naming it', () => {
    expect(() => createToolSearchTool({ rank: 'bm25' as never })).toThrow(/createToolSearchTool: rank must be a function/);
  });

  it('defaults to defaultToolRanker, which hosts can wrap', async () => {
    const search = rankedHost((tools) => {
      const base = defaultToolRanker(tools);
      return async (query, limit) => [...(await base(query, limit))].reverse();
    });
    const plain = rankedHost(defaultToolRanker);
    expect(names(await search('github issues', 3))).toEqual([...names(await plain('github issues', 3))].reverse());
  });
});

describe('when createToolSearchTool is given a host', () => {
  it('registers tool_search there at once, so the model can call it without a register step', async () => {
    const host = createToolHost();
    host.register([...fixtureTools]);
    const search = createToolSearchTool({ host });
    expect(host.get('tool_search')).toBe(search);
    const result = await host.call({ id: 's1', name: 'tool_search', args: { query: 'github issues' } });
    expect(result.isError).toBe(false);
    expect((result.value as unknown as ToolSearchValue).matches[0]?.name).toBe('github.search-issues');
  });

  it('takes the usual host.register(createToolSearchTool({ host })) as the same registration, whose disposable unregisters it', () => {
    const host = createToolHost();
    const registration = host.register(createToolSearchTool({ host }));
    expect(host.tools().map((t) => t.name)).toEqual(['tool_search']);
    registration.dispose();
    expect(host.get('tool_search')).toBeUndefined();
  });

  it('still refuses another tool under the same name, and an ordinary tool registered twice', () => {
    const host = createToolHost();
    createToolSearchTool({ host });
    expect(() => host.register(createToolSearchTool())).toThrow(/tool_search.*already registered/);
    const plain = defineTool({ name: 'plain', description: 'Plain.', parameters: {}, execute: () => null });
    host.register(plain);
    expect(() => host.register(plain)).toThrow(/plain.*already registered/);
  });
});
