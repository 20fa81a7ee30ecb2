/**
 * MCP import: connect to MCP servers (stdio or Streamable HTTP) with the SDK's `Client` and turn
 * each of their tools into an ordinary tool (`defineTool`), so programs call them with typed
 * bindings and every call goes through the host's pipeline: validation, listeners, guards,
 * approval, events.
 *
 * Mapping, per tool of server `s`:
 * - name `s.<tool>` (a program calls it as `tools.s_<tool>` by the codegen mapping:
 *   `everything.get-sum` -> `tools.everything_get_sum`);
 * - `inputSchema` and `outputSchema` go through codegen's `zodFromJsonSchema` (remote schemas are
 *   untrusted: what zod cannot express becomes `unknown`, regexes are dropped, descriptions are
 *   cut, each warning names the tool and the JSON pointer). A non-object input schema accepts any
 *   object (documented fallback with a warning); the server still validates;
 * - with an `outputSchema`, the canonical value is `structuredContent`; without one, the value is
 *   always a string, the text of the content blocks (other blocks described in brackets; the JSON
 *   text of `structuredContent` when there is no content), and the tool is declared `string` with
 *   a line saying so, so a program's `.split(' ')` type-checks. `isError` results become tool
 *   errors carrying the server's text, so programs see it in `ToolCallError.message`;
 * - parallel only when the server marks the tool `readOnlyHint: true`; otherwise exclusive.
 *   Hints are the server's claim; they only affect scheduling, never policy.
 * What one server can add is bounded: a description of {@link MAX_MCP_DESCRIPTION_CHARS}, a
 * tool's schema text of {@link MAX_MCP_TOOL_SCHEMA_CHARS}, a server's of
 * {@link MAX_MCP_SERVER_SCHEMA_CHARS}, {@link MAX_TOOLS_PER_SERVER} tools. A tool that cannot be
 * defined, is over a bound, or whose program name another tool has is skipped and listed in
 * `skipped`, never silently dropped. {@link McpImport.register} checks the host's own tools too,
 * so an imported tool never shadows or breaks one (a server `docs` with a tool `read` is
 * `tools.docs_read`, which the host's `docs_read` may already be).
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
// The converter's own modules, not codegen/index.js, which loads the TypeScript compiler.
import { callableNameOf } from '../codegen/callable-name.js';
import { parametersFromJsonSchema, zodFromJsonSchema } from '../codegen/json-schema.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { checkContent, defineTool, errorText, redactSecrets, toModelJsonSchema, type ContentBlock, type Disposable, type Tool, type ToolHost } from '../tools/index.js';
import { checkServerSpecs, isHttpServerSpec, type McpHttpServerSpec, type McpServerSpec } from './config.js';
import { createOAuthProvider, type McpOAuthOptions, type McpOAuthProvider } from './oauth.js';
import { setMcpToolMeta } from './tool-meta.js';
import { connectServer, MAX_TOOLS_PER_SERVER, type McpListedTool, type ServerConnection } from './connect-server.js';

/** Options of {@link importMcpServers}. */
export interface ImportMcpOptions {
  /** Per-call timeout sent to the SDK (default 60 s). A program's call also ends with its run. */
  readonly callTimeoutMs?: number;
  /** Time allowed for a server to start and list its tools (default 30 s). */
  readonly startTimeoutMs?: number;
  /**
   * Receives each line a server writes to stderr, cut at 4,000 characters (default: dropped;
   * the last lines are kept, at a fixed size, for start errors).
   */
  readonly onServerStderr?: (server: string, line: string) => void;
  /** Receives the server's log notifications (`notifications/message`), text cut at 4,000 characters (default: dropped). */
  readonly onServerLog?: (server: string, entry: { readonly level: string; readonly text: string }) => void;
  /**
   * Called once when a server goes away after it started ("exited with code 3"). Servers are not
   * restarted: their tools fail from then on, saying why.
   */
  readonly onServerExit?: (server: string, reason: string) => void;
  /** Client name sent in `initialize` (default `ptc-runtime`). */
  readonly clientName?: string;
  /**
   * Answers a server's elicitation request (it asks the user for input, e.g. a confirmation).
   * Default: declined, with the reason in `_meta.reason`, since no user is there to ask.
   */
  readonly elicitation?: McpElicitationHandler;
  /**
   * Shows a person the authorization url of a server with `oauth` whose options have no
   * `authorize` (the CLI prints it and waits on the loopback redirect). Without either, a server
   * that needs a login fails with an `McpAuthError` saying to run `ptc mcp login NAME`.
   */
  readonly authorize?: (server: string, url: string) => Promise<void>;
  /** Directory of the default OAuth token files (default `~/.config/ptc-runtime/mcp-tokens`). */
  readonly oauthTokenDir?: string;
}

/** A host's answer to an imported server's elicitation request. */
export type McpElicitationHandler = (server: string, request: ElicitRequest['params']) => Promise<ElicitResult>;

/** The default elicitation answer: declined, saying why. */
export const declineElicitation: McpElicitationHandler = async () => ({
  action: 'decline',
  _meta: { reason: 'ptc-runtime: no elicitation handler was given to importMcpServers, so no user can be asked' },
});

/** A tool that was not imported, and why. */
export interface SkippedMcpTool {
  readonly server: string;
  readonly tool: string;
  readonly reason: string;
}

/** Connected servers and their tools. */
export interface McpImport {
  /** Tools to register, in server then listing order. Prefer {@link McpImport.register}, which checks the host's names. */
  readonly tools: readonly Tool[];
  readonly servers: readonly {
    readonly name: string;
    readonly serverName?: string;
    readonly version?: string;
    readonly toolCount: number;
    readonly transport: 'stdio' | 'streamable-http' | 'sse';
  }[];
  /** Schema approximations, each naming the tool. */
  readonly warnings: readonly string[];
  /** Tools left out and why; {@link McpImport.register} adds the ones whose names the host has. */
  readonly skipped: readonly SkippedMcpTool[];
  /**
   * Registers the tools in `host`, except those whose name or program name (`tools.<callable>`)
   * one of the host's tools already has: those are added to `skipped`, and the host's tool is
   * untouched. Returns the registration's disposable.
   */
  register(host: ToolHost): Disposable;
  /** Closes every client and stops every server process. */
  close(): Promise<void>;
}

/** Longest tool description kept from a server. */
export const MAX_MCP_DESCRIPTION_CHARS = 4_000;
/** Longest schema text of one imported tool (description, input and output schema as JSON, after the caps). */
export const MAX_MCP_TOOL_SCHEMA_CHARS = 64_000;
/** Most schema text imported from one server; tools past it are skipped. */
export const MAX_MCP_SERVER_SCHEMA_CHARS = 1_000_000;
/** Largest raw schema (input and output as JSON) read from a server before any conversion. */
const MAX_RAW_SCHEMA_CHARS = 256_000;

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

/** What the description of a tool without an outputSchema says of its value. */
export const TEXT_RESULT_NOTE = "Returns a string: the text of the result's content blocks (JSON text is not parsed: JSON.parse it).";

/** The value of a call to a tool without an outputSchema: its content's text, else the JSON text of its structuredContent. */
function textResult(content: readonly McpContent[], structured: unknown): string {
  if (content.length > 0 || structured === undefined || structured === null) return mcpContentText(content);
  return JSON.stringify(structured) ?? '';
}

/**
 * A server's content as our blocks, for the model (a direct call's result): each block checked
 * (types, base64, sizes); one that fails is replaced by a text line saying what was wrong, so
 * one bad block does not cost the rest.
 */
export function mcpContentBlocks(server: string, content: readonly unknown[]): readonly ContentBlock[] {
  return Object.freeze(
    content.map((block, i) => {
      try {
        return checkContent([block], `MCP server "${server}"`)[0]!;
      } catch (err) {
        return Object.freeze({ type: 'text' as const, text: `[content block ${i} left out: ${errorText(err).replace(/content\[0\]/g, `content[${i}]`)}]` });
      }
    }),
  );
}

/** The error a call to a server that is gone fails with. */
function goneError(server: string, reason: string): Error {
  return new Error(`MCP server "${server}" ${reason}; it is not restarted, so its tools fail from now on`);
}

/** `err` with the server's secret values (OAuth tokens, a client secret) hidden from its message; itself when it has none. */
function hideSecrets(err: unknown, conn: ServerConnection): unknown {
  const values = conn.secretValues();
  if (values.length === 0 || !(err instanceof Error)) return err;
  const message = redactSecrets(err.message, { values });
  if (message === err.message) return err;
  const hidden = new Error(message);
  hidden.name = err.name;
  return hidden;
}

interface Mapped {
  readonly tool: Tool;
  /** Schema text it adds to the declarations. */
  readonly size: number;
}

function toolFromMcp(server: string, conn: ServerConnection, mcp: McpListedTool, options: ImportMcpOptions, warnings: string[]): Mapped {
  const name = mcpToolName(server, mcp.name);
  const raw = (JSON.stringify(mcp.inputSchema) ?? '').length + (JSON.stringify(mcp.outputSchema) ?? '').length;
  if (raw > MAX_RAW_SCHEMA_CHARS) throw new Error(`its schemas are ${raw} characters; the most read is ${MAX_RAW_SCHEMA_CHARS}`);
  const input = parametersFromJsonSchema(mcp.inputSchema);
  const toolWarnings = input.warnings.map((w) => `${name}: inputSchema ${w}`);
  let outputSchema: z.ZodType | undefined;
  if (mcp.outputSchema) {
    const out = zodFromJsonSchema(mcp.outputSchema);
    toolWarnings.push(...out.warnings.map((w) => `${name}: outputSchema ${w}`));
    outputSchema = out.schema;
  }
  const text = (mcp.description ?? mcp.title ?? '').trim() || `Tool "${mcp.name}" of MCP server "${server}".`;
  // Without an outputSchema the import always resolves to text: say so where a model reads it
  // (within the description's cap).
  const note = outputSchema ? '' : `\n${TEXT_RESULT_NOTE}`;
  const most = MAX_MCP_DESCRIPTION_CHARS - note.length;
  const description = `${text.length > most ? `${text.slice(0, most - 1)}…` : text}${note}`;
  const { client } = conn;
  // A direct call's model content is the server's own blocks (images, audio, resources), not
  // only the text value: kept by the call's args object (the pipeline hands the same frozen
  // object to execute and render) while the value is still the text they were made with.
  const blocksOf = new WeakMap<object, { readonly value: string; readonly blocks: readonly ContentBlock[] }>();
  const tool = defineTool({
    name,
    description,
    parameters: input.schema,
    output: {
      schema: outputSchema ?? z.string(),
      ...(outputSchema
        ? {}
        : {
            render: (args: Record<string, unknown>, value: unknown) => {
              const kept = blocksOf.get(args);
              return kept && kept.value === value ? kept.blocks : typeof value === 'string' ? value : JSON.stringify(value);
            },
          }),
    },
    ...(mcp.annotations?.readOnlyHint === true ? { isConcurrencySafe: true } : {}),
    execute: async (args, exec) => {
      const before = conn.gone();
      if (before) throw goneError(server, before);
      let result: Awaited<ReturnType<typeof client.callTool>>;
      const call = () =>
        client.callTool({ name: mcp.name, arguments: args as Record<string, unknown> }, undefined, {
          signal: exec.signal,
          timeout: options.callTimeoutMs ?? 60_000,
        });
      try {
        try {
          result = await call();
        } catch (err) {
          // A person logged in during the call (a step-up, or a refresh the server refused): send it again once.
          if (err instanceof UnauthorizedError && (await conn.finishAuth())) result = await call();
          else throw err;
        }
      } catch (err) {
        const reason = conn.gone();
        if (reason) throw goneError(server, reason);
        throw hideSecrets(err, conn);
      }
      const content = (Array.isArray(result.content) ? result.content : []) as McpContent[];
      if (result.isError === true) throw hideSecrets(new Error(mcpContentText(content) || `MCP tool ${mcp.name} reported an error`), conn);
      if (outputSchema && result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent as never;
      if (outputSchema) throw new Error(`MCP tool ${mcp.name} declares an outputSchema but returned no structuredContent`);
      const value = textResult(content, result.structuredContent);
      if (content.length > 0 && content.some((b) => b?.type !== 'text') && typeof args === 'object' && args !== null) {
        blocksOf.set(args, { value, blocks: mcpContentBlocks(server, content) });
      }
      return value as never;
    },
  }) as Tool;
  const size = description.length + JSON.stringify(tool.parametersJsonSchema).length + (tool.output.schema ? (JSON.stringify(toModelJsonSchema(tool.output.schema)) ?? '').length : 0);
  if (size > MAX_MCP_TOOL_SCHEMA_CHARS) throw new Error(`its schema text is ${size} characters after the caps; the most one tool may add is ${MAX_MCP_TOOL_SCHEMA_CHARS}`);
  warnings.push(...toolWarnings);
  const dialect = (mcp.inputSchema as { $schema?: unknown }).$schema;
  const annotations = mcp.annotations && typeof mcp.annotations === 'object' ? (JSON.parse(JSON.stringify(mcp.annotations)) as Record<string, unknown>) : undefined;
  setMcpToolMeta(tool, {
    ...(annotations ? { annotations } : {}),
    ...(typeof dialect === 'string' && dialect.length <= 200 ? { inputSchemaDialect: dialect } : {}),
  });
  return { tool, size };
}

function mapServer(server: string, conn: ServerConnection, options: ImportMcpOptions, warnings: string[], skipped: SkippedMcpTool[]): Tool[] {
  const tools: Tool[] = [];
  let budget = MAX_MCP_SERVER_SCHEMA_CHARS;
  for (const mcp of conn.listed) {
    const toolName = String(mcp.name).slice(0, 200);
    if ((mcp as { execution?: { taskSupport?: unknown } }).execution?.taskSupport === 'required') {
      skipped.push({ server, tool: toolName, reason: 'it requires MCP tasks (execution.taskSupport "required"), which the import does not run' });
      continue;
    }
    try {
      const mapped = toolFromMcp(server, conn, mcp, options, warnings);
      if (mapped.size > budget) {
        skipped.push({ server, tool: toolName, reason: `the server's tools passed ${MAX_MCP_SERVER_SCHEMA_CHARS} characters of schema text, the most one server may add` });
        continue;
      }
      budget -= mapped.size;
      tools.push(mapped.tool);
    } catch (err) {
      skipped.push({ server, tool: toolName, reason: errorText(err) });
    }
  }
  if (conn.truncated) skipped.push({ server, tool: '*', reason: `more than ${MAX_TOOLS_PER_SERVER} tools; the rest were not imported` });
  return tools;
}

function oauthProvider(spec: McpHttpServerSpec, oauth: true | McpOAuthOptions, options: ImportMcpOptions): Promise<McpOAuthProvider> {
  return createOAuthProvider(
    {
      server: spec.name,
      url: spec.url,
      clientName: options.clientName ?? 'ptc-runtime',
      ...(options.authorize ? { authorize: options.authorize } : {}),
      ...(options.oauthTokenDir ? { tokenDir: options.oauthTokenDir } : {}),
    },
    oauth,
  );
}

/**
 * Connects to every server (concurrently), lists its tools and maps them. If any server fails,
 * the others are closed and a {@link McpServerStartError} names the one that failed.
 */
export async function importMcpServers(specs: readonly McpServerSpec[], options: ImportMcpOptions = {}): Promise<McpImport> {
  checkServerSpecs(specs);
  const warnings: string[] = [];
  const skipped: SkippedMcpTool[] = [];
  const started = await Promise.allSettled(
    specs.map(async (spec) =>
      connectServer(spec, {
        ...(isHttpServerSpec(spec) && spec.oauth ? { auth: await oauthProvider(spec, spec.oauth, options) } : {}),
        startTimeoutMs: options.startTimeoutMs ?? 30_000,
        clientName: options.clientName ?? 'ptc-runtime',
        elicitation: (request) => (options.elicitation ?? declineElicitation)(spec.name, request),
        ...(options.onServerStderr ? { onStderr: (line: string) => options.onServerStderr!(spec.name, line) } : {}),
        ...(options.onServerLog ? { onLog: (entry: { level: string; text: string }) => options.onServerLog!(spec.name, entry) } : {}),
        ...(options.onServerExit ? { onExit: (reason: string) => options.onServerExit!(spec.name, reason) } : {}),
      }),
    ),
  );
  const connections = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const closeAll = async () => {
    await Promise.all(connections.map((c) => c.close()));
  };
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await closeAll();
    throw failed.reason;
  }
  const ok = connections.map((conn, i) => ({ conn, name: specs[i]!.name, tools: mapServer(specs[i]!.name, conn, options, warnings, skipped) }));
  // Two tools whose names map to one `tools.<callable>` (`fs.a-b`, `fs.a_b`) cannot both be
  // called from a program: keep the first, list the other in `skipped`.
  const byCallable = new Map<string, string>();
  for (const server of ok) {
    server.tools = server.tools.filter((tool) => {
      const callable = callableNameOf(tool.name);
      const taken = byCallable.get(callable);
      if (taken === undefined) return byCallable.set(callable, tool.name), true;
      skipped.push({ server: server.name, tool: tool.name.slice(server.name.length + 1), reason: `its program name tools.${callable} is taken by ${taken}` });
      return false;
    });
  }
  const tools = ok.flatMap((s) => s.tools);
  const serverOf = new Map(ok.flatMap((s) => s.tools.map((t) => [t, s.name] as const)));
  let closed = false;
  return {
    tools,
    servers: ok.map((s) => ({
      name: s.name,
      ...(s.conn.info?.name ? { serverName: s.conn.info.name } : {}),
      ...(s.conn.info?.version ? { version: s.conn.info.version } : {}),
      toolCount: s.tools.length,
      transport: s.conn.transport,
    })),
    warnings,
    skipped,
    register(host) {
      const hostNames = new Set<string>();
      const hostCallables = new Map<string, string>();
      for (const t of host.tools()) {
        hostNames.add(t.name);
        hostCallables.set(callableNameOf(t.name), t.name);
      }
      const keep = tools.filter((tool) => {
        const server = serverOf.get(tool)!;
        const owner = hostNames.has(tool.name) ? tool.name : hostCallables.get(callableNameOf(tool.name));
        if (owner === undefined) return true;
        const reason = owner === tool.name ? `the host already has a tool named ${owner}` : `its program name tools.${callableNameOf(tool.name)} is the host's tool ${owner}`;
        skipped.push({ server, tool: tool.name.slice(server.length + 1), reason });
        return false;
      });
      return host.register(keep);
    },
    async close() {
      if (closed) return;
      closed = true;
      await closeAll();
    },
  };
}
