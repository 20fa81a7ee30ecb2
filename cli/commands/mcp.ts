/**
 * `ptc mcp serve`: the tools module's `run_code` (and with `--expose-tools` its tools) as an MCP
 * server on stdio, or over Streamable HTTP with `--http [host:]port`. On stdio, stdout belongs
 * to the protocol, so everything else goes to stderr. There is no terminal to ask on, so an
 * `ask` fails closed, unless `--approve client` asks the client's user through MCP elicitation
 * (still denied when the client cannot ask; over HTTP it needs sessions, so it makes the server
 * stateful) or the tools module brings its own approval channel.
 *
 * `--http` listens on loopback unless a host is given; another host needs `--auth-token-env
 * NAME` (the token is read from that environment variable, never from the command line, where
 * `ps` would show it).
 */
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { InvalidOptionError, LOG_LEVELS, visibleText, type LogLevel } from '../../tools/index.js';
import { CliError, EXIT } from '../errors.js';
import { buildSessionHost, parseIsolation, parseOsSandbox, traceFlags, type SessionFlags, type CliIsolation } from '../session-host.js';
import { openRedisStoresFromEnv } from '../redis-store-spec.js';
import { agentTokensFromEnv } from '../agent-tokens.js';
import { reserveStdout } from '../stdout-guard.js';
import type { RedisStores } from '../../redis/index.js';
import { durableSettings, type DurableSettings } from '../store-spec.js';
import { registerMcpLogin } from './mcp-login.js';

function parseLogLevel(value: string): LogLevel {
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new CliError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(visibleText(value).slice(0, 60))}`);
}

function parseServeApprove(value: string): 'no' | 'client' {
  if (value === 'no' || value === 'client') return value;
  throw new CliError(`--approve must be no or client, got ${JSON.stringify(value)}`);
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Parses `--http [host:]port` (`8080`, `127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`; port 0 picks a free one). */
export function parseHttpAddress(value: string): { hostname: string; port: number } {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65_535) throw new CliError(`--http takes [host:]port (8080, 127.0.0.1:8080, 0.0.0.0:8080), got ${JSON.stringify(visibleText(value).slice(0, 100))}`);
  return { hostname: (match[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1'), port };
}

interface ServeFlags {
  http?: { hostname: string; port: number };
  authTokenEnv?: string;
  agentTokensEnv?: string;
  allowedHost: string[];
  tools?: string;
  exposeTools?: boolean;
  isolation: CliIsolation;
  osSandbox: 'auto' | 'require' | 'off';
  trace?: string;
  traceKeyEnv?: string;
  mcp: string[];
  mcpConfig: string[];
  approve: 'no' | 'client';
  mcpVerbose?: boolean;
  store?: string;
  durableKeyEnv?: string;
  durablePreviousKeyEnv?: string;
  storeEnv?: string;
  logLevel?: LogLevel;
}

/** Registers `ptc mcp`. */
export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description('Model Context Protocol: serve run_code to MCP clients; log in to OAuth servers to import.');
  registerMcpLogin(mcp);
  mcp
    .command('serve')
    .description('Serve run_code (its description carries the typed declarations of the tools) over stdio, or over Streamable HTTP with --http.')
    .option('--http <[host:]port>', 'serve over Streamable HTTP instead of stdio (default host 127.0.0.1; port 0 picks a free one)', parseHttpAddress)
    .option('--auth-token-env <NAME>', 'require "Authorization: Bearer <token>", the token read from this environment variable (required off loopback)')
    .option('--agent-tokens-env <NAME>', 'with --http: one bearer token per agent, from a JSON object {"<agent>": "<token>"} in this environment variable; a request runs for the agent whose token it carries (not with --auth-token-env)')
    .option('--allowed-host <name>', 'with --http: also accept this Host header (a public name behind a proxy: mcp.example.com); repeatable', collect, [])
    .option('--tools <module>', 'tools module; default: the bundled example tools')
    .option('--expose-tools', 'also expose every tool directly, not only run_code')
    .option('--approve <mode>', "approval asks: no (deny: fail closed) or client (ask the client's user via MCP elicitation; denied if it cannot)", parseServeApprove, 'no')
    .option('--isolation <mode>', 'process (sandbox processes, runs of one agent share slots), strict (a sandbox process per run) or isolate (in this process, trusted code only)', parseIsolation, 'process')
    .option('--os-sandbox <mode>', 'bubblewrap around sandbox processes (Linux): auto (where it works, else without and a warning), require (refuse to run without it), off', parseOsSandbox, 'auto')
    .option('--trace <file.jsonl>', 'write a hash-chained trace of every call (a new file)')
    .option('--trace-key-env <NAME>', 'key the trace (HMAC-SHA256) with the secret in this environment variable')
    .option('--mcp <command line|url>', 'import the tools of another MCP server (a command to run, or an http(s) url); repeatable', collect, [])
    .option('--mcp-config <mcp.json>', 'import the servers of an mcp.json; repeatable', collect, [])
    .option('--store-env <NAME>', 'share state between replicas through the Redis whose redis:// URL is in this environment variable (never on the command line): spills and background jobs, and with --durable-key-env durable runs too')
    .option('--mcp-verbose', "show the imported MCP servers' stderr and log messages on stderr (escaped, lines cut at 4,000 characters)")
    .option('--log-level <level>', "the least severe log notification sent until a client's logging/setLevel (default debug: all); over stateless --http, where a setLevel lasts for its own request only, the level every request gets", parseLogLevel)
    .option('--store <file:DIR>', "durable runs: a program's approval ask suspends its run into this store (answer with ptc runs approve|deny); run_result gives the model the outcome")
    .option('--durable-key-env <NAME>', 'with --store or --store-env: the secret (at least 32 bytes) that signs resume tokens, read from this environment variable; makes run_code durable')
    .option('--durable-previous-key-env <NAME>', 'with --durable-key-env: a previous key that still verifies tokens (key rotation)')
    .addHelpText(
      'after',
      '\nClient config: { "mcpServers": { "ptc": { "command": "npx", "args": ["ptc", "mcp", "serve", "--tools", "tools.ts"] } } }\n' +
        'Over HTTP: ptc mcp serve --http 8080  ->  http://127.0.0.1:8080/mcp (stateless: run replicas behind any load balancer)\n' +
        'Replicas: --store-env REDIS_URL shares spills and background jobs; add --durable-key-env KEY for durable runs on the same Redis (resumable on any replica, answered by ptc runs approve --store-env REDIS_URL).\n' +
        'Exit codes: 0 the client disconnected (stdio) or SIGINT/SIGTERM (HTTP), 1 the connection failed (a message over 10 MiB), 2 usage or input error.',
    )
    .action(async (flags: ServeFlags) => {
      if (flags.http) return serveHttp(flags, flags.http);
      // Over stdio the client is whoever started the process: a token would check nothing.
      for (const [given, flag] of [[flags.authTokenEnv, '--auth-token-env'], [flags.agentTokensEnv, '--agent-tokens-env']] as const) {
        if (given !== undefined) throw new CliError(`${flag} applies to --http only; over stdio the client is the process that started the server`);
      }
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
  const { mcpApprovalChannel, McpMessageTooLargeError, serveMcpStdio } = await import('../../mcp/index.js');
  const approval = flags.approve === 'client' ? mcpApprovalChannel() : undefined;
  const { stores, durable } = await storesOf(flags);
  const session = await buildSessionHost(sessionFlags(flags, durable), {
    verbose: flags.mcpVerbose === true,
    ...(approval ? { approval } : {}),
    ...(stores ? { spills: stores.spills, traceHeads: stores.traceHeads, jobs: stores.jobs } : {}),
  }).catch(async (err: unknown) => {
    await stores?.close();
    throw err;
  });
  const tools = session.programTools;
  process.stderr.write(`ptc mcp serve: run_code over ${tools} tool(s)${flags.exposeTools ? ', tools exposed' : ''}${durable ? `; durable runs in ${durable.describe}` : ''}; waiting on stdio\n`);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    await serveMcpStdio({ host: session.host, runCodeName: session.runCode.name, exposeTools: flags.exposeTools === true, signal: stop.signal, stdout: out, ...(approval ? { approval } : {}), ...(flags.logLevel ? { logLevel: flags.logLevel } : {}) });
  } catch (err) {
    if (McpMessageTooLargeError.isInstance(err)) throw new CliError((err as Error).message, EXIT.failed);
    throw err;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await session.close();
    await stores?.close();
  }
}

/** The host `ptc mcp serve` builds (stdio and HTTP alike): asks fail closed unless durable or `--approve client`. */
function sessionFlags(flags: ServeFlags, durable: DurableSettings | undefined): SessionFlags {
  return {
    ...(flags.tools ? { tools: flags.tools } : {}),
    ...traceFlags(flags),
    approve: 'no',
    isolation: flags.isolation,
    osSandbox: flags.osSandbox,
    mcp: flags.mcp,
    mcpConfig: flags.mcpConfig,
    ...(durable ? { durable } : {}),
  };
}

/**
 * The Redis stores of `--store-env` (opened only with the flag) and the durable settings of
 * `--store` or `--store-env` with their key flags, checked before anything starts. Durable runs
 * are on Redis only with `--durable-key-env`; without it `--store-env` shares spills and jobs only.
 */
async function storesOf(flags: ServeFlags): Promise<{ stores?: RedisStores; durable?: DurableSettings }> {
  const stores = flags.storeEnv === undefined ? undefined : await openRedisStoresFromEnv(flags.storeEnv);
  try {
    const durable = await durableSettings({
      ...(flags.store !== undefined ? { store: flags.store } : {}),
      ...(stores ? { redis: stores, storeEnv: flags.storeEnv! } : {}),
      ...(flags.durableKeyEnv !== undefined ? { keyEnv: flags.durableKeyEnv } : {}),
      ...(flags.durablePreviousKeyEnv !== undefined ? { previousKeyEnv: flags.durablePreviousKeyEnv } : {}),
    });
    return { ...(stores ? { stores } : {}), ...(durable ? { durable } : {}) };
  } catch (err) {
    await stores?.close();
    throw err;
  }
}

/** The token named by `--auth-token-env`, checked before anything starts. */
function authToken(flags: ServeFlags, hostname: string): string | undefined {
  if (flags.agentTokensEnv !== undefined) {
    if (flags.authTokenEnv !== undefined) throw new CliError('give --auth-token-env or --agent-tokens-env, not both');
    return undefined;
  }
  if (flags.authTokenEnv === undefined) {
    if (!['127.0.0.1', '::1', 'localhost'].includes(hostname) && !/^127\./.test(hostname)) {
      throw new CliError(`--http ${visibleText(hostname)}:… listens off loopback, which needs --auth-token-env NAME (a bearer token in that environment variable): anyone who can reach the port could run programs`);
    }
    return undefined;
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.authTokenEnv)) throw new CliError('--auth-token-env takes the name of an environment variable, not a token');
  const token = process.env[flags.authTokenEnv];
  if (!token) throw new CliError(`--auth-token-env ${flags.authTokenEnv}: that environment variable is not set`);
  if (token.length < 16) throw new CliError(`--auth-token-env ${flags.authTokenEnv}: the token must be at least 16 characters`);
  return token;
}

async function serveHttp(flags: ServeFlags, address: { hostname: string; port: number }): Promise<void> {
  const token = authToken(flags, address.hostname);
  const authenticate = flags.agentTokensEnv === undefined ? undefined : agentTokensFromEnv(flags.agentTokensEnv);
  const { mcpApprovalChannel, McpConfigError, serveMcpHttp } = await import('../../mcp/index.js');
  const approval = flags.approve === 'client' ? mcpApprovalChannel() : undefined;
  const { stores, durable } = await storesOf(flags);
  const session = await (async () => {
    return buildSessionHost(
      sessionFlags(flags, durable),
      { verbose: flags.mcpVerbose === true, ...(approval ? { approval } : {}), ...(stores ? { spills: stores.spills, traceHeads: stores.traceHeads, jobs: stores.jobs } : {}) },
    );
  })().catch(async (err: unknown) => {
    await stores?.close();
    throw err;
  });
  let served;
  try {
    served = await serveMcpHttp({
      host: session.host,
      runCodeName: session.runCode.name,
      exposeTools: flags.exposeTools === true,
      hostname: address.hostname,
      port: address.port,
      ...(flags.allowedHost.length > 0 ? { allowedHosts: flags.allowedHost } : {}),
      ...(token ? { authToken: token } : {}),
      ...(authenticate ? { authenticate } : {}),
      ...(flags.logLevel ? { logLevel: flags.logLevel } : {}),
      // Elicitation's answer must reach the session that asked: approval turns sessions on.
      ...(approval ? { approval } : {}),
    });
  } catch (err) {
    await session.close();
    await stores?.close();
    if (McpConfigError.isInstance(err) || InvalidOptionError.isInstance(err)) throw new CliError((err as Error).message);
    throw err;
  }
  const tools = session.programTools;
  process.stderr.write(
    `ptc mcp serve: run_code over ${tools} tool(s)${flags.exposeTools ? ', tools exposed' : ''}${durable ? `; durable runs in ${durable.describe}` : ''}; listening on ${served.url}` +
      `${token ? ' (bearer token required)' : authenticate ? ' (a bearer token per agent required)' : ''}; ${approval ? 'stateful (sessions, for approval by elicitation)' : 'stateless'}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await served.close();
  await session.close();
  await stores?.close();
}
