// MCP over Streamable HTTP, both ways (issue 14): importing the real server-everything started in
// its streamableHttp (and sse) mode, and the SDK's own client against serveMcpHttp.
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from '../examples/tools.js';
import { importMcpServers, McpConfigError, mcpApprovalChannel, McpServerStartError, serveMcpHttp, type McpHttpServer, type McpImport } from '../mcp/index.js';
import { createRunCodeTool, type RunCodeTool } from '../runtime/index.js';
import { createToolHost, defineTool, InvalidOptionError, memoryJsonlSink, type ToolEvent, type ToolHost } from '../tools/index.js';
import { transpileProject } from './support/transpile-project.js';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Starts server-everything in `mode` on a free loopback port; resolves once it listens. */
async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js'), mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`server-everything ${mode} did not start: ${err}`)), 30_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      if (/listening on port|running on port/i.test(err)) {
        clearTimeout(timer);
        ok();
      }
    });
    child.once('exit', (code) => fail(new Error(`server-everything exited ${code}: ${err}`)));
  });
  return { child, port };
}

const SECRET = 'Bearer sk-test-0123456789abcdefSECRET';
const API_KEY = 'k3y-9f8e7d6c5b4a-SECRET-HEADER';

describe('when tools are imported from server-everything over Streamable HTTP', () => {
  let everything: { child: ChildProcess; port: number };
  let imported: McpImport;
  let host: ToolHost;
  let runCode: RunCodeTool;
  const trace = memoryJsonlSink();
  const emitted: string[] = [];
  beforeAll(async () => {
    everything = await startEverything('streamableHttp');
    imported = await importMcpServers([{ name: 'everything', url: `http://127.0.0.1:${everything.port}/mcp`, headers: { Authorization: SECRET, 'X-Api-Key': API_KEY } }], {
      onServerLog: (s, e) => emitted.push(`${s} ${e.level} ${e.text}`),
      onServerExit: (s, r) => emitted.push(`${s} ${r}`),
    });
    host = createToolHost({ onEvent: trace });
    imported.register(host);
    runCode = createRunCodeTool({ host, isolation: 'isolate' });
    host.register(runCode);
  }, 60_000);
  afterAll(async () => {
    await runCode?.close();
    await imported?.close();
    everything?.child.kill();
  });

  it('lists its tools and runs a program that calls them', async () => {
    expect(imported.servers).toMatchObject([{ name: 'everything', transport: 'streamable-http' }]);
    expect(host.tools().map((t) => t.name)).toEqual(expect.arrayContaining(['everything.echo', 'everything.get-sum']));
    const code = 'const e = await tools.everything_echo({ message: "over http" });\nconst s = await tools.everything_get_sum({ a: 2, b: 3 });\nreturn { e, s };';
    const r = await host.call({ id: 'h1', name: 'run_code', args: { code } }, { agent: { id: 't' } });
    expect(r.isError, JSON.stringify(r.content)).toBe(false);
    const result = (r.value as { result: { e: string; s: unknown } }).result;
    expect(result.e).toBe('Echo: over http');
    expect(JSON.stringify(result.s)).toMatch(/\b5\b/);
  }, 30_000);

  it('never puts a header value in a trace, a warning, a log line or an error', async () => {
    const failed = await host.call({ id: 'h2', name: 'everything.get-sum', args: { a: 1, b: 'x' } });
    expect(failed.isError).toBe(true);
    const startError = await importMcpServers([{ name: 'wrong', url: `http://127.0.0.1:${everything.port}/nope?key=${encodeURIComponent(API_KEY)}`, headers: { Authorization: SECRET } }], { startTimeoutMs: 10_000 }).then(
      () => new Error('it started'),
      (e: unknown) => e as Error,
    );
    expect(McpServerStartError.isInstance(startError)).toBe(true);
    expect(startError.message).toMatch(/^MCP server "wrong" \(http:\/\/127\.0\.0\.1:\d+\/nope\?key=…\) failed to start/);
    const everything_ = [trace.lines.join('\n'), ...imported.warnings, ...imported.skipped.map((s) => s.reason), ...emitted, failed.error?.message ?? '', startError.message, JSON.stringify(imported.servers)].join('\n');
    expect(everything_).not.toContain('SECRET');
    expect(everything_).not.toContain(API_KEY);
    expect(everything_).not.toContain('sk-test');
  }, 30_000);
});

describe('when a server answers only the older SSE transport', () => {
  it('falls back to it (server-everything in sse mode)', async () => {
    const { child, port } = await startEverything('sse');
    const imported = await importMcpServers([{ name: 'old', url: `http://127.0.0.1:${port}/sse` }]).finally(() => undefined);
    try {
      expect(imported.servers).toMatchObject([{ name: 'old', transport: 'sse' }]);
      const host = createToolHost();
      imported.register(host);
      expect((await host.call({ id: 's', name: 'old.echo', args: { message: 'sse' } })).value).toBe('Echo: sse');
    } finally {
      await imported.close();
      child.kill();
    }
  }, 60_000);
});

/** A raw HTTP request to the loopback server, with full control of the headers. */
function rawPost(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'EPIPE' || (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? ok({ status: -1, text: e.message }) : fail(e)));
    req.end(body);
  });
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const TOKEN = 'test-token-0123456789abcdef';

describe('when the SDK client talks to serveMcpHttp', () => {
  let served: McpHttpServer;
  let runCode: RunCodeTool;
  const connect = async (name: string, token = TOKEN) => {
    const client = new Client({ name, version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return client;
  };
  beforeAll(async () => {
    const host = createHost();
    runCode = createRunCodeTool({ host, isolation: 'isolate' });
    host.register(runCode);
    served = await serveMcpHttp({ host, authToken: TOKEN, exposeTools: true });
  });
  afterAll(async () => {
    await served?.close();
    await runCode?.close();
  });

  it('listens on loopback and lists run_code with the declarations', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect('lister');
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'run_code')!.description).toMatch(/team_list\(args\?: ToolArgsMap\["team_list"\]\)/);
    await client.close();
  });

  it('runs programs for two clients at once (stateless: no session kept)', async () => {
    const [a, b] = await Promise.all([connect('client-a'), connect('client-b')]);
    const run = (c: Client, team: string) => c.callTool({ name: 'run_code', arguments: { code: `const { members } = await tools.team_list({ team: ${JSON.stringify(team)} });\nreturn members.length;` } }) as Promise<CallResult>;
    const [ra, rb] = await Promise.all([run(a, 'design'), run(b, 'platform')]);
    expect(ra.structuredContent).toMatchObject({ result: 4 });
    expect(rb.isError).toBeFalsy();
    expect(typeof (rb.structuredContent as { result: unknown }).result).toBe('number');
    await Promise.all([a.close(), b.close()]);
  }, 30_000);

  it('refuses a wrong or missing token with 401', async () => {
    await expect(connect('intruder', 'wrong-token-0123456789')).rejects.toThrow(/Unauthorized/);
    const missing = await rawPost(served.url, INIT, { host: new URL(served.url).host });
    expect(missing.status).toBe(401);
    const right = await rawPost(served.url, INIT, { host: new URL(served.url).host, authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
  });

  it('refuses a Host header or Origin from another name (DNS rebinding) with 403', async () => {
    const port = new URL(served.url).port;
    const rebound = await rawPost(served.url, INIT, { host: `attacker.example:${port}`, authorization: `Bearer ${TOKEN}` });
    expect(rebound.status).toBe(403);
    const origin = await rawPost(served.url, INIT, { host: `127.0.0.1:${port}`, origin: 'http://attacker.example', authorization: `Bearer ${TOKEN}` });
    expect(origin.status).toBe(403);
    const local = await rawPost(served.url, INIT, { host: `localhost:${port}`, origin: `http://localhost:${port}`, authorization: `Bearer ${TOKEN}` });
    expect(local.status).toBe(200);
  });

  it('refuses a request body over the stdio message cap with 413, and malformed JSON with 400', async () => {
    const host = new URL(served.url).host;
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_code', arguments: { code: `return "${'x'.repeat(11 * 1024 * 1024)}";` } } });
    const big = await rawPost(served.url, huge, { host, authorization: `Bearer ${TOKEN}` });
    expect([413, -1]).toContain(big.status);
    if (big.status === 413) expect(big.text).toMatch(/over 10485760 bytes/);
    const bad = await rawPost(served.url, '{"jsonrpc":', { host, authorization: `Bearer ${TOKEN}` });
    expect(bad.status).toBe(400);
    // and the server still answers afterwards
    const client = await connect('after');
    expect((await client.listTools()).tools.length).toBeGreaterThan(1);
    await client.close();
  }, 30_000);
});

describe('when serveMcpHttp is set up unsafely', () => {
  it('refuses to listen off loopback without a token', async () => {
    const host = createToolHost();
    await expect(serveMcpHttp({ host, hostname: '0.0.0.0' })).rejects.toThrow(/listening on 0\.0\.0\.0 \(not loopback\) needs an authToken/);
  });

  it('refuses approval with stateful: false, saying why approval needs a session', async () => {
    const host = createToolHost();
    const err = await serveMcpHttp({ host, approval: mcpApprovalChannel(), stateful: false }).catch((e: unknown) => e);
    expect(InvalidOptionError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ where: 'serveMcpHttp', option: 'stateful', value: false });
    expect((err as Error).message).toMatch(/^serveMcpHttp: stateful must be true or left out when approval is given: .*answer comes back as another HTTP request, which must reach the session that asked/);
  });
});

describe('when serveMcpHttp is given a bad port, hostname, path or session option', () => {
  const host = createToolHost();
  const refusal = (options: Partial<Parameters<typeof serveMcpHttp>[0]>) => serveMcpHttp({ host, ...options }).then((s) => s.close().then(() => 'listened'), (e: unknown) => e);

  it.each([
    [{ port: -1 }, 'port', /port must be a whole number from 0 to 65535/],
    [{ port: 65_536 }, 'port', /from 0 to 65535 \(0 picks a free port\), got 65536$/],
    [{ port: 80.5 }, 'port', /whole number/],
    [{ port: '8080' as never }, 'port', /got "8080"/],
    [{ port: Number.NaN }, 'port', /got NaN/],
    [{ hostname: '' }, 'hostname', /hostname must be an IP address or a host name/],
    [{ hostname: 'http://127.0.0.1' }, 'hostname', /without a scheme, port or brackets/],
    [{ hostname: '127.0.0.1:8080' }, 'hostname', /got "127\.0\.0\.1:8080"/],
    [{ hostname: '[::1]' }, 'hostname', /brackets/],
    [{ hostname: 'bad_name.example' }, 'hostname', /host name/],
    [{ path: 'mcp' }, 'path', /path must be a URL path starting with "\/"/],
    [{ path: '/mcp?x=1' }, 'path', /without a query or fragment/],
    [{ path: '/mcp#top' }, 'path', /without a query or fragment/],
    [{ path: '/a/../mcp' }, 'path', /read as "\/mcp", which would never match/],
    [{ path: '/m cp' }, 'path', /read as "\/m%20cp"/],
    [{ path: '//mcp' }, 'path', /would never match/],
    [{ maxSessions: 0 }, 'maxSessions', /maxSessions must be a whole number of sessions, 1 or more, got 0$/],
    [{ maxSessions: Number.NaN }, 'maxSessions', /got NaN/],
    [{ maxSessions: 2.5 }, 'maxSessions', /whole number/],
    [{ sessionIdleMs: 0 }, 'sessionIdleMs', /sessionIdleMs must be a number of ms above 0 and at most 2147483647/],
    [{ sessionIdleMs: 2 ** 31 }, 'sessionIdleMs', /got 2147483648$/],
    [{ sessionIdleMs: '60000' as never }, 'sessionIdleMs', /got "60000"/],
  ])('%j is an InvalidOptionError naming %s', async (options, option, message) => {
    const err = await refusal(options);
    expect(InvalidOptionError.isInstance(err), String(err)).toBe(true);
    expect(err).toMatchObject({ where: 'serveMcpHttp', option });
    expect((err as Error).message).toMatch(message);
  });

  it('listens on the port given, a host name and a nested path, where the SDK client reaches it', async () => {
    const port = await freePort();
    const pingHost = createToolHost();
    pingHost.register(defineTool({ name: 'ping', description: 'Answers pong.', execute: () => 'pong' }));
    const served = await serveMcpHttp({ host: pingHost, port, hostname: 'localhost', path: '/v1/mcp', exposeTools: true });
    const client = new Client({ name: 'good-options', version: '1' });
    try {
      expect(served.url).toBe(`http://localhost:${port}/v1/mcp`);
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      expect(await client.callTool({ name: 'ping', arguments: {} })).toMatchObject({ structuredContent: { result: 'pong' } });
    } finally {
      await client.close();
      await served.close();
    }
  });
});

describe('when serveMcpHttp sits behind a proxy with a public name', () => {
  it('accepts that Host and its https Origin once allowed, and still refuses others', async () => {
    const host = createToolHost();
    const served = await serveMcpHttp({ host, authToken: TOKEN, allowedHosts: ['mcp.example.com'], allowedOrigins: ['http://localhost:6274'] });
    try {
      const auth = { authorization: `Bearer ${TOKEN}` };
      expect((await rawPost(served.url, INIT, { ...auth, host: 'mcp.example.com', origin: 'https://mcp.example.com' })).status).toBe(200);
      expect((await rawPost(served.url, INIT, { ...auth, host: 'mcp.example.com:443' })).status).toBe(200);
      expect((await rawPost(served.url, INIT, { ...auth, host: new URL(served.url).host, origin: 'http://localhost:6274' })).status).toBe(200);
      expect((await rawPost(served.url, INIT, { ...auth, host: 'mcp.example.com.attacker.example' })).status).toBe(403);
    } finally {
      await served.close();
    }
  });
});

describe('when approval is asked of an HTTP client through elicitation', () => {
  it('keeps sessions for it without being told (stateful is implied), asks the client that made the call, and allows once', async () => {
    const approval = mcpApprovalChannel();
    const host = createHost({ approval });
    const served = await serveMcpHttp({ host, approval, exposeTools: true });
    const clients = await Promise.all(
      ['asker', 'bystander'].map(async (name) => {
        const asked: string[] = [];
        const client = new Client({ name, version: '1' }, { capabilities: { elicitation: {} } });
        client.setRequestHandler(ElicitRequestSchema, async (req) => {
          asked.push((req.params as { message: string }).message);
          return { action: 'accept', content: { allow: true } };
        });
        await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
        return { client, asked };
      }),
    );
    try {
      const r = (await clients[0]!.client.callTool({ name: 'expense_flag', arguments: { expenseId: 'exp-0003', reason: 'over http' } })) as CallResult;
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ flagId: expect.any(String) });
      expect(clients[0]!.asked).toHaveLength(1);
      expect(clients[0]!.asked[0]).toMatch(/^Tool call needs approval: expense_flag/);
      expect(clients[1]!.asked).toEqual([]);
    } finally {
      await Promise.all(clients.map((c) => c.client.close()));
      await served.close();
    }
  }, 30_000);

  it('denies the call when the user declines, and a program that made it sees the refusal; the tool never runs', async () => {
    const approval = mcpApprovalChannel();
    const events: ToolEvent[] = [];
    const host = createHost({ approval, onEvent: (e) => events.push(e) });
    const runCode = createRunCodeTool({ host, isolation: 'isolate' });
    host.register(runCode);
    const served = await serveMcpHttp({ host, approval, exposeTools: true });
    const asked: string[] = [];
    const client = new Client({ name: 'decliner', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push((req.params as { message: string }).message);
      return { action: 'decline' };
    });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      const direct = (await client.callTool({ name: 'expense_flag', arguments: { expenseId: 'exp-0003', reason: 'declined over http' } })) as CallResult;
      expect(direct.isError).toBe(true);
      expect(direct.content[0]!.text).toMatch(/denied/i);
      const code = 'try { await tools.expense_flag({ expenseId: "exp-0004", reason: "from a program" }); return "flagged"; } catch (e) { return e instanceof ToolCallError ? e.message : "other"; }';
      const program = (await client.callTool({ name: 'run_code', arguments: { code } })) as CallResult;
      expect(program.isError, JSON.stringify(program.content)).toBeFalsy();
      expect(String((program.structuredContent as { result: unknown }).result)).toMatch(/denied/i);
      expect(asked).toHaveLength(2);
      expect(asked.every((m) => m.startsWith('Tool call needs approval: expense_flag'))).toBe(true);
      const flagged = events.filter((e) => e.type === 'tool/result' && e.toolName === 'expense_flag');
      expect(flagged).toHaveLength(2);
      expect(flagged.every((e) => e.type === 'tool/result' && e.isError && e.denied?.by === 'approval')).toBe(true);
    } finally {
      await client.close();
      await served.close();
      await runCode.close();
    }
  }, 30_000);
});

describe('when `ptc mcp serve --http` runs as a real process', () => {
  it('serves on loopback, and refuses another host without --auth-token-env', async () => {
    const { cli } = await transpileProject('mcp-http');
    const child = spawn(process.execPath, ['--no-node-snapshot', cli, 'mcp', 'serve', '--http', '0', '--isolation', 'isolate'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const url = await new Promise<string>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`no url: ${err}`)), 60_000);
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) {
          clearTimeout(timer);
          ok(m[1]!);
        }
      });
    });
    try {
      expect(err).toMatch(/; stateless\n/);
      const client = new Client({ name: 'cli-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const r = (await client.callTool({ name: 'run_code', arguments: { code: 'return (await tools.budget_get({ employeeId: "u-101" }))?.monthlyLimitCents;' } })) as CallResult;
      expect(r.structuredContent).toMatchObject({ result: 90000 });
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    const refused = spawn(process.execPath, ['--no-node-snapshot', cli, 'mcp', 'serve', '--http', '0.0.0.0:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let refusedErr = '';
    refused.stderr!.on('data', (c: Buffer) => (refusedErr += c.toString()));
    const code = await new Promise<number | null>((r) => refused.once('exit', r));
    expect(code).toBe(2);
    expect(refusedErr).toMatch(/listens off loopback, which needs --auth-token-env NAME/);
  }, 120_000);
});
