/**
 * The host `ptc run` and `ptc mcp serve` build from their flags: the tools module (or the bundled
 * examples), MCP servers to import, the approval channel, the trace file and `run_code`.
 * One place, so both commands apply the same policy the same way. The runtime, the MCP client
 * and the example tools are imported when a host is built, so `ptc --help` and `ptc trace` do not
 * load the compiler.
 */
import { createInterface } from 'node:readline/promises';
import type { McpImport, McpServerSpec } from '../mcp/index.js';
import type { AnySpillStore, RunCodeTool, TraceHeadStore } from '../runtime/index.js';
import { traceFileSink, visibleText, type ApprovalChannel, type EventSink, type JobStore, type ToolHost, type TraceHead, type TraceKey, type TraceWriter } from '../tools/index.js';
import { CliError } from './errors.js';
import { loadToolsModule } from './load-tools.js';
import type { DurableSettings } from './store-spec.js';
import { keyFromEnv } from './trace/read-trace.js';

/** Most warnings (and skipped tools) printed one by one; the rest are counted. */
const MAX_LISTED = 20;
/** One diagnostic line on stderr. */
const say = (line: string) => void process.stderr.write(`${line}\n`);

/** How `ask` decisions are answered. */
export type ApproveMode = 'yes' | 'no' | 'prompt';

/** Flags shared by the commands that build a host. */
export interface SessionFlags {
  readonly tools?: string;
  readonly mcp?: readonly string[];
  readonly mcpConfig?: readonly string[];
  readonly approve?: ApproveMode;
  /** `--isolation`: `process` (default), `strict` (one run in a sandbox process at a time, a fresh isolate per run) or `isolate`. */
  readonly isolation?: CliIsolation;
  /** `--os-sandbox`: bubblewrap around sandbox processes (default auto). */
  readonly osSandbox?: 'auto' | 'require' | 'off';
  readonly trace?: string;
  /** `--trace-key-env`: the key of a keyed trace (read from the environment by the command). */
  readonly traceKey?: TraceKey;
  /**
   * `--store` with `--durable-key-env`: run_code is durable, an ask in a program is deferred (the
   * run suspends; `ptc runs approve|deny` answers it), and `run_result` is registered beside it.
   */
  readonly durable?: DurableSettings;
}

/**
 * The trace flags of a command (`--trace FILE`, `--trace-key-env NAME`) as session flags: the key
 * read from the environment, never from argv. Throws {@link CliError} for a key without a trace,
 * an unset variable or a short key.
 */
export function traceFlags(flags: { readonly trace?: string; readonly traceKeyEnv?: string }): Pick<SessionFlags, 'trace' | 'traceKey'> {
  if (flags.traceKeyEnv !== undefined && !flags.trace) throw new CliError('--trace-key-env keys a trace: give --trace <file.jsonl> too');
  return { ...(flags.trace ? { trace: flags.trace } : {}), ...(flags.traceKeyEnv !== undefined ? { traceKey: keyFromEnv(flags.traceKeyEnv, '--trace-key-env') } : {}) };
}

/** A built host and what to release afterwards. */
export interface SessionHost {
  readonly host: ToolHost;
  readonly runCode: RunCodeTool;
  readonly trace?: TraceWriter;
  readonly mcp?: McpImport;
  /** The tools programs can call: the host's tools without run_code, tool_search and spill_read. */
  readonly programTools: number;
  /** Closes run_code's runner, the MCP servers and the trace (writing its end line). */
  close(): Promise<void>;
}

/** Parses `--approve`. */
export function parseApprove(value: string): ApproveMode {
  if (value === 'yes' || value === 'no' || value === 'prompt') return value;
  throw new CliError(`--approve must be yes, no or prompt, got ${JSON.stringify(value)}`);
}

/** What `--isolation` gives run_code: `process`, `isolate`, or `strict` as `{ strict: true }`. */
export type CliIsolation = 'process' | 'isolate' | { readonly strict: true };

/** Parses `--isolation`: `process`, `strict` (one run in a sandbox process at a time, a fresh isolate per run) or `isolate`. */
export function parseIsolation(value: string): CliIsolation {
  if (value === 'process' || value === 'isolate') return value;
  if (value === 'strict') return { strict: true };
  throw new CliError(`--isolation must be process, strict or isolate, got ${JSON.stringify(value)}`);
}

/** Parses `--os-sandbox`. */
export function parseOsSandbox(value: string): 'auto' | 'require' | 'off' {
  if (value === 'auto' || value === 'require' || value === 'off') return value;
  throw new CliError(`--os-sandbox must be auto, require or off, got ${JSON.stringify(value)}`);
}

/** The approval channel for a mode; `undefined` means none (every ask fails closed). */
export function approvalChannel(mode: ApproveMode, say: (line: string) => void = (l) => process.stderr.write(l + '\n')): ApprovalChannel | undefined {
  if (mode === 'no') return undefined;
  if (mode === 'yes') {
    return {
      request: async ({ execution, reason }) => {
        say(`ptc: approved once (--approve yes): ${visibleText(`${execution.toolName} ${JSON.stringify(execution.args)} (${reason})`)}`);
        return 'allow-once';
      },
    };
  }
  return {
    request: async ({ execution, reason, signal }) => {
      if (!process.stdin.isTTY) throw new Error('no terminal to ask on (stdin is not a TTY)');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        const answer = await rl.question(`\nptc: ${visibleText(`${execution.toolName} ${JSON.stringify(execution.args)}`)}\n     asks for approval: ${visibleText(reason)}\n     allow once? [y/N] `, { signal });
        return /^y(es)?$/i.test(answer.trim()) ? 'allow-once' : 'deny';
      } finally {
        rl.close();
      }
    },
  };
}

/** All MCP server specs from `--mcp` and `--mcp-config`. */
export async function mcpSpecs(flags: SessionFlags): Promise<McpServerSpec[]> {
  if ((flags.mcpConfig ?? []).length === 0 && (flags.mcp ?? []).length === 0) return [];
  const { parseMcpCommandLine, readMcpConfig } = await import('../mcp/index.js');
  return [...(flags.mcpConfig ?? []).flatMap((p) => readMcpConfig(p)), ...(flags.mcp ?? []).map((l) => parseMcpCommandLine(l))];
}

/** Builds the host. Throws {@link CliError} (exit 2) for bad flags, modules, configs or servers. */
export async function buildSessionHost(
  flags: SessionFlags,
  extra: { onEvent?: EventSink; verbose?: boolean; /** Overrides `flags.approve`. */ approval?: ApprovalChannel; /** run_code's spill store (shared by replicas: --store-env). */ spills?: AnySpillStore; /** Where this chain's head is published at each suspension and at close (--store-env). */ traceHeads?: TraceHeadStore; /** The host's background jobs, shared by replicas (--store-env); a tools module's createHost gets it in its options. */ jobs?: JobStore } = {},
): Promise<SessionHost> {
  const base = extra.approval ?? approvalChannel(flags.approve ?? 'no');
  const approval = flags.durable ? deferring(base) : base;
  const hostOptions = { ...(approval ? { approval } : {}), ...(extra.jobs ? { jobs: extra.jobs } : {}) };
  const host = flags.tools ? await loadToolsModule(flags.tools, hostOptions) : (await import('../examples/tools.js')).createHost(hostOptions);
  let trace: TraceWriter | undefined;
  if (flags.trace) {
    try {
      trace = traceFileSink(flags.trace, { host, ...(flags.traceKey !== undefined ? { key: flags.traceKey } : {}) });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new CliError(code === 'EEXIST' ? `trace file ${flags.trace} already exists (traces are never appended to; choose a new name)` : `cannot create trace file ${flags.trace}: ${(err as Error).message}`);
    }
    host.onEvent(trace);
  }
  if (extra.onEvent) host.onEvent(extra.onEvent);
  let mcp: McpImport | undefined;
  let specs: McpServerSpec[];
  try {
    specs = await mcpSpecs(flags);
  } catch (err) {
    trace?.close();
    throw new CliError((err as Error).message);
  }
  if (specs.length > 0) {
    try {
      const { importMcpServers } = await import('../mcp/index.js');
      mcp = await importMcpServers(specs, {
        ...(extra.verbose
          ? {
              onServerStderr: (s: string, line: string) => say(`[mcp:${s}] ${visibleText(line)}`),
              onServerLog: (s: string, e: { level: string; text: string }) => say(`[mcp:${s}] ${visibleText(e.level)}: ${visibleText(e.text)}`),
            }
          : {}),
        onServerExit: (s: string, reason: string) => say(`ptc: MCP server "${s}" ${visibleText(reason)}; it is not restarted, so its tools fail from now on`),
        // A server with oauth that needs a login: the url on stderr, the redirect to a loopback listener.
        authorize: async (s: string, url: string) => (await import('./commands/mcp-login.js')).printAuthorizationUrl(s, url),
      });
      mcp.register(host);
    } catch (err) {
      trace?.close();
      await mcp?.close();
      throw new CliError((err as Error).message);
    }
    for (const w of mcp.warnings.slice(0, MAX_LISTED)) say(`ptc: warning: ${visibleText(w)}`);
    if (mcp.warnings.length > MAX_LISTED) say(`ptc: warning: … and ${mcp.warnings.length - MAX_LISTED} more schema warning(s)`);
    for (const s of mcp.skipped.slice(0, MAX_LISTED)) say(`ptc: warning: MCP tool ${visibleText(`${s.server}.${s.tool}`)} not imported: ${visibleText(s.reason)}`);
    if (mcp.skipped.length > MAX_LISTED) say(`ptc: warning: … and ${mcp.skipped.length - MAX_LISTED} more MCP tool(s) not imported`);
  }
  const { createRunCodeTool, createRunResultTool, createToolSearchTool, OsSandboxOptionError, OsSandboxUnavailableError } = await import('../runtime/index.js');
  let runCode: RunCodeTool;
  try {
    runCode = createRunCodeTool({
      host,
      isolation: flags.isolation ?? 'process',
      ...(flags.osSandbox ? { osSandbox: flags.osSandbox } : {}),
      // With a chained trace, a suspension anchors the trace's head in the run's journal, so the
      // replica that resumes it records the link (`ptc/run-resumed` prevTraceHead).
      ...(flags.durable ? { durable: { store: flags.durable.store, keys: flags.durable.keys, ...(trace ? { traceHead: traceHeadOf(trace, extra.traceHeads) } : {}) } } : {}),
      ...(extra.spills ? { spills: extra.spills } : {}),
    });
  } catch (err) {
    trace?.close();
    await mcp?.close();
    if (OsSandboxUnavailableError.isInstance(err) || OsSandboxOptionError.isInstance(err)) throw new CliError(`--os-sandbox: ${(err as Error).message}`);
    throw err;
  }
  const searchTool = createToolSearchTool({ host });
  const runResult = flags.durable ? createRunResultTool({ runCode }) : undefined;
  try {
    // tool_search beside run_code: a large catalog (many MCP tools) is described as an index.
    host.register([runCode, searchTool, ...(runResult ? [runResult] : [])]);
  } catch (err) {
    trace?.close();
    await mcp?.close();
    throw new CliError(`cannot register run_code: ${(err as Error).message}`);
  }
  let closed = false;
  const companions = new Set<unknown>([runCode, runCode.spillRead, searchTool, runResult]);
  return {
    host,
    runCode,
    get programTools() {
      return host.tools().filter((t) => !companions.has(t)).length;
    },
    ...(trace ? { trace } : {}),
    ...(mcp ? { mcp } : {}),
    async close() {
      if (closed) return;
      closed = true;
      host.close(); // the session's background jobs end with it
      await runCode.close().catch(() => {});
      await mcp?.close();
      await flags.durable?.store.close?.();
      trace?.close();
      // The chain's final head (its end line), where an auditor can compare a file against it.
      if (trace && extra.traceHeads) await extra.traceHeads.put(trace.head.traceId, trace.head).catch(() => undefined);
    },
  };
}

/** The head of a trace chain, read when a run suspends; also published under its trace id when there is a head store. */
function traceHeadOf(trace: TraceWriter, traceHeads: TraceHeadStore | undefined): () => TraceHead | undefined {
  return () => {
    const head = trace.head;
    // Best effort: the link itself is in the run's journal; a failed publish only leaves an older head.
    void traceHeads?.put(head.traceId, head).catch(() => undefined);
    return head;
  };
}

/**
 * The approval channel of a durable session: a program's ask is deferred (its run suspends until
 * `ptc runs approve|deny`), any other ask goes to `inner` (none: denied, as always).
 */
function deferring(inner: ApprovalChannel | undefined): ApprovalChannel {
  return {
    request: async (request) => {
      if (request.deferrable) return 'defer';
      return inner ? inner.request(request) : 'deny';
    },
  };
}
