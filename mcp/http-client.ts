/**
 * The client side of a remote server: the SDK's `StreamableHTTPClientTransport`, falling back
 * to its `SSEClientTransport` when the server refuses the current transport with a 4xx (the
 * SDK's advice for servers that predate it), with a `fetch` that bounds what the server sends.
 *
 * A server can answer with an endless body, or one SSE event that never ends; the SDK would
 * buffer either whole. {@link boundedFetch} errors the body once a JSON answer passes
 * {@link MAX_HTTP_MESSAGE_BYTES}, or once one SSE event does (a stream of small events may go
 * on: it is how notifications arrive). Redirects stay within the server's origin (the SDK's
 * default `redirectPolicy`), so header values are never sent to another host.
 *
 * Header values are secrets: the transports get them, messages never do (errors name the url,
 * redacted, and the HTTP status).
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpHttpServerSpec } from './config.js';
import type { McpOAuthProvider } from './oauth.js';

/** Largest JSON answer, or one SSE event, read from an HTTP server (as stdio's line cap). */
export const MAX_HTTP_MESSAGE_BYTES = 10 * 1024 * 1024;

type Fetch = typeof fetch;

/** A body that errors once it passes the cap (per event for `text/event-stream`). */
function boundedBody(body: ReadableStream<Uint8Array>, perEvent: boolean, maxBytes: number): ReadableStream<Uint8Array> {
  let size = 0;
  let newline = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (!perEvent) {
          size += chunk.length;
        } else {
          // An SSE event ends at a blank line; count the bytes since the last one.
          for (let i = 0; i < chunk.length; i++) {
            const byte = chunk[i]!;
            if (byte === 0x0a) {
              if (newline) size = 0;
              newline = true;
            } else if (byte !== 0x0d) {
              newline = false;
              size++;
            }
          }
        }
        if (size > maxBytes) controller.error(new Error(`the server sent ${perEvent ? 'an event' : 'an answer'} over ${maxBytes} bytes; it was not read`));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** `fetch` whose response bodies are bounded (see the file note). */
export function boundedFetch(inner: Fetch = fetch, maxBytes = MAX_HTTP_MESSAGE_BYTES): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    const perEvent = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    return new Response(boundedBody(response.body, perEvent, maxBytes), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** HTTP status of an SDK transport error, when it has one. */
function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'number' && code >= 100 && code < 600) return code;
  const match = /\bHTTP (\d{3})\b|\(HTTP (\d{3})\)|status(?: code)? (\d{3})/i.exec((err as Error)?.message ?? '');
  const text = match?.[1] ?? match?.[2] ?? match?.[3];
  return text ? Number(text) : undefined;
}

/** The `scope` a 403 `insufficient_scope` answer names, if it is one. */
function insufficientScope(response: Response): { scope: string | undefined } | undefined {
  if (response.status !== 403) return undefined;
  const header = response.headers.get('www-authenticate') ?? '';
  if (!/error="?insufficient_scope/i.test(header)) return undefined;
  return { scope: /scope="([^"]*)"/i.exec(header)?.[1] };
}

/** The url a request went to, without its query (to tell the MCP endpoint from the authorization server). */
function endpoint(input: Parameters<Fetch>[0]): string {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  try {
    const u = new URL(href);
    u.search = '';
    u.hash = '';
    return u.href;
  } catch {
    return href;
  }
}

/** What to say when a server answers 401 and no OAuth is configured. */
export function oauthHint(server: string): string {
  return `the server answered HTTP 401: this server needs authorization. If it uses OAuth, set "oauth": true in its mcp.json entry (oauth: true in importMcpServers) and run "ptc mcp login ${server}"; otherwise give its token as a header`;
}

/** A connected HTTP transport. */
export interface HttpConnection {
  readonly kind: 'streamable-http' | 'sse';
  /**
   * After a call failed for want of authorization while a person logged in (step-up, or a
   * refresh the server refused): exchanges the code the login left. True when there was one,
   * so the call can be sent again.
   */
  finishAuth(): Promise<boolean>;
}

type AuthTransport = Transport & { finishAuth(code: string): Promise<void> };

/**
 * Connects `client` to the server at `spec.url`: Streamable HTTP, then SSE if that was refused
 * with a 4xx (or SSE only when `spec.transport` is `'sse'`). Throws an error naming both answers
 * when neither works. With `auth`, the transports authorize with it; a login that a person
 * completed during the connection is exchanged for tokens and the connection is made again.
 */
export async function connectHttp(client: Client, spec: McpHttpServerSpec, onTransport: (t: Transport) => void, auth?: McpOAuthProvider): Promise<HttpConnection> {
  const headers = { ...(spec.headers ?? {}) };
  const url = new URL(spec.url);
  const bounded = boundedFetch();
  const mcpEndpoint = endpoint(url);
  const fetchImpl: Fetch = auth
    ? async (input, init) => {
        const response = await bounded(input, init);
        const refused = insufficientScope(response);
        // Throws (McpAuthError naming the scope) when a step-up already asked for it.
        if (refused) auth.noteInsufficientScope(refused.scope);
        else if (response.ok && endpoint(input) === mcpEndpoint) auth.noteAnswered();
        return response;
      }
    : bounded;
  const authOption = auth ? { authProvider: auth } : {};
  let current: AuthTransport | undefined;
  const finishAuth = async () => {
    const code = auth?.takeCode();
    if (!code || !current) return false;
    await current.finishAuth(code);
    return true;
  };
  const connectWith = async (make: () => AuthTransport): Promise<void> => {
    // A login finished during the attempt: exchange its code, then connect again (twice at most:
    // a step-up at start-up may need a second login).
    for (let round = 0; ; round++) {
      const transport = make();
      current = transport;
      onTransport(transport);
      try {
        await client.connect(transport);
        return;
      } catch (err) {
        if (!auth || !(err instanceof UnauthorizedError) || round >= 2) throw err;
        const code = auth.takeCode();
        if (!code) throw err;
        await transport.finishAuth(code);
        await transport.close().catch(() => {});
      }
    }
  };
  const sse = async () => {
    await connectWith(() => new SSEClientTransport(url, { requestInit: { headers }, fetch: fetchImpl, ...authOption }));
    return { kind: 'sse' as const, finishAuth };
  };
  if (spec.transport === 'sse') return sse();
  try {
    await connectWith(() => new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: fetchImpl, ...authOption }));
    return { kind: 'streamable-http', finishAuth };
  } catch (err) {
    const status = statusOf(err);
    if (status === 401 && !auth) throw new Error(oauthHint(spec.name));
    if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 403) throw err;
    await current?.close().catch(() => {});
    try {
      return await sse();
    } catch (sseErr) {
      throw new Error(`it refused Streamable HTTP (HTTP ${status}) and the older SSE transport failed too (${(sseErr as Error)?.message ?? String(sseErr)})`);
    }
  }
}
