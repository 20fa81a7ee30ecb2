/**
 * `npm run demo`: runs every bundled program through run_code, as a model's call would go, and
 * prints per program the result and the context accounting (see context-accounting.ts): what
 * direct one-call-per-turn tool use would have put into the model's context against what this
 * run returned, in bytes and tokens. Programs where PTC saves little, or costs more, are shown
 * as they are.
 *
 * Then it prints the discovery figures (examples/discovery.ts): run_code's description with every
 * declaration against the one-line index plus tool_search, for the two reference MCP servers and
 * catalogs of 200 and 500 tools, and a search-then-run task in both modes.
 *
 * Flags: `--isolation process|isolate` (default process), `--json` (machine-readable report),
 * `--no-discovery` (skip the discovery figures, which start the reference MCP servers).
 * Approval asks from the example policy are answered "allow once" by the demo and reported.
 */
import { pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';
import type { ContextAccounting, Size } from './context-accounting.js';
import { createRunCodeTool, type RunCodeTool } from '../runtime/index.js';
import { errorText } from '../tools/index.js';
import { examplePrograms, runExampleProgram, type ExampleProgram } from './run-program.js';
import { formatDiscovery, runDiscoveryFigures } from './discovery.js';

/** One program's line in the report. */
export interface DemoEntry {
  readonly program: string;
  readonly question: string;
  readonly ok: boolean;
  readonly result: unknown;
  readonly logs: unknown;
  readonly approvals: string[];
  readonly accounting: ContextAccounting;
}

/** Runs the demo; returns the entries (printing is separate, for tests). */
export async function runDemo(options: { isolation?: 'process' | 'isolate' } = {}): Promise<DemoEntry[]> {
  const entries: DemoEntry[] = [];
  // One run_code tool (one warm runner) for every program; each program gets a fresh host.
  const tool = createRunCodeTool({ isolation: options.isolation ?? 'process' });
  try {
    for (const program of examplePrograms()) entries.push(await runOne(program, tool));
  } finally {
    await tool.close();
  }
  return entries;
}

async function runOne(program: ExampleProgram, tool: RunCodeTool): Promise<DemoEntry> {
  const approvals: string[] = [];
  const run = await runExampleProgram(program.source, {
    tool,
    approval: {
      request: async ({ execution, reason }) => {
        approvals.push(`${execution.toolName} ${JSON.stringify(execution.args)}: ${reason}`);
        return 'allow-once';
      },
    },
  });
  const value = run.result.value as { result?: unknown; logs?: unknown; rejected?: string; diagnostics?: unknown } | undefined;
  const question = program.source.split('\n').filter((l) => l.startsWith('//')).map((l) => l.slice(2).trim()).join(' ');
  return {
    program: program.name,
    question,
    ok: !run.result.isError && value !== undefined && value.rejected === undefined,
    result: run.result.isError ? run.result.error?.message : value?.rejected !== undefined ? value : value?.result,
    logs: value?.logs ?? [],
    approvals,
    accounting: run.accounting,
  };
}

const n = (x: number) => x.toLocaleString('en-US');
const size = (s: Size) => `${n(s.bytes)} B / ${n(s.tokens)} tok`;
const pct = (r: number) => (r >= 0 ? `${Math.round(r * 100)}% less` : `${Math.round(-r * 100)}% MORE`);

/** The human-readable report. */
export function formatDemo(entries: readonly DemoEntry[]): string {
  const out: string[] = [];
  for (const e of entries) {
    const a = e.accounting;
    const result = JSON.stringify(e.result) ?? 'undefined';
    out.push(`── ${e.program} ${'─'.repeat(Math.max(0, 70 - e.program.length))}`);
    out.push(`   ${e.question}`);
    out.push(`   ${e.ok ? 'result' : 'FAILED'}: ${result.length > 600 ? result.slice(0, 599) + '…' : result}`);
    if (Array.isArray(e.logs) && e.logs.length) out.push(`   logs: ${e.logs.join(' | ')}`);
    for (const ap of e.approvals) out.push(`   approved once (by the demo): ${ap}`);
    out.push(`   ${a.calls} tool call(s) in one run_code call; direct use: ${a.calls} model turn(s)`);
    out.push(`   model reads   direct ${size(a.directContent).padEnd(24)} PTC ${size(a.ptcContent).padEnd(24)} ${pct(a.contentReduction)}`);
    out.push(`   model writes  direct ${size(a.directArgs).padEnd(24)} PTC ${size(a.ptcProgram).padEnd(24)}`);
    out.push(`   total tokens  direct ${n(a.directContent.tokens + a.directArgs.tokens).padEnd(24)} PTC ${n(a.ptcContent.tokens + a.ptcProgram.tokens).padEnd(24)} ${pct(a.totalReduction)}`);
    out.push('');
  }
  out.push('program                 calls   direct tok   PTC tok   reads      reads+writes');
  for (const e of entries) {
    const a = e.accounting;
    out.push(
      `${e.program.padEnd(22)} ${String(a.calls).padStart(6)} ${n(a.directContent.tokens).padStart(12)} ${n(a.ptcContent.tokens).padStart(9)}   ${pct(a.contentReduction).padEnd(10)} ${pct(a.totalReduction)}`,
    );
  }
  out.push('');
  out.push('Tokens: gpt-tokenizer (o200k_base). "direct" = every call\'s rendered result, read once (re-reading history on later turns is not counted,');
  out.push('so direct use costs more than shown). "PTC" = run_code\'s returned content (result, logs, call counts, failed calls) and the program text.');
  return out.join('\n');
}

function invokedDirectly(): boolean {
  try {
    return !!process.argv[1] && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--isolation');
  const isolation = at >= 0 ? args[at + 1] : 'process';
  if (isolation !== 'process' && isolation !== 'isolate') {
    process.stderr.write(`demo: --isolation must be process or isolate, got ${String(isolation)}\n`);
    process.exit(2);
  }
  const withDiscovery = !args.includes('--no-discovery');
  Promise.all([runDemo({ isolation }), withDiscovery ? runDiscoveryFigures({ isolation }) : Promise.resolve([])]).then(
    ([entries, discovery]) => {
      const text = args.includes('--json') ? JSON.stringify({ programs: entries, discovery }, null, 2) : [formatDemo(entries), ...(withDiscovery ? ['', formatDiscovery(discovery)] : [])].join('\n');
      process.stdout.write(text + '\n');
      process.exitCode = entries.every((e) => e.ok) && discovery.every((d) => d.ran) ? 0 : 1;
    },
    (err: unknown) => {
      process.stderr.write(`demo: ${errorText(err)}\n`);
      process.exitCode = 1;
    },
  );
}
