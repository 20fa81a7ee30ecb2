/**
 * `ptc run <script.ts>`: runs a program through run_code exactly as a model's call would go
 * (same normalization, type check, isolate, bridge, policy and events). stdout gets the
 * program's result as JSON (or, with `--json`, run_code's whole value); its console output,
 * diagnostics and progress go to stderr.
 */
import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import type { RunCodeValue } from '../../runtime/index.js';
import { visibleText } from '../../tools/index.js';
import { CliError, EXIT } from '../errors.js';
import { printRun, wholeValue } from '../run-output.js';
import { buildSessionHost, parseApprove, parseIsolation, parseOsSandbox, type ApproveMode } from '../session-host.js';
import { progressReporter } from '../progress-line.js';
import { reserveStdout } from '../stdout-guard.js';

interface RunFlags {
  tools?: string;
  trace?: string;
  approve: ApproveMode;
  isolation: 'process' | 'isolate';
  osSandbox: 'auto' | 'require' | 'off';
  mcp: string[];
  mcpConfig: string[];
  json?: boolean;
  progress?: boolean;
  mcpVerbose?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];
const MAX_SCRIPT_BYTES = 1_000_000;

function readScript(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  if (Buffer.byteLength(text) > MAX_SCRIPT_BYTES) throw new CliError(`${path} is larger than ${MAX_SCRIPT_BYTES} bytes`);
  return text;
}

/** Registers `ptc run`. */
export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Run a program through run_code, as a model would, and print its result (stdout) and logs (stderr).')
    .argument('<script>', 'the program: TypeScript, the body of an async function (`return` gives the result)')
    .option('--tools <module>', 'tools module (.ts/.js exporting createHost, a host, a tools array, or tools made with defineTool); default: the bundled example tools')
    .option('--trace <file.jsonl>', 'write a hash-chained trace of every event (a new file)')
    .option('--approve <mode>', 'answer approval asks: yes (allow once each), no (deny: fail closed), prompt (ask on the terminal)', parseApprove, 'no')
    .option('--isolation <mode>', 'process (sandbox processes) or isolate (in this process, trusted code only)', parseIsolation, 'process')
    .option('--mcp <command line|url>', 'import the tools of an MCP server: a command to run, or an http(s) url ("name=command args" or "name=url" to name it); repeatable', collect, [])
    .option('--mcp-config <mcp.json>', 'import the servers of an mcp.json ({ "mcpServers": { name: { command, args, env } | { url, headers } } }); repeatable', collect, [])
    .option('--mcp-verbose', "show the MCP servers' stderr and log messages on stderr (escaped, lines cut at 4,000 characters)")
    .option('--os-sandbox <mode>', 'bubblewrap around sandbox processes (Linux): auto (where it works, else without and a warning), require (refuse to run without it), off', parseOsSandbox, 'auto')
    .option('--json', "print run_code's whole value (result, logs, calls, stats) instead of the result")
    .option('--no-progress', 'no progress line on stderr')
    .addHelpText(
      'after',
      '\nExit codes: 0 the program ran and returned, 1 it was rejected, threw or hit a limit, 2 usage or input error.\n' +
        'Example: ptc run examples/programs/over-budget.ts --trace run.jsonl && ptc trace show run.jsonl',
    )
    .action(async (script: string, flags: RunFlags) => {
      const code = readScript(script);
      // The result is the only thing on stdout (`ptc run x.ts | jq`), whatever the tools print.
      const stdout = reserveStdout();
      try {
        await runScript(script, code, flags, stdout.out);
      } finally {
        stdout.release();
      }
    });
}

async function runScript(script: string, code: string, flags: RunFlags, out: Writable): Promise<void> {
  const progress = progressReporter(flags.progress !== false && process.stderr.isTTY === true);
  const session = await buildSessionHost(
    {
      ...(flags.tools ? { tools: flags.tools } : {}),
      ...(flags.trace ? { trace: flags.trace } : {}),
      approve: flags.approve,
      isolation: flags.isolation,
      osSandbox: flags.osSandbox,
      mcp: flags.mcp,
      mcpConfig: flags.mcpConfig,
    },
    { onEvent: progress.onEvent, verbose: flags.mcpVerbose === true },
  );
  let result;
  try {
    result = await session.host.call({ id: 'run-1', name: session.runCode.name, args: { code } }, { agent: { id: 'cli', name: 'ptc run' } });
  } finally {
    progress.stop();
    await session.close();
  }
  if (flags.trace) process.stderr.write(`ptc: trace written to ${flags.trace}\n`);
  const call = { script, result, spills: session.runCode.spills };
  const printed = flags.json && !result.isError && !('rejected' in (result.value as object)) ? { ...printRun(call), stdout: `${visibleText(JSON.stringify(wholeValue(result.value as unknown as RunCodeValue, call.spills), null, 2), { newlines: 'keep' })}\n` } : printRun(call);
  for (const line of printed.stderr) process.stderr.write(`${line}\n`);
  if (printed.stdout !== '') out.write(printed.stdout);
  if (printed.exitCode !== EXIT.ok) process.exitCode = printed.exitCode;
}
