/**
 * `ptc mcp serve`: the tools module's `run_code` (and with `--expose-tools` its tools) as an MCP
 * server on stdio. stdout belongs to the protocol, so everything else goes to stderr. There is
 * no terminal to ask on, so an `ask` fails closed, unless `--approve client` asks the client's
 * user through MCP elicitation (still denied when the client cannot ask) or the tools module
 * brings its own approval channel.
 */
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { McpMessageTooLargeError } from '../../mcp/errors.js';
import { CliError, EXIT } from '../errors.js';
import { buildSessionHost, parseIsolation } from '../session-host.js';
import { reserveStdout } from '../stdout-guard.js';

function parseServeApprove(value: string): 'no' | 'client' {
  if (value === 'no' || value === 'client') return value;
  throw new CliError(`--approve must be no or client, got ${JSON.stringify(value)}`);
}

const collect = (value: string, previous: string[]) => [...previous, value];

interface ServeFlags {
  tools?: string;
  exposeTools?: boolean;
  isolation: 'process' | 'isolate';
  trace?: string;
  mcp: string[];
  mcpConfig: string[];
  approve: 'no' | 'client';
}

/** Registers `ptc mcp`. */
export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description('Model Context Protocol: serve run_code to MCP clients.');
  mcp
    .command('serve')
    .description('Serve run_code (its description carries the typed declarations of the tools) over stdio.')
    .option('--tools <module>', 'tools module; default: the bundled example tools')
    .option('--expose-tools', 'also expose every tool directly, not only run_code')
    .option('--approve <mode>', "approval asks: no (deny: fail closed) or client (ask the client's user via MCP elicitation; denied if it cannot)", parseServeApprove, 'no')
    .option('--isolation <mode>', 'process (sandbox processes) or isolate (in this process, trusted code only)', parseIsolation, 'process')
    .option('--trace <file.jsonl>', 'write a hash-chained trace of every call (a new file)')
    .option('--mcp <command line>', 'import the tools of another stdio MCP server; repeatable', collect, [])
    .option('--mcp-config <mcp.json>', 'import the servers of an mcp.json; repeatable', collect, [])
    .addHelpText(
      'after',
      '\nClient config: { "mcpServers": { "ptc": { "command": "npx", "args": ["ptc", "mcp", "serve", "--tools", "tools.ts"] } } }\n' +
        'Exit codes: 0 the client disconnected, 1 the connection failed (a message over 10 MiB), 2 usage or input error.',
    )
    .action(async (flags: ServeFlags) => {
      // stdout is the protocol's alone: what the tools module prints goes to stderr.
      const stdout = reserveStdout();
      try {
        await serve(flags, stdout.out);
      } finally {
        stdout.release();
      }
    });
}

async function serve(flags: ServeFlags, out: Writable): Promise<void> {
  const { mcpApprovalChannel, serveMcpStdio } = await import('../../mcp/index.js');
  const approval = flags.approve === 'client' ? mcpApprovalChannel() : undefined;
  const session = await buildSessionHost(
    {
      ...(flags.tools ? { tools: flags.tools } : {}),
      ...(flags.trace ? { trace: flags.trace } : {}),
      approve: 'no',
      isolation: flags.isolation,
      mcp: flags.mcp,
      mcpConfig: flags.mcpConfig,
    },
    approval ? { approval } : {},
  );
  const names = session.host.tools().map((t) => t.name);
  process.stderr.write(`ptc mcp serve: run_code over ${names.length - 1} tool(s)${flags.exposeTools ? ', tools exposed' : ''}; waiting on stdio\n`);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    await serveMcpStdio({ host: session.host, runCodeName: session.runCode.name, exposeTools: flags.exposeTools === true, signal: stop.signal, stdout: out, ...(approval ? { approval } : {}) });
  } catch (err) {
    if (McpMessageTooLargeError.isInstance(err)) throw new CliError((err as Error).message, EXIT.failed);
    throw err;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await session.close();
  }
}
