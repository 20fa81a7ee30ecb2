/**
 * Discovery figures for the demo and the bench: what run_code's description costs with every
 * declaration (`full`) against the one-line index (`index`), for the two reference MCP servers
 * (server-everything and server-filesystem, started for real over stdio) alone and padded with
 * the synthetic catalog (examples/tool-catalog.ts) to 200 and 500 tools; and what a whole task
 * costs in each mode: with `full` the model reads the description and writes a program, with
 * `index` it reads the index, calls tool_search twice (once per tool it needs), reads the
 * declarations returned and then writes the same program. The program really runs, in index mode (checked against the full
 * declarations), against the real filesystem server. Tokens are gpt-tokenizer's (o200k_base).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer';
import { importMcpServers, type McpImport } from '../mcp/index.js';
import { createRunCodeTool, createToolSearchTool } from '../runtime/index.js';
import { createToolHost, type ContentBlock, type Tool, type ToolResult } from '../tools/index.js';
import { syntheticCatalog } from './tool-catalog.js';

/** Figures for one catalog size. */
export interface DiscoverySize {
  readonly tools: number;
  /** The direct tool schemas of the catalog (what one-call-per-turn use puts in context). */
  readonly schemaTokens: number;
  /** run_code's description with every declaration (no budget applied). */
  readonly fullTokens: number;
  /** run_code's description as the index, plus tool_search's own schema (the model sees both). */
  readonly indexTokens: number;
  /** What `discovery: 'auto'` (the default) chose, and its tokens. */
  readonly auto: { readonly mode: 'full' | 'index'; readonly tokens: number };
  /** The task in full mode: description + the run_code call. */
  readonly fullSequenceTokens: number;
  /** The task in index mode: index + the tool_search calls + their results + the run_code call. */
  readonly indexSequenceTokens: number;
  /** Tokens of the tool_search results the model read. */
  readonly searchResultTokens: number;
  /** The tools the searches returned, best first per search. */
  readonly found: readonly string[];
  /** Did the program run (in index mode) and return what the files hold? */
  readonly ran: boolean;
  readonly result: unknown;
}

/** What the model writes for the task, in both modes. */
export const DISCOVERY_TASK = {
  /** Two searches, one per tool the program needs (a model can make them in one turn). */
  searches: [
    { query: 'read text file', limit: 2 },
    { query: 'list directory', limit: 2 },
  ],
  /** The tools the program calls; each search result must have declared them. */
  needs: ['fs.read_text_file', 'fs.list_directory'],
  program: (root: string) => `const listing = await tools.fs_list_directory({ path: ${JSON.stringify(root)} });
const names = listing.content.split('\\n').filter((l) => l.startsWith('[FILE]')).map((l) => l.slice(7));
const sizes: Record<string, number> = {};
for (const name of names) {
  const file = await tools.fs_read_text_file({ path: ${JSON.stringify(root)} + '/' + name });
  sizes[name] = file.content.length;
}
return sizes;`,
};

const tokens = (text: string) => countTokens(text);
const textOf = (content: readonly ContentBlock[]) => content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
const call = (name: string, args: unknown) => JSON.stringify({ name, arguments: args });

/** Starts the reference servers on a scratch directory; `close()` stops them and removes it. */
export async function startReferenceServers(): Promise<{ imported: McpImport; root: string; close(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'ptc-discovery-'));
  await writeFile(join(root, 'notes.txt'), 'alpha\nbeta\n');
  await writeFile(join(root, 'todo.txt'), 'ship discovery\n');
  const bin = (name: string) => resolve('node_modules/.bin', name);
  const imported = await importMcpServers([
    { name: 'everything', command: bin('mcp-server-everything'), args: ['stdio'] },
    { name: 'fs', command: bin('mcp-server-filesystem'), args: [root] },
  ]);
  return {
    imported,
    root,
    async close() {
      await imported.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

function schemaText(tools: readonly Tool[]): string {
  const host = createToolHost();
  host.register([...tools]);
  return JSON.stringify(host.schemas());
}

/** Measures one catalog: the reference tools plus synthetic ones up to `size` tools. */
export async function measureDiscovery(reference: { imported: McpImport; root: string }, size: number, options: { isolation?: 'process' | 'isolate' } = {}): Promise<DiscoverySize> {
  const ref = reference.imported.tools;
  const catalog: Tool[] = [...ref, ...syntheticCatalog(Math.max(0, size - ref.length))];
  const describe = (discovery: 'full' | 'index' | 'auto', withSearch: boolean) => {
    const host = createToolHost();
    host.register(catalog);
    const tool = createRunCodeTool({ host, discovery, warmup: false, isolation: options.isolation ?? 'process', descriptionBudget: discovery === 'full' ? { maxTokens: 10_000_000 } : {} });
    host.register(tool);
    if (withSearch) host.register(createToolSearchTool());
    return { host, tool, text: tool.description };
  };
  const full = describe('full', false).text;
  const { host, tool: runCode, text: index } = describe('index', true);
  const searchSchema = JSON.stringify(host.schemas().find((s) => s.name === 'tool_search'));
  const auto = describe('auto', true);
  const autoMode = auto.text.includes('interface ToolArgsMap') ? 'full' : 'index';

  // The index-mode task, for real: search, then run the program on the same host.
  const searches: ToolResult[] = [];
  for (const [i, args] of DISCOVERY_TASK.searches.entries()) searches.push(await host.call({ id: `search-${i}`, name: 'tool_search', args }));
  const program = DISCOVERY_TASK.program(reference.root);
  const run = await host.call({ id: 'run-1', name: runCode.name, args: { code: program } }, { agent: { id: 'discovery-demo' } }).finally(() => runCode.close());
  const value = run.value as { result?: unknown } | undefined;
  const searchResultTokens = searches.reduce((sum, r) => sum + tokens(textOf(r.content)), 0);
  const searchCallTokens = DISCOVERY_TASK.searches.reduce((sum, args) => sum + tokens(call('tool_search', args)), 0);
  const runCall = call('run_code', { code: program });
  const indexTokens = tokens(index) + tokens(searchSchema);
  return {
    tools: catalog.length,
    schemaTokens: tokens(schemaText(catalog)),
    fullTokens: tokens(full),
    indexTokens,
    auto: { mode: autoMode, tokens: tokens(auto.text) + (autoMode === 'index' ? tokens(searchSchema) : 0) },
    fullSequenceTokens: tokens(full) + tokens(runCall),
    indexSequenceTokens: indexTokens + searchCallTokens + searchResultTokens + tokens(runCall),
    searchResultTokens,
    found: searches.flatMap((r) => ((r.value as { matches?: { name: string }[] } | undefined)?.matches ?? []).map((m) => m.name)),
    ran: !run.isError && value !== undefined && !('rejected' in value),
    result: run.isError ? run.error?.message : (value?.result ?? value),
  };
}

/** Runs every size against one pair of reference servers. */
export async function runDiscoveryFigures(options: { sizes?: readonly number[]; isolation?: 'process' | 'isolate' } = {}): Promise<DiscoverySize[]> {
  const reference = await startReferenceServers();
  try {
    const out: DiscoverySize[] = [];
    for (const size of options.sizes ?? [reference.imported.tools.length, 200, 500]) out.push(await measureDiscovery(reference, size, options));
    return out;
  } finally {
    await reference.close();
  }
}

const n = (x: number) => x.toLocaleString('en-US');
const less = (a: number, b: number) => (b === 0 ? '' : a <= b ? `${Math.round((1 - a / b) * 100)}% less` : `${Math.round((a / b - 1) * 100)}% MORE`);

/** The report's lines. */
export function formatDiscovery(sizes: readonly DiscoverySize[]): string {
  const out = [
    'Discovery: run_code\'s description with every declaration (full) against the one-line index + tool_search (index)',
    'tools   direct schemas   full desc   index desc          auto (default)     task: full   task: index (2 searches + results + run)',
  ];
  for (const s of sizes) {
    out.push(
      `${String(s.tools).padStart(5)} ${n(s.schemaTokens).padStart(16)} ${n(s.fullTokens).padStart(11)} ${n(s.indexTokens).padStart(12)} ${less(s.indexTokens, s.fullTokens).padEnd(9)} ${`${s.auto.mode} ${n(s.auto.tokens)}`.padEnd(18)} ${n(s.fullSequenceTokens).padStart(10)}   ${n(s.indexSequenceTokens).padStart(6)} ${less(s.indexSequenceTokens, s.fullSequenceTokens)}`,
    );
  }
  for (const s of sizes) out.push(`  ${s.tools} tools: tool_search found ${s.found.join(', ') || 'nothing'} (${n(s.searchResultTokens)} tok); the program ${s.ran ? `ran in index mode: ${JSON.stringify(s.result)}` : `FAILED: ${JSON.stringify(s.result)}`}`);
  out.push('Tokens: gpt-tokenizer (o200k_base). "full desc" ignores the description budget (the default caps it at 25,000 estimated tokens);');
  out.push('"index desc" includes tool_search\'s own schema. The catalog is the two reference MCP servers, padded with examples/tool-catalog.ts.');
  return out.join('\n');
}
