/**
 * Progressive discovery end to end: run_code in index mode over a large catalog (the two
 * reference MCP servers, started for real, padded with the synthetic catalog), tool_search
 * through the host's pipeline, and the type check, which always uses the full declarations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOVERY_TASK, runDiscoveryFigures, type DiscoverySize } from '../examples/discovery.js';
import { syntheticCatalog } from '../examples/tool-catalog.js';
import { createRunCodeTool, createToolSearchTool, type RunCodeRejected, type RunCodeTool } from '../runtime/index.js';
import { createToolHost } from '../tools/index.js';

describe('when a program calls a tool whose declaration the model never searched for', () => {
  const catalog = syntheticCatalog(200);
  const tools: RunCodeTool[] = [];
  const hostFor = (discovery: 'index' | 'full') => {
    const host = createToolHost();
    host.register(catalog);
    const runCode = createRunCodeTool({ host, discovery, warmup: false, descriptionBudget: { maxTokens: 1_000_000 } });
    tools.push(runCode);
    host.register([runCode, createToolSearchTool()]);
    return { host, runCode };
  };
  afterAll(async () => {
    await Promise.all(tools.map((t) => t.close()));
  });

  it('gets the same exact diagnostics in index mode as in full mode', async () => {
    const code = `const r = await tools.stripe_create_refund({ account: 7, payment: 'pi_1' });\nreturn r.idd;`;
    const outcomes = [];
    for (const discovery of ['index', 'full'] as const) {
      const { host, runCode } = hostFor(discovery);
      expect(runCode.description.includes('interface ToolArgsMap')).toBe(discovery === 'full');
      const result = await host.call({ id: `c-${discovery}`, name: 'run_code', args: { code } });
      expect(result.isError).toBe(false);
      outcomes.push(result.value as unknown as RunCodeRejected);
    }
    const [index, full] = outcomes;
    expect(index!.rejected).toBe('The program was not run: fix these type errors and call run_code again.');
    expect(index!.diagnostics).toEqual(full!.diagnostics);
    const text = index!.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`).join('\n');
    expect(text).toMatch(/^1:\d+ .*'number' is not assignable to type 'string'/m);
    expect(text).toMatch(/^2:\d+ .*Property 'idd' does not exist/m);
  });

  it('runs a correct program in index mode', async () => {
    const { host } = hostFor('index');
    const result = await host.call({ id: 'ok', name: 'run_code', args: { code: `const page = await tools.github_list_pull_requests({ repository: 'a/b', filter: { state: ['open'] } });\nreturn page.nextCursor;` } });
    expect(result.isError).toBe(false);
    expect((result.value as { result?: unknown }).result).toBeNull();
  });
});

describe('when the model searches, then runs, over the reference MCP servers padded to 200 and 500 tools', () => {
  let sizes: DiscoverySize[] = [];
  beforeAll(async () => {
    sizes = await runDiscoveryFigures();
  }, 120_000);

  it('measures the reference servers alone, then 200 and 500 tools', () => {
    expect(sizes.map((s) => s.tools)).toEqual([27, 200, 500]);
  });

  it('finds the declarations the program needs at every size, and the program runs against the real server', () => {
    for (const s of sizes) {
      for (const name of DISCOVERY_TASK.needs) expect(s.found, `${s.tools} tools`).toContain(name);
      expect(s.ran, `${s.tools} tools: ${JSON.stringify(s.result)}`).toBe(true);
      expect(s.result).toEqual({ 'notes.txt': 11, 'todo.txt': 15 });
    }
  });

  it('keeps 27 tools in full (under the auto threshold) and lists 200 and 500 as the index', () => {
    expect(sizes.map((s) => s.auto.mode)).toEqual(['full', 'index', 'index']);
    expect(sizes[0]!.auto.tokens).toBe(sizes[0]!.fullTokens);
  });

  it('costs far less in index mode at 200 and 500 tools, the search round trip included', () => {
    for (const s of sizes.slice(1)) {
      expect(s.indexTokens).toBeLessThan(s.fullTokens / 5);
      expect(s.indexSequenceTokens).toBeLessThan(s.fullSequenceTokens / 4);
    }
  });
});
