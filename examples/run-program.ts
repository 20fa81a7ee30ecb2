/**
 * Runs one model-style program through `run_code` on a fresh example host, exactly as a model's
 * call would go: the example tools and policy, an agent, the host's events recorded. Used by the
 * demo and the tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRunCodeTool, type RunCodeOptions, type RunCodeTool } from '../runtime/index.js';
import type { ApprovalChannel, ToolEvent, ToolResult } from '../tools/index.js';
import { accountRun, type ContextAccounting } from './context-accounting.js';
import { createHost } from './tools.js';

/** A program shipped in `examples/programs`. */
export interface ExampleProgram {
  readonly name: string;
  readonly path: string;
  readonly source: string;
}

/** Where the program sources are, from the source tree or from `dist/examples`. */
export function programsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, 'programs'), resolve(here, '../../examples/programs')]) {
    try {
      if (readdirSync(candidate).some((f) => f.endsWith('.ts'))) return candidate;
    } catch {
      /* next */
    }
  }
  throw new Error(`examples/programs not found next to ${here}`);
}

/** The bundled programs, in a fixed order (the headline first). */
export function examplePrograms(): ExampleProgram[] {
  const dir = programsDir();
  const order = ['over-budget', 'search-summarize', 'guard-denial', 'flag-large-expenses', 'manager-lookup'];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ name: basename(f, '.ts'), path: join(dir, f), source: readFileSync(join(dir, f), 'utf8') }))
    .sort((a, b) => (order.indexOf(a.name) + 1 || 99) - (order.indexOf(b.name) + 1 || 99) || a.name.localeCompare(b.name));
}

/** What one run produced. */
export interface ProgramRun {
  readonly result: ToolResult;
  readonly events: readonly ToolEvent[];
  readonly accounting: ContextAccounting;
}

/** Options of {@link runExampleProgram}. */
export interface RunExampleOptions {
  /** Approval channel for the example policy's `ask` (default: none, so asks fail closed). */
  readonly approval?: ApprovalChannel;
  /** Options of the run_code tool created for this run (ignored when `tool` is given). */
  readonly runCode?: RunCodeOptions;
  /** A run_code tool to reuse (its runner stays warm across programs); the caller closes it. */
  readonly tool?: RunCodeTool;
}

/** Runs `source` through run_code on a fresh example host. */
export async function runExampleProgram(source: string, options: RunExampleOptions = {}): Promise<ProgramRun> {
  const events: ToolEvent[] = [];
  const host = createHost({ onEvent: (e) => events.push(e), ...(options.approval ? { approval: options.approval } : {}) });
  const runCode = options.tool ?? createRunCodeTool({ ...options.runCode, host });
  host.register(runCode);
  try {
    const result = await host.call({ id: 'run-1', name: runCode.name, args: { code: source } }, { agent: { id: 'demo' } });
    return { result, events, accounting: accountRun(events, 'run-1', source) };
  } finally {
    if (!options.tool) await runCode.close();
  }
}
