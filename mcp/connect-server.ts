/**
 * One server, connected: the SDK's `Client` over stdio or HTTP, its tool list, what it streams at
 * us held at a fixed cost, and whether it is still there.
 *
 * What a server can make this process do is bounded here:
 * - no regex of the server's runs on the host. The SDK's `Client` would compile each tool's
 *   `outputSchema` (with Ajv) and check `structuredContent` against it on this thread, `pattern`s
 *   included: one `^(a+)+$` froze the host for minutes. It gets {@link acceptAnyStructuredContent}
 *   instead; our pipeline checks the value against the converted schema, patterns dropped;
 * - stderr and log notifications go to a fixed-size tail and to opt-in sinks, cut into lines of
 *   bounded length (server-output.ts); stdout lines are capped by the SDK (10 MiB), HTTP bodies
 *   by http-client.ts;
 * - start-up (connect and every page of `tools/list`) has a deadline and a page count;
 * - a server that goes away after start (exits, is killed, or sends a line over the cap, which
 *   makes the SDK close the connection) is reported once through `onExit` with the reason
 *   ("exited with code 3"), and {@link ServerConnection.gone} says it to each call that fails.
 *   It is not restarted.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { describeServer, isHttpServerSpec, type McpServerSpec } from './config.js';
import { McpAuthError, McpServerStartError } from './errors.js';
import type { McpOAuthProvider } from './oauth.js';
import { errorText, redactSecrets } from '../tools/index.js';
import { connectHttp } from './http-client.js';
import { LineSplitter, MAX_LINE_CHARS, OutputTail } from './server-output.js';

/** A tool as a server lists it. */
export type McpListedTool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

/** Most tools read from one server; the rest are listed as skipped. */
export const MAX_TOOLS_PER_SERVER = 1_000;
const MAX_LIST_PAGES = 100;
/** The SDK's stdio line cap, named so a death report can say it. */
const STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/** Hooks of {@link connectServer}. */
export interface ConnectOptions {
  readonly startTimeoutMs: number;
  readonly clientName: string;
  readonly onStderr?: (line: string) => void;
  readonly onLog?: (entry: { readonly level: string; readonly text: string }) => void;
  readonly onExit?: (reason: string) => void;
  /** Answers the server's elicitation requests (see `ImportMcpOptions.elicitation`). */
  readonly elicitation: (request: ElicitRequest['params']) => Promise<ElicitResult>;
  /** OAuth for an HTTP server (its spec has `oauth`). */
  readonly auth?: McpOAuthProvider;
}

/** A connected server. */
export interface ServerConnection {
  readonly client: Client;
  readonly listed: readonly McpListedTool[];
  /** True when the server listed more than {@link MAX_TOOLS_PER_SERVER} tools. */
  readonly truncated: boolean;
  readonly info?: { readonly name?: string; readonly version?: string };
  readonly transport: 'stdio' | 'streamable-http' | 'sse';
  /** Why the server is gone ("exited with code 3"), once it is. */
  gone(): string | undefined;
  /** Secret values messages about this server must not show (its OAuth tokens, client secret, codes). */
  secretValues(): readonly string[];
  /** After a call failed for want of authorization and a person logged in: exchanges the login's code; true when the call can be sent again. */
  finishAuth(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A validator for the SDK's `Client` that compiles nothing and accepts every value: the
 * pipeline validates `structuredContent` against the tool's converted output schema (regexes
 * dropped), so the server's patterns never run here.
 */
export const acceptAnyStructuredContent: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

function exitReason(exit: { code: number | null; signal: NodeJS.Signals | null } | undefined, lastError: string | undefined): string {
  if (lastError && /ReadBuffer exceeded maximum size/.test(lastError)) return `sent a message over ${STDIO_MESSAGE_BYTES} bytes (the most one stdio message may be), so the connection was closed and the server stopped`;
  if (exit?.signal) return `was killed by ${exit.signal}`;
  if (exit && exit.code !== null) return `exited with code ${exit.code}`;
  return 'closed the connection';
}

/** Starts (stdio) or reaches (HTTP) one server and lists its tools. Throws {@link McpServerStartError}. */
export async function connectServer(spec: McpServerSpec, options: ConnectOptions): Promise<ServerConnection> {
  const tail = new OutputTail();
  const lines = options.onStderr ? new LineSplitter(options.onStderr) : undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let lastError: string | undefined;
  let gone: string | undefined;
  let started = false;
  let closing = false;

  const client = new Client({ name: options.clientName, version: '0.1.0' }, { jsonSchemaValidator: acceptAnyStructuredContent, capabilities: { elicitation: { form: { applyDefaults: true } } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => options.elicitation(request.params));
  if (options.onLog) {
    const onLog = options.onLog;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      const data = n.params.data;
      const text = typeof data === 'string' ? data : (JSON.stringify(data) ?? String(data));
      onLog({ level: String(n.params.level).slice(0, 20), text: text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text });
    });
  }
  const watch = (transport: Transport) => {
    transport.onerror = (error: Error) => {
      lastError = String(error?.message ?? error).slice(0, 500);
    };
    transport.onclose = () => {
      lines?.end();
      if (!started || closing || gone) return;
      gone = exitReason(exit, lastError);
      options.onExit?.(gone);
    };
  };

  let transportKind: ServerConnection['transport'] = 'stdio';
  let finishAuth: () => Promise<boolean> = async () => false;
  const secretValues = () => options.auth?.secretValues() ?? [];
  let stderrDone: Promise<void> = Promise.resolve();
  /** Bytes of stderr read so far: a pipe still being read is still worth waiting for. */
  let stderrRead = 0;
  const connect = async () => {
    if (isHttpServerSpec(spec)) {
      const http = await connectHttp(client, spec, watch, options.auth);
      transportKind = http.kind;
      finishAuth = http.finishAuth;
      return;
    }
    const transport = new StdioClientTransport({
      command: spec.command,
      args: [...(spec.args ?? [])],
      // The SDK adds its safe default environment (PATH, HOME, ...) beneath these.
      ...(spec.env ? { env: { ...spec.env } } : {}),
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      stderr: 'pipe',
    });
    const stderr = transport.stderr as Readable | null;
    stderr?.on('data', (chunk: Buffer) => {
      stderrRead += chunk.length;
      tail.push(chunk);
      lines?.push(chunk);
    });
    // A start error quotes the end of stderr, which may still be in the pipe when the process is gone.
    stderrDone = new Promise<void>((resolve) => {
      stderr?.once('end', resolve).once('close', resolve);
    });
    // The SDK reports a close without its exit status; the child process it keeps has it.
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      (transport as unknown as { _process?: ChildProcess })._process?.once('exit', (code, signal) => {
        exit = { code, signal };
      });
    };
    watch(transport);
    await client.connect(transport);
  };

  // A server may let `initialize` through and ask for authorization at `tools/list` (the SDK
  // then sends a person to log in and throws): exchange the login's code and list again.
  const listPage = async (cursor: string | undefined) => {
    for (let round = 0; ; round++) {
      try {
        return await client.listTools(cursor ? { cursor } : undefined);
      } catch (err) {
        if (round >= 2 || !(err instanceof UnauthorizedError) || !(await finishAuth())) throw err;
      }
    }
  };

  const timeoutMs = options.startTimeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The deadline does not run while a person logs in (OAuth): it is re-armed until the login ends.
  const timeout = new Promise<never>((_, reject) => {
    const arm = () => {
      timer = setTimeout(() => (options.auth?.waitingForPerson ? arm() : reject(new Error(`no answer within ${timeoutMs} ms`))), timeoutMs);
    };
    arm();
  });
  try {
    await Promise.race([connect(), timeout]);
    const listed: McpListedTool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await Promise.race([listPage(cursor), timeout]);
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && listed.length <= MAX_TOOLS_PER_SERVER && ++pages < MAX_LIST_PAGES);
    started = true;
    const info = client.getServerVersion();
    return {
      client,
      listed: listed.slice(0, MAX_TOOLS_PER_SERVER),
      truncated: listed.length > MAX_TOOLS_PER_SERVER,
      ...(info ? { info: { ...(info.name ? { name: info.name } : {}), ...(info.version ? { version: info.version } : {}) } } : {}),
      transport: transportKind,
      gone: () => gone,
      secretValues,
      finishAuth: () => finishAuth(),
      async close() {
        closing = true;
        await client.close().catch(() => {});
      },
    };
  } catch (err) {
    closing = true;
    // A server that failed may still have the end of its stderr in the pipe (the line saying
    // why): read it before closing the transport, which drops what is unread. A server still
    // alive (a start timeout) ends it only when closed, after at most a second. One that has
    // exited ends it once the pipe is read, which after 48 MB of stderr on a loaded machine took
    // over 10 s: wait while the pipe is still giving bytes (three seconds in a row without any
    // end the wait: a starved host thread under a full test run went one second without), up
    // to 60 s. Its exit may be reported only after the error that brought us here, so look again.
    const drainedWithin = (ms: number) => Promise.race([stderrDone.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref())]);
    let drained = await drainedWithin(1_000);
    for (let waited = 1_000, seen = -1, still = 0; !drained && exit !== undefined && still < 3 && waited < 60_000; waited += 1_000) {
      still = stderrRead === seen ? still + 1 : 0;
      seen = stderrRead;
      drained = await drainedWithin(1_000);
    }
    await client.close().catch(() => {});
    if (!drained) await drainedWithin(1_000);
    const problem = exit && exit.code !== null ? `${errorText(err)} (it exited with code ${exit.code})` : errorText(err);
    const values = secretValues();
    const problemText = redactSecrets(problem, { values });
    if (McpAuthError.isInstance(err)) throw new McpAuthError(spec.name, problemText.replace(`MCP server "${spec.name}": `, ''));
    throw new McpServerStartError(spec.name, describeServer(spec), problemText, redactSecrets(tail.text(), { values }));
  } finally {
    clearTimeout(timer);
  }
}
