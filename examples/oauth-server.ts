/**
 * A local OAuth 2.1 authorization server in front of a real MCP server, for tests and for trying
 * `ptc mcp login` without a hosted provider. Minimal but real: it serves
 * - protected resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource/mcp`;
 * - authorization server metadata (RFC 8414) at `/.well-known/oauth-authorization-server`;
 * - dynamic client registration (RFC 7591) at `/register`;
 * - `/authorize`: the authorization code grant with PKCE (S256 only, required), an exact
 *   redirect uri match and `state` echoed; the person's consent is `approve` (default: yes);
 * - `/token`: `authorization_code` (the verifier checked against the challenge, a code used
 *   once), `refresh_token` (rotated) and `client_credentials` (confidential clients only);
 * - `/mcp`: a proxy to the upstream MCP server that requires `Authorization: Bearer <token>`
 *   (401 with `WWW-Authenticate: Bearer resource_metadata=…` without a good one; 403
 *   `insufficient_scope` naming the scope when a tool needs one the token lacks). The token is
 *   not passed upstream.
 *
 * Run it: `npx tsx examples/oauth-server.ts` starts server-everything over Streamable HTTP behind
 * it and prints the url to give `ptc mcp login` (docs/mcp.md, "OAuth").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** A client the server knows. */
export interface OAuthTestClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly string[];
}

/** Options of {@link startOAuthServer}. */
export interface OAuthServerOptions {
  /** The MCP server to front (`http://127.0.0.1:3001/mcp`). */
  readonly upstream: string;
  /** Port to listen on (default: a free one). */
  readonly port?: number;
  /** Scopes the server knows; a token gets these unless the request names fewer (default `mcp`). */
  readonly scopes?: readonly string[];
  /** Scopes granted by default (what `scopes_supported` advertises); default: all of `scopes` but those only `toolScopes` name. */
  readonly defaultScopes?: readonly string[];
  /** `tools/call` of a tool here needs this scope as well (403 `insufficient_scope` without it). */
  readonly toolScopes?: Readonly<Record<string, string>>;
  /**
   * The scope a 403 `insufficient_scope` names: `'all'` (default: the token's and the one it
   * lacks) or `'missing'` (only the one it lacks, as some servers do: the client must ask for
   * the union itself).
   */
  readonly stepUpNames?: 'all' | 'missing';
  /** Access token lifetime, s (default 3600). */
  readonly accessTokenTtlSec?: number;
  /** Pre-registered clients. */
  readonly clients?: readonly OAuthTestClient[];
  /** The person's answer at /authorize (default: approve). */
  readonly approve?: (request: { clientId: string; scope: string }) => boolean;
  /** Test only: answer a tools/call with an error that quotes the caller's bearer token (checks a client never shows it). */
  readonly echoTokenInErrors?: boolean;
}

/** A running server. */
export interface OAuthServer {
  /** The issuer (`http://127.0.0.1:PORT`). */
  readonly issuer: string;
  /** The protected MCP endpoint (`http://127.0.0.1:PORT/mcp`). */
  readonly mcpUrl: string;
  /** Every access and refresh token issued (tests check none leaks). */
  readonly issued: readonly string[];
  /** What happened, one word a request: `register`, `authorize`, `token:authorization_code`, `token:refresh_token`, `401`, `403`, ... */
  readonly log: readonly string[];
  /** Makes every access token issued so far expired (the next request with one gets a 401). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

interface Grant {
  readonly clientId: string;
  readonly scope: string;
  readonly resource?: string;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');
const token = () => b64url(randomBytes(32));
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

async function readBody(req: IncomingMessage, max = 1_000_000): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

/** Starts the authorization server and the protected proxy on one port. */
export async function startOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const scopes = options.scopes ?? ['mcp'];
  const toolScopes = options.toolScopes ?? {};
  const defaultScopes = options.defaultScopes ?? scopes.filter((s) => !Object.values(toolScopes).includes(s));
  const ttl = options.accessTokenTtlSec ?? 3600;
  const clients = new Map<string, OAuthTestClient>((options.clients ?? []).map((c) => [c.clientId, c]));
  const codes = new Map<string, Grant & { redirectUri: string; challenge: string }>();
  const access = new Map<string, Grant & { expiresAt: number }>();
  const refresh = new Map<string, Grant>();
  const issued: string[] = [];
  const log: string[] = [];
  let issuer = '';
  const upstream = new URL(options.upstream);

  const prmUrl = () => `${issuer}/.well-known/oauth-protected-resource/mcp`;
  const challenge = (extra = '') => `Bearer ${extra}resource_metadata="${prmUrl()}"`;

  /** The client a token request authenticates as (Basic or post), or a reason it does not. */
  function clientOf(req: IncomingMessage, form: URLSearchParams): OAuthTestClient | string {
    let id = form.get('client_id') ?? undefined;
    let secret = form.get('client_secret') ?? undefined;
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [u, p] = Buffer.from(basic[1]!, 'base64').toString().split(':');
      id = decodeURIComponent(u ?? '');
      secret = decodeURIComponent(p ?? '');
    }
    const client = id ? clients.get(id) : undefined;
    if (!client) return 'unknown client';
    if (client.clientSecret !== undefined && (secret === undefined || !same(secret, client.clientSecret))) return 'bad client secret';
    return client;
  }

  function issue(grant: Grant, withRefresh: boolean) {
    const at = token();
    access.set(at, { ...grant, expiresAt: Date.now() + ttl * 1000 });
    issued.push(at);
    const body: Record<string, unknown> = { access_token: at, token_type: 'Bearer', expires_in: ttl, scope: grant.scope };
    if (withRefresh) {
      const rt = token();
      refresh.set(rt, grant);
      issued.push(rt);
      body.refresh_token = rt;
    }
    return body;
  }

  /** The scope granted for a request: what it names (known scopes only), else the defaults. */
  const grantScope = (asked: string | null) => {
    const wanted = (asked ?? '').split(' ').filter((s) => scopes.includes(s));
    return (wanted.length > 0 ? wanted : defaultScopes).join(' ');
  };

  async function handleToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams((await readBody(req)).toString());
    const client = clientOf(req, form);
    if (typeof client === 'string') return json(res, 401, { error: 'invalid_client', error_description: client });
    const grantType = form.get('grant_type');
    log.push(`token:${grantType}`);
    if (!client.grantTypes.includes(grantType ?? '')) return json(res, 400, { error: 'unauthorized_client' });
    if (grantType === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!code || code.clientId !== client.clientId || code.redirectUri !== form.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant', error_description: 'unknown, used or mismatched code' });
      const verifier = form.get('code_verifier') ?? '';
      if (b64url(createHash('sha256').update(verifier).digest()) !== code.challenge) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      return json(res, 200, issue(code, true));
    }
    if (grantType === 'refresh_token') {
      const rt = form.get('refresh_token') ?? '';
      const grant = refresh.get(rt);
      refresh.delete(rt);
      if (!grant || grant.clientId !== client.clientId) return json(res, 400, { error: 'invalid_grant', error_description: 'unknown or used refresh token' });
      return json(res, 200, issue(grant, true));
    }
    if (grantType === 'client_credentials') {
      if (client.clientSecret === undefined) return json(res, 400, { error: 'unauthorized_client', error_description: 'client_credentials needs a confidential client' });
      return json(res, 200, issue({ clientId: client.clientId, scope: grantScope(form.get('scope')) }, false));
    }
    return json(res, 400, { error: 'unsupported_grant_type' });
  }

  function handleAuthorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const client = clients.get(q.get('client_id') ?? '');
    const redirectUri = q.get('redirect_uri') ?? '';
    // Never redirect to an unregistered uri: answer here.
    if (!client || !client.redirectUris.includes(redirectUri)) return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or unregistered redirect_uri' });
    const back = (params: Record<string, string>) => {
      const to = new URL(redirectUri);
      for (const [k, v] of Object.entries(params)) to.searchParams.set(k, v);
      if (q.get('state') !== null) to.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { location: to.href }).end();
    };
    if (q.get('response_type') !== 'code') return back({ error: 'unsupported_response_type' });
    if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) return back({ error: 'invalid_request', error_description: 'PKCE with S256 is required' });
    const scope = grantScope(q.get('scope'));
    log.push('authorize');
    if (options.approve && !options.approve({ clientId: client.clientId, scope })) return back({ error: 'access_denied' });
    const code = token();
    codes.set(code, { clientId: client.clientId, scope, redirectUri, challenge: q.get('code_challenge')!, ...(q.get('resource') ? { resource: q.get('resource')! } : {}) });
    back({ code });
  }

  async function handleRegister(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let meta: Record<string, unknown>;
    try {
      meta = JSON.parse((await readBody(req)).toString()) as Record<string, unknown>;
    } catch {
      return json(res, 400, { error: 'invalid_client_metadata' });
    }
    const redirectUris = Array.isArray(meta.redirect_uris) ? meta.redirect_uris.filter((u): u is string => typeof u === 'string') : [];
    if (redirectUris.some((u) => !/^https:\/\/|^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(u))) return json(res, 400, { error: 'invalid_redirect_uri' });
    const grantTypes = Array.isArray(meta.grant_types) ? (meta.grant_types as string[]) : ['authorization_code', 'refresh_token'];
    const method = typeof meta.token_endpoint_auth_method === 'string' ? meta.token_endpoint_auth_method : 'client_secret_basic';
    const client: OAuthTestClient = { clientId: `dyn-${token().slice(0, 16)}`, redirectUris, grantTypes, ...(method === 'none' ? {} : { clientSecret: token() }) };
    clients.set(client.clientId, client);
    log.push('register');
    json(res, 201, {
      ...meta,
      client_id: client.clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...(client.clientSecret ? { client_secret: client.clientSecret, client_secret_expires_at: 0 } : {}),
      redirect_uris: redirectUris,
      grant_types: grantTypes,
      token_endpoint_auth_method: method,
    });
  }

  /** The proxy: checks the bearer token, then forwards the request without it. */
  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, 20_000_000);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = bearer ? access.get(bearer) : undefined;
    if (!grant || grant.expiresAt <= Date.now()) {
      log.push('401');
      res.writeHead(401, { 'www-authenticate': challenge(bearer ? 'error="invalid_token", ' : ''), 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    if (req.method === 'POST') {
      let message: { method?: string; id?: unknown; params?: { name?: string } } | undefined;
      try {
        message = JSON.parse(body.toString()) as typeof message;
      } catch {
        message = undefined;
      }
      if (message?.method === 'tools/call') {
        const needed = toolScopes[message.params?.name ?? ''];
        if (needed && !grant.scope.split(' ').includes(needed)) {
          log.push('403');
          const scope = options.stepUpNames === 'missing' ? needed : [...new Set([...grant.scope.split(' '), needed])].join(' ');
          res.writeHead(403, { 'www-authenticate': challenge(`error="insufficient_scope", scope="${scope}", `), 'content-type': 'application/json' }).end(JSON.stringify({ error: 'insufficient_scope' }));
          return;
        }
        if (options.echoTokenInErrors) {
          json(res, 200, { jsonrpc: '2.0', id: message.id, result: { isError: true, content: [{ type: 'text', text: `upstream refused the call made with Bearer ${bearer} (token ${bearer})` }] } });
          return;
        }
      }
    }
    const headers = { ...req.headers, host: upstream.host };
    delete headers.authorization;
    const out = httpRequest({ hostname: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) json(res, 502, { error: 'upstream unreachable' });
      else res.destroy();
    });
    out.end(body);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer || 'http://127.0.0.1');
    const route = `${req.method} ${url.pathname}`;
    const done = (p: Promise<void> | void) =>
      Promise.resolve(p).catch(() => {
        if (!res.headersSent) json(res, 400, { error: 'invalid_request' });
      });
    if (route === 'GET /.well-known/oauth-protected-resource/mcp' || route === 'GET /.well-known/oauth-protected-resource') {
      return json(res, 200, { resource: `${issuer}/mcp`, authorization_servers: [issuer], scopes_supported: defaultScopes, bearer_methods_supported: ['header'] });
    }
    if (route === 'GET /.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
        scopes_supported: scopes,
      });
    }
    if (route === 'POST /register') return void done(handleRegister(req, res));
    if (route === 'GET /authorize') return handleAuthorize(url, res);
    if (route === 'POST /token') return void done(handleToken(req, res));
    if (url.pathname === '/mcp') return void done(handleMcp(req, res));
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    issuer,
    mcpUrl: `${issuer}/mcp`,
    issued,
    log,
    expireAccessTokens() {
      for (const grant of access.values()) grant.expiresAt = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts server-everything over Streamable HTTP on a free loopback port (`/mcp`). */
export async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess; close(): void }> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
  const child = spawn(process.execPath, [entry, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`server-everything did not start: ${err}`)), 30_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      if (/listening on port|running on port/i.test(err)) {
        clearTimeout(timer);
        ok();
      }
    });
    child.once('exit', (code) => fail(new Error(`server-everything exited ${code}: ${err}`)));
  });
  child.stderr!.resume();
  return { url: `http://127.0.0.1:${port}/mcp`, child, close: () => void child.kill() };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const everything = await startEverythingHttp();
  const port = process.env.PORT ? Number(process.env.PORT) : 8765;
  const server = await startOAuthServer({ upstream: everything.url, port });
  process.stdout.write(`OAuth-protected server-everything at ${server.mcpUrl}\n(authorization server ${server.issuer}; every login is approved)\n`);
  const stop = async () => {
    await server.close();
    everything.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
