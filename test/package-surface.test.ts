/**
 * The package's shape, checked on the static import graph of the sources (static and dynamic
 * imports alike; see test/support/import-graph.ts).
 *
 * - What each entry loads: the package root is the tool model and never loads isolated-vm,
 *   MiniSearch, child processes, the TypeScript compiler or an adapter's peer dependency; each
 *   subpath loads its own peer only; the sandbox worker loads isolated-vm alone.
 * - The layer rules (LAYERS below): imports point down, and into another folder only through its
 *   `index.ts`, or one of the named leaf modules (LEAF_MODULES) from a graph that must stay small.
 * - No import cycle in tools/, type imports included.
 */
import { describe, expect, it } from 'vitest';
import { closure as graphOf, filesUnder, importCycles, importsOf, isTestFile, root } from './support/import-graph.js';
import { packageSubpaths } from './support/package-exports.js';

/** What an entry loads when it runs (type-only imports are erased from the build). */
const closure = (entry: string) => graphOf(entry, { types: false });

/** Each framework adapter's optional peer dependency, by the subpath that alone may load it. */
const ADAPTER_PEERS: Readonly<Record<string, readonly string[]>> = {
  'mcp/index.ts': ['@modelcontextprotocol/sdk'],
  'cordis/index.ts': ['cordis'],
  'otel/index.ts': ['@opentelemetry/api'],
  'ai-sdk/index.ts': ['ai'],
  'openai-agents/index.ts': ['@openai/agents-core'],
  'langchain/index.ts': ['@langchain/core'],
  'anthropic/index.ts': ['@anthropic-ai/sdk'],
  'redis/index.ts': ['ioredis'],
};
/** Peers no entry may load: the Agents SDK's umbrella package, the OpenAI client (loaded only through agents-core), LangGraph and langchain (test-only). */
const FUTURE_PEERS = ['@openai/agents', 'openai', '@langchain/langgraph', 'langchain'];
const PEERS = [...Object.values(ADAPTER_PEERS).flat(), ...FUTURE_PEERS];

const FORBIDDEN = ['isolated-vm', 'node:child_process', 'child_process', 'typescript', 'ts-morph', 'esbuild', 'minisearch', 'playwright-core', ...PEERS];
const loads = (bare: Map<string, string>, name: string) => [...bare.keys()].some((spec) => spec === name || spec.startsWith(`${name}/`));

describe('the package root', () => {
  it('never imports isolated-vm, child processes, the compiler or adapter peer dependencies', () => {
    const { files, bare } = closure('index.ts');
    expect(files.size).toBeGreaterThan(5);
    const offending = FORBIDDEN.filter((name) => [...bare.keys()].some((spec) => spec === name || spec.startsWith(`${name}/`)));
    expect(offending.map((name) => `${name} (from ${[...bare].find(([s]) => s.startsWith(name))?.[1]})`)).toEqual([]);
  });

  it('only ptc-runtime/otel loads OpenTelemetry, and it loads nothing else outside the package', () => {
    const entries = packageSubpaths().map((s) => s.source).filter((source) => source !== 'otel/index.ts');
    expect(entries).toEqual(expect.arrayContaining(['index.ts', 'runtime/index.ts', 'mcp/index.ts', 'cordis/index.ts']));
    for (const entry of entries) {
      expect([...closure(entry).bare.keys()].filter((spec) => spec.startsWith('@opentelemetry/')), entry).toEqual([]);
    }
    expect([...closure('otel/index.ts').bare.keys()].filter((spec) => !spec.startsWith('node:'))).toEqual(['@opentelemetry/api']);
  });

  it('the checker itself sees forbidden imports (runtime does import isolated-vm, ai-sdk ai, langchain @langchain/core, anthropic @anthropic-ai/sdk)', () => {
    expect(loads(closure('ai-sdk/index.ts').bare, 'ai')).toBe(true);
    expect(loads(closure('langchain/index.ts').bare, '@langchain/core')).toBe(true);
    expect(loads(closure('anthropic/index.ts').bare, '@anthropic-ai/sdk')).toBe(true);
    const { bare } = closure('runtime/index.ts');
    expect([...bare.keys()].some((spec) => FORBIDDEN.includes(spec))).toBe(true);
  });

  it('the sandbox worker loads isolated-vm and nothing of the tools package, the compiler or zod', () => {
    // Every sandbox process imports this graph: ~0.2 s and ~15 MB of RSS more when zod came along.
    const { files, bare } = closure('runtime/sandbox-process/worker.ts');
    expect([...bare.keys()].filter((spec) => !spec.startsWith('node:'))).toEqual(['isolated-vm']);
    expect([...files].filter((f) => f === 'tools/index.ts' || f === 'bridge/index.ts')).toEqual([]);
  });

  it('the checker follows the CommonJS re-export the codegen loads TypeScript through', () => {
    const { bare } = closure('codegen/index.ts');
    expect(bare.has('typescript')).toBe(true);
    expect(bare.get('typescript')).toMatch(/typescript-module\.cts$/);
  });
});

describe('each subpath', () => {
  const entries = [...new Set(packageSubpaths().map((s) => s.source))].filter((source) => source !== 'index.ts');

  it('is in the list of entries checked here', () => {
    expect(entries).toEqual(expect.arrayContaining(Object.keys(ADAPTER_PEERS)));
  });

  it.each(Object.entries(ADAPTER_PEERS))('%s does load its own peer (the check sees it)', (entry, own) => {
    const { bare } = closure(entry);
    expect(own.filter((peer) => !loads(bare, peer))).toEqual([]);
  });

  it.each(entries)('%s loads no adapter peer dependency but its own', (entry) => {
    const { bare } = closure(entry);
    const own = ADAPTER_PEERS[entry] ?? [];
    expect(PEERS.filter((peer) => !own.includes(peer) && loads(bare, peer))).toEqual([]);
  });
});

/**
 * The layers, lowest first. A file in one folder may import another folder only when that folder
 * ranks lower: `tools <- codegen <- bridge <- runtime`, then the integrations, which share a rank
 * so none imports another (each is its own optional peer's subpath), then the CLI on top: it
 * serves MCP, loads cordis plugins and reaches every layer below. Type imports count: a type
 * that points up is the same knot as a value.
 */
const LAYERS: Readonly<Record<string, number>> = {
  tools: 0,
  codegen: 1,
  bridge: 2,
  runtime: 3,
  mcp: 4,
  cordis: 4,
  otel: 4,
  'ai-sdk': 4,
  'openai-agents': 4,
  langchain: 4,
  anthropic: 4,
  redis: 4,
  cli: 5,
};

/**
 * Modules another folder may import directly instead of the folder's `index.ts`: each imports
 * nothing at all, so a graph that must stay small can take it without the index's dependencies
 * (tools/index.ts loads zod, ~0.2 s and ~15 MB in every sandbox process; bridge/index.ts loads
 * tools/index.ts). Only the files of those small graphs (LIGHT_GRAPHS) may use them; every other
 * importer goes through the index, where the same names are exported.
 */
const LEAF_MODULES: Readonly<Record<string, string>> = {
  'tools/errors.ts': 'PtcError, InvalidOptionError and errorText: the worker frames its protocol errors, otel validates its options',
  'tools/abort-subscription.ts': "subscribeAbort: the isolate run stops on its caller's abort inside the worker",
  'bridge/limit-failure.ts': 'the one table of limit names and messages: the isolate run and the wire name a limit inside the worker',
  'bridge/late-calls.ts': 'the cap on late calls recorded one by one: the worker relays and the wire reads late calls under it',
  'codegen/sleep.ts': "sleep's reserved call name and caps: the isolate run passes them to the guest and counts tool calls without sleeps inside the worker",
};

/** The entries whose graphs must stay small, and what else they may load (checked above). */
const LIGHT_GRAPHS: Readonly<Record<string, string>> = {
  'runtime/sandbox-process/worker.ts': 'isolated-vm only: every sandbox process loads it',
  'otel/index.ts': '@opentelemetry/api only',
};

/**
 * Imports outside the layers, by importing file and target, each with its reason. Test files
 * may also import test-only files of any folder (`test-support.ts`, `fixtures/`), `test/support/`
 * and the bundled examples (the big catalog in examples/tool-catalog.ts is test data).
 */
const NAMED_EXCEPTIONS: Readonly<Record<string, string>> = {
  'cli/session-host.ts -> examples/tools.ts': 'without --tools, the CLI serves the bundled example tools (loaded on demand)',
  'mcp/import.ts -> codegen/callable-name.ts': "the import names tools as programs call them, without codegen/index.ts, which loads the TypeScript compiler (seconds of every import's start-up)",
  'mcp/import.ts -> codegen/json-schema.ts': 'the JSON Schema converter alone, for the same reason',
};

const folderOf = (path: string) => path.split('/')[0]!;

/** Every import that breaks a rule, as `file -> target: why`. */
function layerViolations(): string[] {
  const light = new Set(Object.keys(LIGHT_GRAPHS).flatMap((entry) => [...closure(entry).files]));
  const out: string[] = [];
  for (const folder of Object.keys(LAYERS)) {
    for (const file of filesUnder(folder)) {
      for (const { target } of importsOf(file)) {
        if (target === undefined || folderOf(target) === folder) continue;
        const to = folderOf(target);
        const edge = `${file} -> ${target}`;
        if (NAMED_EXCEPTIONS[edge] !== undefined) continue;
        if (isTestFile(file) && (isTestFile(target) || to === 'examples' || target.startsWith('test/support/'))) continue;
        if (LAYERS[to] === undefined) out.push(`${edge}: ${to}/ is not a layer`);
        else if (LAYERS[to]! >= LAYERS[folder]!) out.push(`${edge}: ${folder}/ may not import ${to}/ (imports point down: ${layerOrder()})`);
        else if (target === `${to}/index.ts`) continue;
        else if (LEAF_MODULES[target] === undefined) out.push(`${edge}: import ${to}/index.ts instead`);
        else if (!light.has(file)) out.push(`${edge}: ${target} is a leaf module for the small graphs only (${Object.keys(LIGHT_GRAPHS).join(', ')}); import ${to}/index.ts instead`);
      }
    }
  }
  return out;
}

function layerOrder(): string {
  const ranks = [...new Set(Object.values(LAYERS))].sort((a, b) => a - b);
  return ranks.map((rank) => Object.keys(LAYERS).filter((f) => LAYERS[f] === rank).join(' | ')).join(' <- ');
}

describe('the layer rules', () => {
  it('every import points to a lower layer, through its index.ts or a named leaf module', () => {
    expect(layerViolations()).toEqual([]);
  });

  it('covers every folder with code in the package', () => {
    const built = [...new Set(packageSubpaths().map((s) => folderOf(s.source)).filter((f) => !f.endsWith('.ts')))];
    expect(Object.keys(LAYERS)).toEqual(expect.arrayContaining([...built, 'cli']));
  });

  it('each leaf module imports nothing, and each is used by a small graph', () => {
    for (const leaf of Object.keys(LEAF_MODULES)) expect(importsOf(leaf), leaf).toEqual([]);
    const light = new Set(Object.keys(LIGHT_GRAPHS).flatMap((entry) => [...closure(entry).files]));
    expect(Object.keys(LEAF_MODULES).filter((leaf) => !light.has(leaf))).toEqual([]);
  });

  it('each named exception is an import that exists', () => {
    const stale = Object.keys(NAMED_EXCEPTIONS).filter((edge) => {
      const [file, target] = edge.split(' -> ') as [string, string];
      return !importsOf(file).some((e) => e.target === target);
    });
    expect(stale).toEqual([]);
  });
});

describe('tools/', () => {
  it('has no import cycle, type imports included', () => {
    const cycles = importCycles(filesUnder('tools').filter((f) => !isTestFile(f)));
    expect(cycles.map((c) => c.join(' <-> '))).toEqual([]);
  });

  it('the cycle check sees a cycle (runtime/run-code/render.ts and output-cap.ts import each other)', () => {
    expect(importCycles(['runtime/run-code/render.ts', 'runtime/run-code/output-cap.ts'])).toHaveLength(1);
  });
});
