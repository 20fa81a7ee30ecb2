// OAuth for imported HTTP MCP servers (issue 27): the real server-everything over Streamable HTTP
// behind the local OAuth 2.1 authorization server of examples/oauth-server.ts, imported with
// `oauth` and used from a program; discovery, dynamic registration, PKCE with the loopback
// redirect, refresh, client credentials, step-up, the token file, and secrets kept out of messages.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp, startOAuthServer, type OAuthServer } from '../examples/oauth-server.js';
import { createMemoryTokenStore, importMcpServers, McpAuthError, McpServerStartError, parseMcpConfig, type McpImport } from '../mcp/index.js';
import { createRunCodeTool } from '../runtime/index.js';
import { createToolHost, memoryJsonlSink } from '../tools/index.js';

/** A person's browser that approves: opens the authorization url and follows its redirect to the loopback listener. */
async function browse(url: string): Promise<void> {
  const answer = await fetch(url, { redirect: 'manual' });
  const location = answer.headers.get('location');
  if (answer.status !== 302 || !location) throw new Error(`the authorization server answered ${answer.status}`);
  await fetch(location);
}

let everything: Awaited<ReturnType<typeof startEverythingHttp>>;
let dir: string;
beforeAll(async () => {
  everything = await startEverythingHttp();
  dir = await mkdtemp(join(tmpdir(), 'ptc-oauth-'));
}, 60_000);
afterAll(async () => {
  everything?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('when server-everything is behind a local OAuth authorization server', () => {
  let server: OAuthServer;
  const opened: string[] = [];
  const authorize = async (url: string) => {
    opened.push(url);
    await browse(url);
  };
  beforeAll(async () => {
    server = await startOAuthServer({ upstream: everything.url, scopes: ['mcp', 'mcp:admin'], toolScopes: { 'get-tiny-image': 'mcp:admin' } });
  });
  afterAll(() => server?.close());

  it('says the server needs OAuth when it answers 401 and no oauth is configured', async () => {
    const err = await importMcpServers([{ name: 'ev', url: server.mcpUrl }], { startTimeoutMs: 10_000 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(McpServerStartError.isInstance(err)).toBe(true);
    expect(err!.message).toMatch(/needs authorization/);
    expect(err!.message).toMatch(/"oauth": true/);
    expect(err!.message).toContain('ptc mcp login ev');
  });

  it('without a way to show a person the login, fails naming ptc mcp login (no browser is assumed)', async () => {
    const err = await importMcpServers([{ name: 'ev', url: server.mcpUrl, oauth: { store: createMemoryTokenStore() } }], { startTimeoutMs: 10_000 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(McpAuthError.isInstance(err)).toBe(true);
    expect(err!.message).toContain('run "ptc mcp login ev"');
  });

  it('discovers, registers, logs in with PKCE on a loopback redirect, and a program uses the tools', async () => {
    const before = server.log.length;
    const imported = await importMcpServers([{ name: 'ev', url: server.mcpUrl, oauth: { authorize } }], { oauthTokenDir: dir, startTimeoutMs: 20_000 });
    try {
      expect(server.log.slice(before)).toEqual(expect.arrayContaining(['401', 'register', 'authorize', 'token:authorization_code']));
      const asked = new URL(opened.at(-1)!);
      expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
      expect(asked.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect(asked.searchParams.get('resource')).toBe(server.mcpUrl);
      const host = createToolHost();
      imported.register(host);
      const runCode = createRunCodeTool({ host, isolation: 'isolate' });
      host.register(runCode);
      try {
        const code = 'const s = await tools.ev_get_sum({ a: 2, b: 3 });\nconst e = await tools.ev_echo({ message: "behind oauth" });\nreturn { words: s.split(" ").length, e };';
        const r = await host.call({ id: 'p1', name: 'run_code', args: { code } }, { agent: { id: 't' } });
        expect(r.isError, JSON.stringify(r.content)).toBe(false);
        const result = (r.value as { result: { words: number; e: string } }).result;
        expect(result.e).toBe('Echo: behind oauth');
        expect(result.words).toBeGreaterThan(1);
      } finally {
        await runCode.close();
      }
    } finally {
      await imported.close();
    }
    // The token file: 0600 in a 0700 directory, holding the tokens and the registration.
    const file = join(dir, 'ev.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o077).toBe(0);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { serverUrl: string; tokens: { access_token: string; refresh_token: string }; client: { client_id: string } };
    expect(saved.serverUrl).toBe(server.mcpUrl);
    expect(server.issued).toContain(saved.tokens.access_token);
    expect(saved.client.client_id).toMatch(/^dyn-/);
  }, 60_000);

  it('uses the stored token next time, and refreshes it when it has expired, without asking the person again', async () => {
    const logins = opened.length;
    const imported = await importMcpServers([{ name: 'ev', url: server.mcpUrl, oauth: { authorize } }], { oauthTokenDir: dir, startTimeoutMs: 20_000 });
    try {
      const host = createToolHost();
      imported.register(host);
      expect((await host.call({ id: 'a', name: 'ev.echo', args: { message: 'stored' } })).value).toBe('Echo: stored');
      server.expireAccessTokens();
      const before = server.log.length;
      const r = await host.call({ id: 'b', name: 'ev.echo', args: { message: 'refreshed' } });
      expect(r.isError, JSON.stringify(r.error)).toBe(false);
      expect(r.value).toBe('Echo: refreshed');
      expect(server.log.slice(before)).toEqual(['401', 'token:refresh_token']);
      expect(opened.length).toBe(logins);
    } finally {
      await imported.close();
    }
  }, 60_000);

  it('steps up: a tool refused with 403 insufficient_scope is authorized again with the scope and the call goes through', async () => {
    const logins = opened.length;
    const imported = await importMcpServers([{ name: 'ev', url: server.mcpUrl, oauth: { authorize } }], { oauthTokenDir: dir, startTimeoutMs: 20_000 });
    try {
      const host = createToolHost();
      imported.register(host);
      const before = server.log.length;
      const r = await host.call({ id: 'c', name: 'ev.get-tiny-image', args: {} });
      expect(r.isError, JSON.stringify(r.error)).toBe(false);
      expect(server.log.slice(before)).toEqual(['403', 'authorize', 'token:authorization_code']);
      expect(opened.length).toBe(logins + 1);
      expect(new URL(opened.at(-1)!).searchParams.get('scope')?.split(' ')).toContain('mcp:admin');
    } finally {
      await imported.close();
    }
  }, 60_000);
});

describe('when a service uses client credentials with a pre-registered client', () => {
  let server: OAuthServer;
  const clientSecret = 'cc-secret-0123456789abcdef';
  beforeAll(async () => {
    server = await startOAuthServer({ upstream: everything.url, clients: [{ clientId: 'svc', clientSecret, redirectUris: [], grantTypes: ['client_credentials'] }] });
  });
  afterAll(() => server?.close());

  it('gets a token without a person and without registering, and calls the tools', async () => {
    const store = createMemoryTokenStore();
    const imported = await importMcpServers([{ name: 'svc', url: server.mcpUrl, oauth: { grant: 'client_credentials', clientId: 'svc', clientSecret, store } }], { startTimeoutMs: 20_000 });
    try {
      const host = createToolHost();
      imported.register(host);
      expect((await host.call({ id: 'a', name: 'svc.echo', args: { message: 'service' } })).value).toBe('Echo: service');
      expect(server.log).toContain('token:client_credentials');
      expect(server.log).not.toContain('register');
      expect(server.log).not.toContain('authorize');
      expect((await store.load())?.tokens?.access_token).toBe(server.issued[0]);
    } finally {
      await imported.close();
    }
  }, 60_000);

  it('refuses client_credentials without a client id and secret, naming both', async () => {
    const err = await importMcpServers([{ name: 'svc', url: server.mcpUrl, oauth: { grant: 'client_credentials' } }]).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(McpAuthError.isInstance(err)).toBe(true);
    expect(err!.message).toMatch(/needs oauth\.clientId and oauth\.clientSecret/);
  });
});

describe('when the server quotes the bearer token in its errors', () => {
  let server: OAuthServer;
  let imported: McpImport;
  beforeAll(async () => {
    server = await startOAuthServer({ upstream: everything.url, echoTokenInErrors: true });
    imported = await importMcpServers([{ name: 'leaky', url: server.mcpUrl, oauth: { authorize: browse, store: createMemoryTokenStore() } }], { startTimeoutMs: 20_000 });
  }, 60_000);
  afterAll(async () => {
    await imported?.close();
    await server?.close();
  });

  it('never shows a token in an error, an event or a trace', async () => {
    const trace = memoryJsonlSink();
    const host = createToolHost({ onEvent: trace });
    imported.register(host);
    const runCode = createRunCodeTool({ host, isolation: 'isolate' });
    host.register(runCode);
    try {
      const direct = await host.call({ id: 'd', name: 'leaky.echo', args: { message: 'x' } });
      expect(direct.isError).toBe(true);
      expect(direct.error?.message).toMatch(/upstream refused the call made with Bearer …/);
      const program = await host.call({ id: 'p', name: 'run_code', args: { code: 'try { await tools.leaky_echo({ message: "y" }); } catch (e) { return String(e); }' } }, { agent: { id: 't' } });
      const seen = [trace.lines.join('\n'), JSON.stringify(direct), JSON.stringify(program)].join('\n');
      expect(server.issued.length).toBeGreaterThan(0);
      for (const t of server.issued) expect(seen).not.toContain(t);
      expect(seen).toContain('upstream refused');
    } finally {
      await runCode.close();
    }
  }, 60_000);
});

describe('mcp.json "oauth"', () => {
  it('reads true, or a pre-registered client whose secret comes from the environment', () => {
    process.env.PTC_TEST_B_SECRET = 'from-the-environment';
    const specs = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          a: { url: 'https://a.example/mcp', oauth: true },
          b: { url: 'https://b.example/mcp', oauth: { clientId: 'ptc', clientSecret: '${PTC_TEST_B_SECRET}', scope: 'read write', grant: 'client_credentials' } },
          c: { url: 'https://c.example/mcp', oauth: false },
        },
      }),
      'mcp.json',
    );
    expect(specs[0]).toMatchObject({ name: 'a', oauth: true });
    expect(specs[2]).not.toHaveProperty('oauth');
    expect(specs[1]).toMatchObject({ name: 'b', oauth: { clientId: 'ptc', clientSecret: 'from-the-environment', scope: 'read write', grant: 'client_credentials' } });
    delete process.env.PTC_TEST_B_SECRET;
  });

  it('names a bad oauth field', () => {
    expect(() => parseMcpConfig(JSON.stringify({ mcpServers: { a: { url: 'https://a.example/mcp', oauth: { grant: 'password' } } } }))).toThrow(/mcpServers\.a\.oauth/);
    expect(() => parseMcpConfig(JSON.stringify({ mcpServers: { a: { url: 'https://a.example/mcp', oauth: { clientSecret: 'x', extra: 1 } } } }))).toThrow(/mcpServers\.a\.oauth/);
  });
});
