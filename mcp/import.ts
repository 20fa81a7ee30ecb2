/**
 * MCP import: start stdio MCP servers with the SDK's `Client` and turn each of their tools into
 * an ordinary tool (`defineTool`), so programs call them with typed bindings and every call goes
 * through the host's pipeline: validation, listeners, guards, approval, events.
 *
 * Mapping, per tool of server `s`:
 * - name `s.<tool>` (a program calls it as `tools.s_<tool>` by the codegen mapping:
 *   `everything.get-sum` -> `tools.everything_get_sum`);
 * - `inputSchema` and `outputSchema` go through codegen's `zodFromJsonSchema` (remote schemas are
 *   untrusted: what zod cannot express becomes `unknown`, regexes are dropped, each warning names
 *   the tool and the JSON pointer). A non-object input schema accepts any object (documented
 *   fallback with a warning); the server still validates;
 * - the canonical value is `structuredContent`; without it, the text of the content blocks
 *   (other blocks described in brackets). `isError` results become tool errors carrying the
 *   server's text, so programs see it in `ToolCallError.message`;
 * - parallel only when the server marks the tool `readOnlyHint: true`; otherwise exclusive.
 *   Hints are the server's claim; they only affect scheduling, never policy.
 * A tool that cannot be defined (a name over 128 characters, a name with characters we do not
 * allow) is skipped and listed in `skipped`, never silently dropped. Descriptions are capped.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import { callableNameOf, parametersFromJsonSchema, zodFromJsonSchema } from '../codegen/index.js';
import { defineTool, type Tool } from '../tools/index.js';
import { checkServerSpecs, type McpServerSpec } from './config.js';
import { McpServerStartError } from './errors.js';

/** Options of {@link importMcpServers}. */
export interface ImportMcpOptions {
  /** Per-call timeout sent to the SDK (default 60 s). */
  readonly callTimeoutMs?: number;
  /** Time allowed for a server to start and list its tools (default 30 s). */
  readonly startTimeoutMs?: number;
  /** Receives each line a server writes to stderr (default: dropped, but kept for start errors). */
  readonly onServerStderr?: (server: string, line: string) => void;
  /** Client name sent in `initialize` (default `ptc-runtime`). */
  readonly clientName?: string;
}

/** A tool that was not imported, and why. */
export interface SkippedMcpTool {
  readonly server: string;
  readonly tool: string;
  readonly reason: string;
}

/** Started servers and their tools. */
export interface McpImport {
  /** Tools to `host.register`, in server then listing order. */
  readonly tools: readonly Tool[];
  readonly servers: readonly { readonly name: string; readonly serverName?: string; readonly version?: string; readonly toolCount: number }[];
  /** Schema approximations, each naming the tool. */
  readonly warnings: readonly string[];
  readonly skipped: readonly SkippedMcpTool[];
  /** Closes every client and stops every server process. */
  close(): Promise<void>;
}

/** Longest description kept from a server. */
export const MAX_MCP_DESCRIPTION_CHARS = 4_000;
const MAX_TOOLS_PER_SERVER = 1_000;

type McpTool = Awaited<ReturnType<Client['listTools']>>['tools'][number];
type McpContent = { type: string; text?: unknown; mimeType?: unknown; uri?: unknown; resource?: { uri?: unknown; text?: unknown } };

/** The tool name a server's tool gets. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}.${tool}`;
}

/** Text of MCP content blocks; non-text blocks are described in brackets. */
export function mcpContentText(content: readonly McpContent[]): string {
  return content
    .map((b) => {
      if (b.type === 'text') return String(b.text ?? '');
      if (b.type === 'image' || b.type === 'audio') return `[${b.type} ${String(b.mimeType ?? '')}]`;
      if (b.type === 'resource_link') return `[resource_link ${String(b.uri ?? '')}]`;
      if (b.type === 'resource') return typeof b.resource?.text === 'string' ? b.resource.text : `[resource ${String(b.resource?.uri ?? '')}]`;
      return `[${b.type}]`;
    })
    .join('\n');
}

function toolFromMcp(server: string, client: Client, mcp: McpTool, options: ImportMcpOptions, warnings: string[]): Tool {
  const name = mcpToolName(server, mcp.name);
  const input = parametersFromJsonSchema(mcp.inputSchema);
  for (const w of input.warnings) warnings.push(`${name}: inputSchema ${w}`);
  const parameters = input.schema;
  let outputSchema: z.ZodType | undefined;
  if (mcp.outputSchema) {
    const out = zodFromJsonSchema(mcp.outputSchema);
    for (const w of out.warnings) warnings.push(`${name}: outputSchema ${w}`);
    outputSchema = out.schema;
  }
  const text = (mcp.description ?? mcp.title ?? '').trim() || `Tool "${mcp.name}" of MCP server "${server}".`;
  const description = text.length > MAX_MCP_DESCRIPTION_CHARS ? `${text.slice(0, MAX_MCP_DESCRIPTION_CHARS - 1)}…` : text;
  return defineTool({
    name,
    description,
    parameters,
    ...(outputSchema ? { output: { schema: outputSchema } } : {}),
    ...(mcp.annotations?.readOnlyHint === true ? { isConcurrencySafe: true } : {}),
    execute: async (args, exec) => {
      const result = await client.callTool({ name: mcp.name, arguments: args as Record<string, unknown> }, undefined, {
        signal: exec.signal,
        timeout: options.callTimeoutMs ?? 60_000,
      });
      const content = (Array.isArray(result.content) ? result.content : []) as McpContent[];
      if (result.isError === true) throw new Error(mcpContentText(content) || `MCP tool ${mcp.name} reported an error`);
      if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent as never;
      if (outputSchema) throw new Error(`MCP tool ${mcp.name} declares an outputSchema but returned no structuredContent`);
      return mcpContentText(content) as never;
    },
  }) as Tool;
}

async function startServer(spec: McpServerSpec, options: ImportMcpOptions, warnings: string[], skipped: SkippedMcpTool[]) {
  const commandText = [spec.command, ...spec.args].join(' ');
  const transport = new StdioClientTransport({
    command: spec.command,
    args: [...spec.args],
    env: { ...getDefaultEnvironment(), ...(spec.env ?? {}) },
    ...(spec.cwd ? { cwd: spec.cwd } : {}),
    stderr: 'pipe',
  });
  const tail: string[] = [];
  let partial = '';
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      options.onServerStderr?.(spec.name, line);
    }
  });
  const client = new Client({ name: options.clientName ?? 'ptc-runtime', version: '0.1.0' });
  const fail = (problem: string) => new McpServerStartError(spec.name, commandText, problem, tail.join('\n').slice(-2_000));
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(transport), timeout]);
    const listed: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await Promise.race([client.listTools(cursor ? { cursor } : undefined), timeout]);
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && listed.length < MAX_TOOLS_PER_SERVER);
    const tools: Tool[] = [];
    for (const mcp of listed.slice(0, MAX_TOOLS_PER_SERVER)) {
      try {
        tools.push(toolFromMcp(spec.name, client, mcp, options, warnings));
      } catch (err) {
        skipped.push({ server: spec.name, tool: String(mcp.name).slice(0, 200), reason: (err as Error).message });
      }
    }
    if (listed.length > MAX_TOOLS_PER_SERVER) skipped.push({ server: spec.name, tool: '*', reason: `more than ${MAX_TOOLS_PER_SERVER} tools; the rest were not imported` });
    const info = client.getServerVersion();
    return { client, tools: tools as readonly Tool[], info };
  } catch (err) {
    await client.close().catch(() => {});
    throw fail((err as Error)?.message ?? String(err));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts every server (concurrently), lists its tools and maps them. If any server fails, the
 * others are closed and a {@link McpServerStartError} names the one that failed.
 */
export async function importMcpServers(specs: readonly McpServerSpec[], options: ImportMcpOptions = {}): Promise<McpImport> {
  checkServerSpecs(specs);
  const warnings: string[] = [];
  const skipped: SkippedMcpTool[] = [];
  const started = await Promise.allSettled(specs.map((s) => startServer(s, options, warnings, skipped)));
  const clients = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value.client] : []));
  const closeAll = async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  };
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await closeAll();
    throw failed.reason;
  }
  const ok = started.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof startServer>>>).value);
  // Two tools whose names map to one `tools.<callable>` (`fs.a-b`, `fs.a_b`) cannot both be
  // called from a program: keep the first, list the other in `skipped`.
  const byCallable = new Map<string, string>();
  for (const server of ok) {
    server.tools = server.tools.filter((tool) => {
      const callable = callableNameOf(tool.name);
      const taken = byCallable.get(callable);
      if (taken === undefined) return byCallable.set(callable, tool.name), true;
      const [serverName, ...rest] = tool.name.split('.');
      skipped.push({ server: serverName!, tool: rest.join('.'), reason: `its program name tools.${callable} is taken by ${taken}` });
      return false;
    });
  }
  let closed = false;
  return {
    tools: ok.flatMap((s) => s.tools),
    servers: ok.map((s, i) => ({
      name: specs[i]!.name,
      ...(s.info?.name ? { serverName: s.info.name } : {}),
      ...(s.info?.version ? { version: s.info.version } : {}),
      toolCount: s.tools.length,
    })),
    warnings,
    skipped,
    async close() {
      if (closed) return;
      closed = true;
      await closeAll();
    },
  };
}
