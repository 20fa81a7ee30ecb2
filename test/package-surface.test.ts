/**
 * The package root is the tool model: importing `ptc-runtime` must never load isolated-vm, MiniSearch,
 * child processes, the TypeScript compiler or an adapter's peer dependency. Checked on the
 * static import graph of the sources (static and dynamic imports alike).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s*['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/g;

function closure(entry: string): { files: Set<string>; bare: Map<string, string> } {
  const files = new Set<string>();
  const bare = new Map<string, string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8').replace(/^\s*import type .*$/gm, '').replace(/^\s*export type .*$/gm, '');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
      // Sources import their compiled names: x.js is x.ts, x.cjs is x.cts (a CommonJS re-export).
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts')));
      else if (!bare.has(spec)) bare.set(spec, relative(root, file));
    }
  };
  visit(join(root, entry));
  return { files, bare };
}

/** Each framework adapter's optional peer dependency, by the subpath that alone may load it. */
const ADAPTER_PEERS: Readonly<Record<string, readonly string[]>> = {
  'mcp/index.ts': ['@modelcontextprotocol/sdk'],
  'cordis/index.ts': ['cordis'],
  'otel/index.ts': ['@opentelemetry/api'],
  'ai-sdk/index.ts': ['ai'],
  'openai-agents/index.ts': ['@openai/agents-core'],
  'langchain/index.ts': ['@langchain/core'],
  'anthropic/index.ts': ['@anthropic-ai/sdk'],
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
    const exported = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports);
    const entries = exported.filter((e) => e.startsWith('./') && e !== './package.json' && e !== './otel').map((e) => `${e.slice(2)}/index.ts`);
    expect(entries).toEqual(expect.arrayContaining(['tools/index.ts', 'runtime/index.ts', 'mcp/index.ts', 'cordis/index.ts']));
    for (const entry of ['index.ts', ...entries]) {
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
    expect([...files].map((f) => relative(root, f)).filter((f) => f === join('tools', 'index.ts'))).toEqual([]);
  });

  it('the checker follows the CommonJS re-export the codegen loads TypeScript through', () => {
    const { bare } = closure('codegen/index.ts');
    expect(bare.has('typescript')).toBe(true);
    expect(bare.get('typescript')).toMatch(/typescript-module\.cts$/);
  });
});

describe('each subpath', () => {
  const entries = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports)
    .filter((key) => key !== '.' && key !== './package.json')
    .map((key) => `${key.slice(2)}/index.ts`);

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
