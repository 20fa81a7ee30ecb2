// serveMcpHttp's `authenticate`: the agent a request runs for comes from its credential, not from
// the name the client declares itself (which any client can set to another's).
import { spawn } from 'node:child_process';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConfigError, serveMcpHttp, type McpHttpRequestInfo, type McpHttpServer, type McpPrincipal } from '../mcp/index.js';
import { createToolHost, defineTool, type ToolHost } from '../tools/index.js';
import { transpileProject } from './support/transpile-project.js';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

const TOKENS: Record<string, string> = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdefgh' };
const digest = (s: string) => createHash('sha256').update(s).digest();

/** A table of tokens, compared in constant time, as a deployment with one token per agent would. */
function byToken(request: McpHttpRequestInfo): McpPrincipal | undefined {
  const header = request.headers.authorization;
  const presented = typeof header === 'string' ? /^Bearer (.+)$/.exec(header)?.[1] : undefined;
  if (presented === undefined) return undefined;
  for (const [agent, token] of Object.entries(TOKENS)) if (timingSafeEqual(digest(presented), digest(token))) return { agent };
  return undefined;
}

function whoamiHost(): ToolHost {
  const host = createToolHost();
  host.register(
    defineTool({
      name: 'whoami',
      description: 'The agent id this call runs for.',
      output: { schema: { type: 'string' } },
      execute: async (_args, exec) => exec.agent?.id ?? '(none)',
    }),
  );
  return host;
}

async function connect(url: string, name: string, token: string, stateful = false): Promise<Client> {
  const client = new Client({ name, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  if (stateful) expect(client.transport && (client.transport as StreamableHTTPClientTransport).sessionId).toBeTruthy();
  return client;
}

const whoami = async (c: Client) => ((await c.callTool({ name: 'whoami', arguments: {} })) as CallResult).structuredContent;

describe('when serveMcpHttp names each request\'s agent with authenticate', () => {
  let served: McpHttpServer;
  const errors: Error[] = [];
  beforeAll(async () => {
    served = await serveMcpHttp({
      host: whoamiHost(),
      exposeTools: true,
      onError: (e) => errors.push(e),
      authenticate: (request) => {
        if (request.headers.authorization === 'Bearer throw-please-0123456789') throw new Error('the token service is down');
        return byToken(request);
      },
    });
  });
  afterAll(() => served?.close());

  it('runs calls for the credential\'s agent, whatever name the client declares', async () => {
    const impostor = await connect(served.url, 'alice', TOKENS.bob!);
    const alice = await connect(served.url, 'someone-else', TOKENS.alice!);
    expect(await whoami(impostor)).toEqual({ result: 'bob' });
    expect(await whoami(alice)).toEqual({ result: 'alice' });
    await Promise.all([impostor.close(), alice.close()]);
  });

  it('refuses an unknown credential with 401, and a throwing authenticate with 401 reported to onError', async () => {
    await expect(connect(served.url, 'x', 'nobody-token-0123456789abc')).rejects.toThrow(/Unauthorized/);
    await expect(connect(served.url, 'x', 'throw-please-0123456789')).rejects.toThrow(/Unauthorized/);
    expect(errors.map((e) => e.message)).toContain('the token service is down');
  });
});

describe('when serveMcpHttp has one shared token (no authenticate)', () => {
  it('runs every stateless client as the one agent mcp:client, and a session as mcp:<its declared name>', async () => {
    const stateless = await serveMcpHttp({ host: whoamiHost(), exposeTools: true, authToken: TOKENS.alice! });
    const stateful = await serveMcpHttp({ host: whoamiHost(), exposeTools: true, authToken: TOKENS.alice!, stateful: true });
    try {
      const [x, y] = await Promise.all([connect(stateless.url, 'x', TOKENS.alice!), connect(stateless.url, 'y', TOKENS.alice!)]);
      expect(await whoami(x)).toEqual({ result: 'mcp:client' });
      expect(await whoami(y)).toEqual({ result: 'mcp:client' });
      const z = await connect(stateful.url, 'zed', TOKENS.alice!, true);
      expect(await whoami(z)).toEqual({ result: 'mcp:zed' });
      await Promise.all([x.close(), y.close(), z.close()]);
    } finally {
      await Promise.all([stateless.close(), stateful.close()]);
    }
  });
});

describe('when a stateful serveMcpHttp binds sessions to their principal', () => {
  let served: McpHttpServer;
  beforeAll(async () => {
    served = await serveMcpHttp({ host: whoamiHost(), exposeTools: true, stateful: true, authenticate: byToken });
  });
  afterAll(() => served?.close());

  it("answers 404 to another principal presenting a session's id, and serves its owner", async () => {
    const alice = await connect(served.url, 'a', TOKENS.alice!, true);
    const sid = (alice.transport as StreamableHTTPClientTransport).sessionId!;
    const call = (token: string) =>
      fetch(served.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'mcp-session-id': sid, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      });
    const stolen = await call(TOKENS.bob!);
    expect(stolen.status).toBe(404);
    expect(await stolen.text()).toMatch(/Session not found/);
    const own = await call(TOKENS.alice!);
    expect(own.status).toBe(200);
    expect(await own.text()).toMatch(/"result":"alice"/);
    await alice.close();
  });
});

describe('when authenticate is misused', () => {
  it('refuses authenticate with authToken, and a principal whose agent is not printable text', async () => {
    await expect(serveMcpHttp({ host: whoamiHost(), authToken: TOKENS.alice!, authenticate: byToken })).rejects.toThrow(McpConfigError);
    await expect(serveMcpHttp({ host: whoamiHost(), authToken: TOKENS.alice!, authenticate: byToken })).rejects.toThrow(/authToken or authenticate, not both/);
    const errors: Error[] = [];
    const served = await serveMcpHttp({ host: whoamiHost(), exposeTools: true, onError: (e) => errors.push(e), authenticate: () => ({ agent: 'evil\u001b[2Jagent' }) });
    try {
      await expect(connect(served.url, 'x', 'whatever-0123456789abcdef')).rejects.toThrow();
      expect(errors.some((e) => /agent must be a string of 1-200 printable characters/.test(e.message))).toBe(true);
    } finally {
      await served.close();
    }
  });

  it('listens off loopback with authenticate and no authToken', async () => {
    const served = await serveMcpHttp({ host: whoamiHost(), hostname: '0.0.0.0', authenticate: byToken });
    await served.close();
  });
});

describe('when `ptc mcp serve --http --agent-tokens-env` runs as a real process', () => {
  let cli: string;
  beforeAll(async () => {
    ({ cli } = await transpileProject('mcp-principals'));
  }, 120_000);

  const serve = (env: Record<string, string>, flags: string[] = ['--http', '0']) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', cli, 'mcp', 'serve', ...flags, '--isolation', 'isolate', '--agent-tokens-env', 'PTC_AGENT_TOKENS'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const url = new Promise<string>((ok, fail) => {
      const timer = setInterval(() => {
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) {
          clearInterval(timer);
          ok(m[1]!);
        }
      }, 50);
      child.once('exit', (code) => {
        clearInterval(timer);
        fail(new Error(`exited ${code}: ${err}`));
      });
    });
    url.catch(() => undefined);
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    return { child, url, exited, stderr: () => err };
  };

  it("keeps one agent's spill from another: the agent is the token's, not the client's name", async () => {
    const server = serve({ PTC_AGENT_TOKENS: JSON.stringify(TOKENS) });
    try {
      const url = await server.url;
      expect(server.stderr()).toMatch(/a bearer token per agent required/);
      const alice = await connect(url, 'bob', TOKENS.alice!);
      const bob = await connect(url, 'alice', TOKENS.bob!);
      const code = 'const rows = []; for (let i = 0; i < 4000; i++) rows.push({ i, name: "row " + i }); return rows;';
      const made = (await alice.callTool({ name: 'run_code', arguments: { code } })) as CallResult;
      expect(made.isError, JSON.stringify(made).slice(0, 300)).toBeFalsy();
      const { id } = (made.structuredContent!['result'] as { spilled: { id: string } }).spilled;
      const stolen = (await bob.callTool({ name: 'spill_read', arguments: { id, offset: 0 } })) as CallResult;
      expect(stolen.isError).toBe(true);
      expect(stolen.content[0]!.text).toMatch(/Unknown spill .*no spill with this id is kept for you/);
      const own = (await alice.callTool({ name: 'spill_read', arguments: { id, offset: 0 } })) as CallResult;
      expect(own.isError, JSON.stringify(own).slice(0, 300)).toBeFalsy();
      expect((own.structuredContent as { text: string }).text).toMatch(/^\[\{"i":0/);
      await Promise.all([alice.close(), bob.close()]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 120_000);

  it('refuses a table that is not JSON without printing it, tokens too short, and the flag over stdio', async () => {
    const garbled = serve({ PTC_AGENT_TOKENS: 'alice=s3cret-token-0123456789' });
    expect(await garbled.exited).toBe(2);
    expect(garbled.stderr()).toMatch(/--agent-tokens-env PTC_AGENT_TOKENS: the variable must hold a JSON object/);
    expect(garbled.stderr()).not.toContain('s3cret');
    const short = serve({ PTC_AGENT_TOKENS: JSON.stringify({ alice: 'short' }) });
    expect(await short.exited).toBe(2);
    expect(short.stderr()).toMatch(/the token of agent alice must be a string of at least 16 characters/);
    const stdio = serve({ PTC_AGENT_TOKENS: JSON.stringify(TOKENS) }, []);
    expect(await stdio.exited).toBe(2);
    expect(stdio.stderr()).toMatch(/--agent-tokens-env applies to --http only/);
  }, 120_000);
});
