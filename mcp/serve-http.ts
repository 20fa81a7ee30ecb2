/**
 * `serveMcpHttp`: the MCP server of `createMcpServer` over Streamable HTTP (the SDK's
 * `StreamableHTTPServerTransport` on `node:http`).
 *
 * Safe by default:
 * - it listens on loopback (`127.0.0.1`) unless told otherwise, and refuses to listen anywhere
 *   else without an `authToken`: anyone who reaches the port can run programs against the host;
 * - with a token, every request needs `Authorization: Bearer <token>`; a wrong or missing one is
 *   401 (compared in constant time, on digests so the length leaks nothing either);
 * - DNS rebinding: a `Host` header that is not the address served (on a wildcard address, any
 *   of the machine's addresses and its host name; or one of `allowedHosts`), and an `Origin`
 *   header that is not one of those origins (or `allowedOrigins`), are 403, before the body is read;
 * - a request body over {@link MAX_STDIO_MESSAGE_BYTES} is 413 (the stdio transport's cap), a
 *   body that is not JSON 400;
 * - before any of that, bounds that hold against a client without the token: sockets in all and
 *   per remote address (connection-guard.ts), the time to send the headers, the whole request
 *   and to stay idle between requests (http-bounds.ts).
 *
 * Stateless by default: a fresh server and transport per request (`sessionIdGenerator:
 * undefined`), nothing kept between requests, so N replicas behind any load balancer serve the
 * same clients with no session affinity. That is the way past one machine (DESIGN.md, "Past one
 * machine"). Approval through elicitation cannot work statelessly: the server asks the client
 * mid-call and the client's answer arrives as another request, which must reach the server that
 * asked. `stateful: true` keeps sessions (`Mcp-Session-Id`, capped in all and per client, the
 * least recently used idle one giving way to a new one, ended when idle: http-sessions.ts);
 * `approval` turns it on (and `stateful: false` beside it is refused: http-options.ts). Stateful
 * replicas need sticky sessions.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { hostname as osHostname, networkInterfaces } from 'node:os';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ConnectionGuard } from './connection-guard.js';
import { McpConfigError } from './errors.js';
import { resolveHttpBounds } from './http-bounds.js';
import { resolveListenOptions } from './http-options.js';
import { SessionTable } from './http-sessions.js';
import { errorText } from '../tools/index.js';
import { checkAgentId, checkLogLevel, createMcpServer, MAX_STDIO_MESSAGE_BYTES, type McpServeOptions } from './serve.js';

/** Options of {@link serveMcpHttp}. */
export interface McpHttpServeOptions extends McpServeOptions {
  /** Port to listen on, 0-65535 (default 0: a free one; read it from `url`). */
  readonly port?: number;
  /** Interface to listen on: an IP address or host name (default `127.0.0.1`). Anything but loopback requires `authToken`. */
  readonly hostname?: string;
  /** Endpoint path (default `/mcp`): starts with `/`, no query or fragment; other paths are 404. */
  readonly path?: string;
  /** Bearer token every request must carry. Required off loopback (or `authenticate`). Never logged. */
  readonly authToken?: string;
  /**
   * Decides who a request is, instead of one shared `authToken`: resolves to the principal (its
   * `agent` is the identity spills, durable runs, jobs and fairness key on, in place of the
   * client's self-declared name), or undefined to refuse with 401. A session of a stateful server
   * belongs to the principal that started it; a request of another principal gets 404 for it,
   * and the per-client session cap counts by principal. Not with `authToken`. A throw is a 401,
   * reported to `onError`.
   */
  readonly authenticate?: (request: McpHttpRequestInfo) => McpPrincipal | undefined | Promise<McpPrincipal | undefined>;
  /**
   * Further `Host` header values accepted (a public name behind a proxy: `mcp.example.com` or
   * `mcp.example.com:443`); their `http(s)://` origins are accepted as `Origin` too.
   */
  readonly allowedHosts?: readonly string[];
  /** Further `Origin` values accepted (a browser client served from elsewhere: `http://localhost:6274`). */
  readonly allowedOrigins?: readonly string[];
  /**
   * Keep sessions. Default: false (stateless), or true when `approval` is given, since approval
   * through elicitation needs them (`false` with `approval` is an InvalidOptionError saying so).
   */
  readonly stateful?: boolean;
  /**
   * Most sessions at once when stateful (default 100). A new one past it takes the place of the
   * least recently used idle session (no POST being answered); 503 only when all are busy.
   */
  readonly maxSessions?: number;
  /**
   * Most sessions of one client (its `authenticate` principal, else its remote address) when stateful (default 20, at most
   * `maxSessions`). A new one past it takes the place of that client's least recently used idle
   * session; 503 only when all of them are busy.
   */
  readonly maxSessionsPerClient?: number;
  /** A stateful session unused this long is closed (default 10 minutes). */
  readonly sessionIdleMs?: number;
  /**
   * Most open sockets (default 512, or half the process's open-file limit when that is lower).
   * Past it the oldest socket that has not yet carried an accepted request is closed, else the
   * one idle longest; a socket with a request in flight never is (the newcomer is, if all are).
   */
  readonly maxConnections?: number;
  /** Most open sockets from one remote address (default 64, at most `maxConnections`); past it, as above among that address's sockets. */
  readonly maxConnectionsPerAddress?: number;
  /** Time from a socket's accept (or its last request's end) to its complete request headers, ms (default 10 s); then 408 and closed. */
  readonly headersTimeoutMs?: number;
  /** Time from a request's start to its last body byte, ms (default 30 s, at least `headersTimeoutMs`); then 408 and closed. The answer is not bounded by it. */
  readonly requestTimeoutMs?: number;
  /** A keep-alive socket with no request in flight is closed after this long, ms (default 5 s). */
  readonly keepAliveTimeoutMs?: number;
  /** Transport errors (a request that could not be handled); default: dropped. Text from clients is in them. */
  readonly onError?: (error: Error) => void;
}

/** What `authenticate` sees of a request: its headers (the credential is in them) and where it came from. */
export interface McpHttpRequestInfo {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly remoteAddress: string;
}

/** Who a request is, from `authenticate`. */
export interface McpPrincipal {
  /** The agent id calls run for (1-200 printable characters). */
  readonly agent: string;
}

/** A running HTTP server. */
export interface McpHttpServer {
  /** `http://<hostname>:<port><path>`, the endpoint clients use. */
  readonly url: string;
  /** Stops listening, ends every session and open request. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

function rpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: status === 400 ? -32700 : -32000, message }, id: null }));
}

/** Reads the body, refusing more than `max` bytes; undefined when refused (the answer is sent). */
async function readBody(req: IncomingMessage, res: ServerResponse, max: number): Promise<unknown | undefined> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  const tooLarge = () => rpcError(res, 413, `the request body is over ${max} bytes, the most one MCP message may be`, { connection: 'close' });
  if (declared > max) {
    tooLarge();
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      tooLarge();
      req.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    rpcError(res, 400, 'the request body is not JSON');
    return undefined;
  }
}

/**
 * Serves the host's `run_code` (and with `exposeTools` its tools) over Streamable HTTP until
 * `close()`. Rejects with an `InvalidOptionError` for a bad `port`, `hostname`, `path`,
 * `stateful`, `maxSessions` or `sessionIdleMs` (http-options.ts), with {@link McpConfigError} for an unsafe setup (off loopback
 * without a token, a short token) and when the port cannot be bound.
 */
export async function serveMcpHttp(options: McpHttpServeOptions): Promise<McpHttpServer> {
  const { hostname, port: requestedPort, path, stateful, maxSessions, sessionIdleMs: idleMs } = resolveListenOptions(options);
  const bounds = resolveHttpBounds(options as unknown as Record<string, unknown>, maxSessions);
  checkLogLevel('serveMcpHttp', options.logLevel);
  if (options.authenticate !== undefined && typeof options.authenticate !== 'function') throw new McpConfigError('serveMcpHttp', 'authenticate must be a function');
  if (options.authenticate && options.authToken !== undefined) throw new McpConfigError('serveMcpHttp', 'give authToken or authenticate, not both');
  if (!isLoopback(hostname) && !options.authToken && !options.authenticate) {
    throw new McpConfigError('serveMcpHttp', `listening on ${hostname} (not loopback) needs an authToken or authenticate: anyone who can reach the port could run programs against this host`);
  }
  if (options.authToken !== undefined && (typeof options.authToken !== 'string' || options.authToken.length < 16)) throw new McpConfigError('serveMcpHttp', 'authToken must be a string of at least 16 characters');
  const token = options.authToken === undefined ? undefined : digest(options.authToken);
  const report = options.onError ?? (() => {});
  const sessions = new SessionTable({ maxSessions, maxSessionsPerClient: bounds.maxSessionsPerClient });
  const guard = new ConnectionGuard(bounds);
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();

  /** The request's principal: `{}` when no identity is bound (a shared token, or none); undefined when refused. */
  const principalOf = async (req: IncomingMessage): Promise<Partial<McpPrincipal> | undefined> => {
    if (options.authenticate) {
      let principal: McpPrincipal | undefined;
      try {
        principal = await options.authenticate({ headers: req.headers, remoteAddress: req.socket.remoteAddress ?? '(unknown)' });
      } catch (err) {
        report(err instanceof Error ? err : new Error(errorText(err)));
        return undefined;
      }
      if (principal === undefined) return undefined;
      checkAgentId(principal?.agent, 'serveMcpHttp authenticate');
      return { agent: principal.agent };
    }
    if (!token) return {};
    const header = req.headers.authorization ?? '';
    const match = /^Bearer (.+)$/.exec(header);
    return timingSafeEqual(digest(match?.[1] ?? ''), token) && match !== null ? {} : undefined;
  };
  const serverFor = (principal: Partial<McpPrincipal>) => createMcpServer(principal.agent === undefined ? options : { ...options, agent: principal.agent });

  const statelessRequest = async (req: IncomingMessage, res: ServerResponse, body: unknown, principal: Partial<McpPrincipal>) => {
    const mcp = serverFor(principal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    transport.onerror = report;
    res.on('close', () => {
      void transport.close().catch(() => {});
      void mcp.close().catch(() => {});
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const statefulRequest = async (req: IncomingMessage, res: ServerResponse, body: unknown, principal: Partial<McpPrincipal>) => {
    const id = req.headers['mcp-session-id'];
    // With `authenticate`, a client is its principal; else its address (every holder of the one
    // token is alike).
    const client = principal.agent !== undefined ? `agent:${principal.agent}` : `address:${req.socket.remoteAddress ?? '(unknown)'}`;
    if (typeof id === 'string') {
      const session = sessions.peek(id);
      // Another principal's session reads as no session at all.
      if (!session || (principal.agent !== undefined && session.client !== client)) return rpcError(res, 404, 'Session not found');
      sessions.use(id);
      if (req.method === 'POST') {
        // A GET stream alone is not work: a session holding only that stays evictable.
        sessions.work(session, true);
        res.once('close', () => sessions.work(session, false));
      }
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) return rpcError(res, 400, 'Bad Request: no session; start one with initialize');
    const sid = randomUUID();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sid,
      onsessionclosed: (closedId) => void sessions.delete(closedId),
    });
    const refused = sessions.reserve(sid, client, transport);
    if (refused !== undefined) return rpcError(res, 503, refused);
    const mcp = serverFor(principal);
    transport.onerror = report;
    transport.onclose = () => {
      sessions.delete(sid);
      void mcp.close().catch(() => {});
    };
    res.once('close', () => {
      const entry = sessions.use(sid);
      if (!entry) return;
      // An initialize that did not start the session gives its slot back.
      if (transport.sessionId === undefined) return void transport.close().catch(() => {});
      sessions.work(entry, false);
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://request.invalid');
    const host = req.headers.host ?? '';
    if (!allowedHosts.has(host.toLowerCase())) return rpcError(res, 403, 'Forbidden: the Host header is not an address this server serves (a public name must be in allowedHosts, --allowed-host on the CLI)');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) return rpcError(res, 403, 'Forbidden: the Origin header is not allowed');
    if (url.pathname !== path) return rpcError(res, 404, `Not found: the MCP endpoint is ${path}`);
    const principal = await principalOf(req);
    if (!principal) return rpcError(res, 401, 'Unauthorized: a valid bearer token is required', { 'www-authenticate': 'Bearer' });
    guard.trust(req.socket);
    if (!stateful && req.method !== 'POST') return rpcError(res, 405, 'Method not allowed: this server is stateless (POST only)', { allow: 'POST' });
    const body = req.method === 'POST' ? await readBody(req, res, MAX_STDIO_MESSAGE_BYTES) : undefined;
    if (req.method === 'POST' && body === undefined) return;
    await (stateful ? statefulRequest(req, res, body, principal) : statelessRequest(req, res, body, principal));
  };

  // Node enforces the headers and request times by a sweep every `connectionsCheckingInterval`
  // (30 s unless told): at most a quarter of headersTimeoutMs here, so a bound holds promptly.
  // requestTimeout ends when the request's body has arrived: long SSE answers are not cut.
  const server = createServer(
    { headersTimeout: bounds.headersTimeoutMs, requestTimeout: bounds.requestTimeoutMs, keepAliveTimeout: bounds.keepAliveTimeoutMs, connectionsCheckingInterval: bounds.checkIntervalMs },
    (req, res) => {
      const socket = req.socket;
      guard.requestStarted(socket);
      res.once('close', () => guard.requestEnded(socket));
      handle(req, res).catch((err: unknown) => {
        report(err instanceof Error ? err : new Error(errorText(err)));
        rpcError(res, 500, 'Internal error');
      });
    },
  );
  server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  server.on('connection', (socket: Socket) => guard.admit(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new McpConfigError('serveMcpHttp', `cannot listen on ${hostname}:${requestedPort} (${(err as NodeJS.ErrnoException).code ?? err.message})`)));
    server.listen(requestedPort, hostname, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = hostname.includes(':') ? `[${hostname}]` : hostname;
  const names = [`${shown}:${port}`, ...(isLoopback(hostname) ? [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`] : [])];
  if (hostname === '0.0.0.0' || hostname === '::') {
    // Listening everywhere: the machine's own addresses and name are what clients use.
    const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => (a.family === 'IPv6' ? `[${a.address}]` : a.address)));
    names.push(...[...addresses, osHostname(), 'localhost'].map((a) => `${a}:${port}`));
  }
  for (const extra of options.allowedHosts ?? []) names.push(extra, ...(extra.includes(':') ? [] : [`${extra}:80`, `${extra}:443`]));
  allowedHosts = new Set(names.map((n) => n.toLowerCase()));
  // An Origin omits the scheme's default port.
  allowedOrigins = new Set([...names.flatMap((n) => [`http://${n}`.replace(/:80$/, ''), `https://${n}`.replace(/:443$/, '')]), ...(options.allowedOrigins ?? [])].map((o) => o.toLowerCase()));
  const sweep = stateful
    ? setInterval(() => {
        for (const s of sessions.idleLongerThan(idleMs)) void s.transport.close().catch(() => {});
      }, Math.min(idleMs, 60_000)).unref()
    : undefined;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${shown}:${port}${path}`,
    close() {
      closed ??= (async () => {
        if (sweep) clearInterval(sweep);
        guard.stop();
        await Promise.all(sessions.all().map((s) => s.transport.close().catch(() => {})));
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}
