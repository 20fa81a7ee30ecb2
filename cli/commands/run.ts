/**
 * `ptc run <script.ts>`: runs a program through run_code exactly as a model's call would go
 * (same normalization, type check, isolate, bridge, policy and events). stdout gets the
 * program's result as JSON, or with `--json` run_code's whole value or the failure as JSON, or
 * with `--model-view` exactly what a model reads of the call; console output, diagnostics and
 * progress go to stderr (cli/run-output.ts says what goes where).
 */
import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import type { PtcRunEndEvent } from '../../tools/index.js';
import type { SpillStore } from '../../runtime/index.js';
import { CliError, EXIT } from '../errors.js';
import { printRun } from '../run-output.js';
import { buildSessionHost, parseApprove, parseIsolation, parseOsSandbox, traceFlags, type ApproveMode, type CliIsolation } from '../session-host.js';
import { progressReporter } from '../progress-line.js';
import { reserveStdout } from '../stdout-guard.js';

interface RunFlags {
  tools?: string;
  trace?: string;
  traceKeyEnv?: string;
  approve: ApproveMode;
  isolation: CliIsolation;
  osSandbox: 'auto' | 'require' | 'off';
  mcp: string[];
  mcpConfig: string[];
  json?: boolean;
  modelView?: boolean;
  progress?: boolean;
  mcpVerbose?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];
const MAX_SCRIPT_BYTES = 1_000_000;
/** The id of the one run_code call (the trace's root). */
const RUN_CALL_ID = 'run-1';

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
    .option('--trace-key-env <NAME>', 'key the trace (HMAC-SHA256) with the secret in this environment variable: only its holders can verify or recompute it')
    .option('--approve <mode>', 'answer approval asks: yes (allow once each), no (deny: fail closed), prompt (ask on the terminal)', parseApprove, 'no')
    .option('--isolation <mode>', 'process (sandbox processes, runs of one agent share slots), strict (a sandbox process per run) or isolate (in this process, trusted code only)', parseIsolation, 'process')
    .option('--mcp <command line|url>', 'import the tools of an MCP server: a command to run, or an http(s) url ("name=command args" or "name=url" to name it); repeatable', collect, [])
    .option('--mcp-config <mcp.json>', 'import the servers of an mcp.json ({ "mcpServers": { name: { command, args, env } | { url, headers } } }); repeatable', collect, [])
    .option('--mcp-verbose', "show the MCP servers' stderr and log messages on stderr (escaped, lines cut at 4,000 characters)")
    .option('--os-sandbox <mode>', 'bubblewrap around sandbox processes (Linux): auto (where it works, else without and a warning), require (refuse to run without it), off', parseOsSandbox, 'auto')
    .option('--json', "print run_code's whole value (result, logs, calls, stats) instead of the result, or the rejection or failure as JSON")
    .option('--model-view', 'print exactly what a model reads of this run_code call (with --json: its content blocks)')
    .option('--no-progress', 'no progress line on stderr')
    .addHelpText(
      'after',
      '\nExit codes: 0 the program ran and returned, 1 it was rejected, threw, hit a limit or was denied, 2 usage or input error.\n' +
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
      ...traceFlags(flags),
      approve: flags.approve,
      isolation: flags.isolation,
      osSandbox: flags.osSandbox,
      mcp: flags.mcp,
      mcpConfig: flags.mcpConfig,
    },
    { onEvent: progress.onEvent, verbose: flags.mcpVerbose === true },
  );
  // How the run ended (thrown, limit and which): --json says so beside the error.
  let end: PtcRunEndEvent | undefined;
  session.host.onEvent((e) => {
    if (e.type === 'ptc/run-end' && e.callId === RUN_CALL_ID) end = e;
  });
  let result;
  try {
    result = await session.host.call({ id: RUN_CALL_ID, name: session.runCode.name, args: { code } }, { agent: { id: 'cli', name: 'ptc run' } });
  } finally {
    progress.stop();
    await session.close();
  }
  if (flags.trace) process.stderr.write(`ptc: trace written to ${flags.trace}\n`);
  const printed = printRun({ script, result, spills: session.runCode.spills as SpillStore /* ptc run's own in-memory store */, ...(end ? { end } : {}) }, { json: flags.json === true, modelView: flags.modelView === true });
  for (const line of printed.stderr) process.stderr.write(`${line}\n`);
  if (printed.stdout !== '') out.write(printed.stdout);
  if (printed.exitCode !== EXIT.ok) process.exitCode = printed.exitCode;
}
