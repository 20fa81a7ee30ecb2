/**
 * `createMcpServer`: a host's `run_code` (and, when asked, its tools) as an MCP server. Every
 * call goes through `host.call`, so the host's listeners, guards, approval and events govern MCP
 * clients exactly as they govern a model.
 *
 * Mapping of a `ToolResult` to an MCP `CallToolResult`:
 * - canonical value -> `structuredContent`. MCP requires an object there, so a value that is not
 *   a JSON object (a string, array, number, null) is wrapped as `{ "result": value }`, and the
 *   declared `outputSchema` says so. A tool with an output schema is wrapped by its schema, not
 *   by each value: when the schema is not exactly an object (a nullable object, a union), every
 *   value is wrapped, objects too, so values always match the schema the client was given;
 * - rendered content -> `content` (text, image, audio, resource and resource_link blocks as they are);
 * - `isError` -> `isError` (denials, blocks and failures; their message is in `content`).
 *
 * Approval: calls run for the agent `options.agent`, else `{ id: 'mcp:<client name>' }`. An `ask` goes to the host's
 * approval channel; a host without one (the CLI's default) denies it as unavailable: an ask with
 * no way to ask the user fails closed. {@link mcpApprovalChannel} is a channel that asks the
 * client's user through MCP elicitation (opt-in): allowed once only when the user accepts and
 * ticks "allow"; a client without elicitation, a decline, a cancel or an error denies.
 *
 * We use the SDK's low-level server (through `McpServer.server`) because our tools already carry
 * JSON Schema and are validated by our own pipeline; the SDK's zod-based registration would
 * validate twice with a second copy of the schema.
 */
import type { Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, SetLevelRequestSchema, type CallToolResult, type ServerNotification, type Tool as McpToolShape } from '@modelcontextprotocol/sdk/types.js';
import { InvalidOptionError, LOG_LEVELS, splitSuspension, toModelJsonSchema, visibleText, type LogLevel, type ToolEvent, type ApprovalChannel, type ContentBlock, type JsonValue, type Tool, type ToolHost, type ToolResult } from '../tools/index.js';
import { McpConfigError, McpMessageTooLargeError } from './errors.js';
import { mcpToolMetaOf } from './tool-meta.js';

/** Options of {@link createMcpServer}. */
export interface McpServeOptions {
  /** The host whose tools are served; `run_code` must be registered in it to be served. */
  readonly host: ToolHost;
  /** The name of the run_code tool (default `run_code`). */
  readonly runCodeName?: string;
  /**
   * The name of the tool_search tool (default `tool_search`): when one is registered it is served
   * beside run_code, since run_code's description points to it for a large catalog.
   */
  readonly toolSearchName?: string;
  /**
   * Also expose every other registered tool directly (default false: only run_code, tool_search,
   * spill_read, which run_code registers beside itself so a client's model can page through a
   * spilled output, and run_result, registered beside a durable run_code).
   */
  readonly exposeTools?: boolean;
  /** Server name and version in `initialize` (default `ptc-runtime`, `0.1.0`). */
  readonly serverName?: string;
  readonly serverVersion?: string;
  /** A channel from {@link mcpApprovalChannel} to bind to this server (the host must use it). */
  readonly approval?: McpApprovalChannel;
  /**
   * The agent every call of this server runs for: the identity spills, durable runs, jobs and
   * fairness between agents key on. Default `mcp:<client name>`, a name the client declares
   * itself, so any client can take any other's; `serveMcpHttp`'s `authenticate` sets it from the
   * credential instead, per request.
   */
  readonly agent?: string;
  /**
   * The least severe level of the log notifications sent until the client's `logging/setLevel`
   * (default `debug`: all). A client's level lasts for its session (stdio, or HTTP with
   * sessions); over stateless HTTP every request has its own server, so a `setLevel` lasts for
   * its own request only and this is the level every request gets.
   */
  readonly logLevel?: LogLevel;
}

/** An agent id must be plain text: it names spills, runs and jobs, and is shown to operators. */
export function checkAgentId(agent: unknown, source: string): asserts agent is string {
  if (typeof agent !== 'string' || agent.length === 0 || agent.length > 200 || visibleText(agent) !== agent) {
    throw new McpConfigError(source, 'agent must be a string of 1-200 printable characters');
  }
}

/** Checks {@link McpServeOptions.logLevel}; throws InvalidOptionError naming `where`. */
export function checkLogLevel(where: string, level: unknown): void {
  if (level !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(level)) {
    throw new InvalidOptionError({ where, option: 'logLevel', value: level, expected: `one of ${LOG_LEVELS.join(', ')}` });
  }
}

/** An approval channel answered by the MCP client's user (elicitation); bound to servers later. */
export interface McpApprovalChannel extends ApprovalChannel {
  /** Binds a server whose client may be asked (done by `createMcpServer`); returns the unbinding. */
  bind(server: McpServer): () => void;
  /**
   * Marks `callId` as asked for by `server`'s client (in the MCP request `requestId`), so an ask
   * for it or for a program's child call goes to that client (done by `createMcpServer`, for the
   * HTTP case where many clients share a host); returns the unmarking.
   */
  track(callId: string, asker: { readonly server: McpServer; readonly requestId?: string | number }): () => void;
}

const approvalSchema = () => ({
  type: 'object' as const,
  properties: { allow: { type: 'boolean' as const, title: 'Allow this call once', description: 'Only this call; the next one asks again.' } },
  required: ['allow'],
});

/**
 * An approval channel that asks the MCP client's user through elicitation. Create it before the
 * host (`createToolHost({ approval })`), pass it to `createMcpServer`. Denies whenever asking is
 * impossible or the answer is anything but an accepted `allow: true`.
 */
export function mcpApprovalChannel(): McpApprovalChannel {
  const bound = new Set<McpServer>();
  const calls = new Map<string, { readonly server: McpServer; readonly requestId?: string | number }>();
  return {
    bind(server) {
      bound.add(server);
      return () => void bound.delete(server);
    },
    track(callId, asker) {
      calls.set(callId, asker);
      return () => void calls.delete(callId);
    },
    async request({ execution, reason, signal }) {
      // The client that made the call (or the program's run_code call) is the one asked; with a
      // single bound server (stdio) that is its client.
      const asker =
        calls.get(execution.callId) ??
        (execution.origin.kind === 'ptc' ? calls.get(execution.origin.parentCallId) : undefined) ??
        (bound.size === 1 ? { server: [...bound][0]! } : undefined);
      const server = asker?.server.server;
      if (!server) throw new Error(bound.size === 0 ? 'no MCP client is connected to ask' : 'the call was not made through an MCP client of this server');
      if (!server.getClientCapabilities()?.elicitation) throw new Error('the MCP client cannot be asked (it does not support elicitation)');
      const args = JSON.stringify(execution.args);
      const result = await server.elicitInput(
        {
          mode: 'form',
          message: `Tool call needs approval: ${execution.toolName} ${args.length > 500 ? `${args.slice(0, 499)}…` : args}\nWhy: ${reason}`,
          requestedSchema: approvalSchema(),
        },
        { signal, ...(asker.requestId !== undefined ? { relatedRequestId: asker.requestId } : {}) },
      );
      return result.action === 'accept' && result.content?.allow === true ? 'allow-once' : 'deny';
    },
  };
}

let callCount = 0;

/** run_code's companions (their names are fixed: DESIGN.md "What the model reads", "Durable runs"). */
const SPILL_READ_NAME = 'spill_read';
const RUN_RESULT_NAME = 'run_result';

const isObject = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);

type McpOutput = { schema: McpToolShape['outputSchema']; wrapped: boolean } | undefined;
const outputs = new WeakMap<Tool, McpOutput>();

/** The MCP `outputSchema` of a tool and whether its values are wrapped as `{ result }` (cached per tool). */
function outputSchemaOf(tool: Tool): McpOutput {
  if (!outputs.has(tool)) outputs.set(tool, convertOutputSchema(tool));
  return outputs.get(tool);
}

function convertOutputSchema(tool: Tool): McpOutput {
  if (!tool.output.schema) return undefined;
  let schema: Record<string, unknown>;
  try {
    schema = toModelJsonSchema(tool.output.schema) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (schema.type === 'object') return { schema: schema as McpToolShape['outputSchema'], wrapped: false };
  return { schema: { type: 'object', properties: { result: schema }, required: ['result'] } as McpToolShape['outputSchema'], wrapped: true };
}

/** One block as MCP content: our blocks are MCP's types, copied into plain objects. */
function toMcpContent(b: ContentBlock): CallToolResult['content'][number] {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'image':
    case 'audio':
      return { type: b.type, data: b.data, mimeType: b.mimeType };
    case 'resource':
      return { type: 'resource', resource: { ...b.resource } };
    case 'resource_link':
      return { ...b };
  }
}

/**
 * Maps a pipeline result to an MCP tool result (see the file note). `wrap`: whether the tool's
 * declared output schema wraps values as `{ result }`; without it (no output schema), a value is
 * wrapped when it is not an object.
 */
export function toMcpResult(result: ToolResult, wrap?: boolean): CallToolResult {
  const content = result.content.map(toMcpContent);
  const out: CallToolResult = { content: content.length ? content : [{ type: 'text', text: result.isError ? 'The call failed.' : '' }] };
  if (!result.isError && result.value !== undefined) {
    out.structuredContent = (wrap ?? !isObject(result.value)) ? { result: result.value } : (result.value as Record<string, JsonValue>);
  }
  if (result.isError) out.isError = true;
  return out;
}

/** Creates the server (not yet connected). Connect it to a transport, or use {@link serveMcpStdio}. */
export function createMcpServer(options: McpServeOptions): McpServer {
  const { host } = options;
  if (options.agent !== undefined) checkAgentId(options.agent, 'createMcpServer');
  const runCodeName = options.runCodeName ?? 'run_code';
  const mcp = new McpServer({ name: options.serverName ?? 'ptc-runtime', version: options.serverVersion ?? '0.1.0' }, { capabilities: { logging: {} } });
  const server = mcp.server;
  // Declared here, not in the options: there McpServer adds `listChanged: true`, and we never
  // send list_changed (the tools are listed per request).
  server.registerCapabilities({ tools: {} });
  const unbind = options.approval?.bind(mcp);
  if (unbind) {
    const previous = server.onclose;
    server.onclose = () => {
      unbind();
      previous?.();
    };
  }

  const toolSearchName = options.toolSearchName ?? 'tool_search';
  // spill_read and run_result only beside a served run_code: they read what run_code left.
  const served = (): Tool[] => {
    const tools = host.tools();
    const withRunCode = tools.some((t) => t.name === runCodeName);
    return tools.filter((t) => t.name === runCodeName || t.name === toolSearchName || (withRunCode && (t.name === SPILL_READ_NAME || t.name === RUN_RESULT_NAME)) || options.exposeTools === true);
  };

  // The client's logging/setLevel: the least severe level it wants (default: the server's
  // logLevel, else all). Over stateless HTTP each request has its own server, so a level lasts
  // for its request only.
  checkLogLevel('createMcpServer', options.logLevel);
  let minLevel = options.logLevel ? LOG_LEVELS.indexOf(options.logLevel) : 0;
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minLevel = Math.max(0, LOG_LEVELS.indexOf(request.params.level as LogLevel));
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: served().map((t) => {
      const output = t.name === runCodeName ? undefined : outputSchemaOf(t);
      // An imported tool is re-served with what its server listed: annotations, $schema.
      const meta = mcpToolMetaOf(t);
      return {
        name: t.name,
        description: t.description,
        inputSchema: (meta?.inputSchemaDialect ? { $schema: meta.inputSchemaDialect, ...t.parametersJsonSchema } : t.parametersJsonSchema) as McpToolShape['inputSchema'],
        ...(output ? { outputSchema: output.schema } : {}),
        ...(meta?.annotations ? { annotations: meta.annotations as McpToolShape['annotations'] } : {}),
      };
    }),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const tool = served().find((t) => t.name === name);
    if (!tool) {
      const available = served().map((t) => t.name);
      return { content: [{ type: 'text', text: `Unknown tool "${String(name).slice(0, 200)}". Available tools: ${available.join(', ') || '(none)'}.` }], isError: true };
    }
    const client = server.getClientVersion()?.name ?? 'client';
    // Ids are unique in the process: over HTTP each request has its own server.
    const callId = `mcp-${++callCount}`;
    const untrack = options.approval?.track(callId, { server: mcp, requestId: extra.requestId });
    const progressToken = request.params._meta?.progressToken;
    // Notifications are sent before the result: a client drops progress that comes after it.
    let sending: Promise<unknown> = Promise.resolve();
    const send = (n: ServerNotification) => {
      sending = Promise.all([sending, extra.sendNotification(n).catch(() => {})]);
    };
    const reports = host.onEvent(reportsToClient({ callId, progressToken, minLevel: () => minLevel, send }));
    try {
      const result = await host.call(
        { id: callId, name: tool.name, args: request.params.arguments ?? {} },
        { agent: { id: options.agent ?? `mcp:${String(client).slice(0, 100)}` }, signal: extra.signal },
      );
      reports.dispose();
      await sending;
      if (tool.name !== runCodeName) return toMcpResult(result, outputSchemaOf(tool)?.wrapped);
      // A suspended run's resume token is the app's (an operator resumes with a token of its
      // own: ptc runs approve); the client is a model's, so it never gets one.
      return toMcpResult(splitSuspension(result).result);
    } finally {
      reports.dispose();
      untrack?.();
    }
  });
  return mcp;
}

/**
 * What a call reports while it runs, as MCP notifications on its request's stream: its
 * `tool/progress` as `notifications/progress` (only when the request carried a progressToken);
 * its `tool/log`, and those of the child calls of a program it runs, as `notifications/message`
 * at or above the client's level. A run_code call reports its own progress: how many of the
 * calls its program started have settled.
 */
function reportsToClient(options: {
  readonly callId: string;
  readonly progressToken: string | number | undefined;
  readonly minLevel: () => number;
  readonly send: (notification: ServerNotification) => void;
}): (event: ToolEvent) => void {
  const { callId, progressToken, send } = options;
  const children = new Set<string>();
  let started = 0;
  let settled = 0;
  let lastProgress = Number.NEGATIVE_INFINITY;
  const progress = (params: { progress: number; total?: number; message?: string }) => {
    if (progressToken === undefined || params.progress <= lastProgress) return;
    lastProgress = params.progress;
    send({ method: 'notifications/progress', params: { progressToken, ...params } });
  };
  return (event) => {
    switch (event.type) {
      case 'tool/call':
        if (event.origin.kind === 'ptc' && event.origin.parentCallId === callId) {
          children.add(event.callId);
          started++;
        }
        return;
      case 'tool/result':
        if (children.delete(event.callId)) {
          settled++;
          progress({ progress: settled, message: `${settled} of ${started} calls settled` });
        }
        return;
      case 'tool/progress':
        if (event.callId === callId) progress({ progress: event.progress, ...(event.total !== undefined ? { total: event.total } : {}), ...(event.message !== undefined ? { message: event.message } : {}) });
        return;
      case 'tool/log':
        if ((event.callId === callId || children.has(event.callId)) && LOG_LEVELS.indexOf(event.level) >= options.minLevel()) {
          send({ method: 'notifications/message', params: { level: event.level, logger: event.toolName, data: event.message } });
        }
        return;
      default:
        return;
    }
  };
}

/** The largest message read from the client (the SDK's stdio default, named here so errors can say it). */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * Serves over stdio until the client disconnects (stdin ends) or `signal` aborts; resolves once
 * the server is closed. The SDK's stdio transport does not watch for end of input itself. A
 * message over {@link MAX_STDIO_MESSAGE_BYTES} makes the transport close: that rejects with
 * {@link McpMessageTooLargeError} instead of looking like a client that disconnected. Other
 * transport errors (a line that is not JSON-RPC) go to `onError` (default: a line on stderr).
 */
export async function serveMcpStdio(
  options: McpServeOptions & { readonly signal?: AbortSignal; readonly stdout?: Writable; readonly onError?: (error: Error) => void },
): Promise<void> {
  const mcp = createMcpServer(options);
  const transport = new StdioServerTransport(process.stdin, options.stdout ?? process.stdout, { maxBufferSize: MAX_STDIO_MESSAGE_BYTES });
  let tooLarge = false;
  // The message quotes what the client sent: escaped before it reaches a terminal.
  const report = options.onError ?? ((error: Error) => void process.stderr.write(`ptc mcp serve: ${visibleText(String(error.message).slice(0, 500))}\n`));
  mcp.server.onerror = (error: Error) => {
    // The SDK's words for a message over maxBufferSize (it then closes the transport).
    if (/ReadBuffer exceeded maximum size/.test(error?.message ?? '')) tooLarge = true;
    else report(error);
  };
  const closed = new Promise<void>((resolve) => {
    const previous = mcp.server.onclose;
    mcp.server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  const stop = () => void mcp.close().catch(() => {});
  process.stdin.once('end', stop);
  process.stdin.once('close', stop);
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    await mcp.connect(transport);
    await closed;
  } finally {
    process.stdin.off('end', stop);
    process.stdin.off('close', stop);
    options.signal?.removeEventListener('abort', stop);
  }
  if (tooLarge) throw new McpMessageTooLargeError(MAX_STDIO_MESSAGE_BYTES);
}
