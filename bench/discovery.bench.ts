/**
 * Discovery for large catalogs (docs/run-code.md "Large catalogs").
 * - Tokens (gpt-tokenizer, o200k_base): run_code's description with every declaration against
 *   the one-line index plus tool_search's schema, for the two reference MCP servers (started
 *   for real) and catalogs padded to 200 and 500 tools, and a search-then-run task in each mode
 *   (examples/discovery.ts). Token counts do not depend on load.
 * - Time, 500 tools: building tool_search's index (what a change of the tool set costs), one
 *   search (and the declarations of its matches), building the index description, against
 *   `generateToolTypes` of the same tools (what run_code already pays for its type check when
 *   the set changes). Target: the index rebuild at most half of the generation (both are paid once
 *   per change of the tool set, on the first search or run after it).
 */
import { Bench } from 'tinybench';
import { formatDiscovery, runDiscoveryFigures } from '../examples/discovery.js';
import { syntheticCatalog } from '../examples/tool-catalog.js';
import { generateToolTypes } from '../codegen/index.js';
import { createToolSearchTool, DEFAULT_DESCRIPTION_BUDGET, DEFAULT_RUN_LIMITS } from '../runtime/index.js';
import { ToolSearchIndex } from '../runtime/discovery/index.js';
import { runCodeDescription } from '../runtime/run-code/description.js';
import { createToolHost } from '../tools/index.js';

const figures = await runDiscoveryFigures();
console.log(formatDiscovery(figures));

const tools = syntheticCatalog(500);
const types = generateToolTypes(tools);
const host = createToolHost();
host.register([...tools, createToolSearchTool()]);
let q = 0;
const queries = ['open pull requests', 'refund a payment', 'restart deployment', 'send an sms', 'jira sprint', 'export invoices csv'];

const bench = new Bench({ time: 3000, warmup: true, warmupIterations: 3, retainSamples: true });
bench
  .add('generateToolTypes x500 (baseline: the type check\'s cost of a change)', () => {
    generateToolTypes(tools);
  })
  .add('ToolSearchIndex build x500 (tool_search\'s cost of a change)', () => {
    new ToolSearchIndex(tools);
  })
  .add('tool_search call through host.call (warm index, limit 5)', async () => {
    await host.call({ id: `q${q}`, name: 'tool_search', args: { query: queries[q++ % queries.length], limit: 5 } });
  })
  .add('index description x500', () => {
    runCodeDescription({ limits: DEFAULT_RUN_LIMITS, discovery: 'index', budget: DEFAULT_DESCRIPTION_BUDGET, catalog: { types, tools }, searchTool: 'tool_search' });
  });
await bench.run();

const p = (samples: readonly number[], quantile: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? Number.NaN;
};
const rows = bench.tasks.map((task) => {
  const samples = (task.result as { latency?: { samples?: number[] } } | undefined)?.latency?.samples ?? [];
  return { task: task.name, 'p50 ms': p(samples, 0.5).toFixed(2), 'p95 ms': p(samples, 0.95).toFixed(2), n: samples.length };
});
console.log('\nTime, 500 synthetic tools');
console.table(rows);
const gen = Number(rows[0]!['p50 ms']);
const build = Number(rows[1]!['p50 ms']);
console.log(`index rebuild ${build.toFixed(1)} ms = ${((build / gen) * 100).toFixed(1)}% of generateToolTypes (target <= 50%): ${build <= gen / 2 ? 'met' : 'NOT met'}`);
