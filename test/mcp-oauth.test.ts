// OAuth for imported HTTP MCP servers (issue 27): the real server-everything over Streamable HTTP
// behind the local OAuth 2.1 authorization server of examples/oauth-server.ts, imported with
// `oauth` and used from a program; discovery, dynamic registration, PKCE with the loopback
// redirect, refresh, client credentials, step-up, the token file, and secrets kept out of messages.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../cli/main.js';
import { startEverythingHttp, startOAuthServer, type OAuthServer } from '../examples/oauth-server.js';
import { createMemoryTokenStore, importMcpServers, McpAuthError, McpServerStartError, parseMcpConfig, type McpImport } from '../mcp/index.js';
import { createRunCodeTool } from '../runtime/index.js';
import { createToolHost, memoryJsonlSink, type ToolExecContext } from '../tools/index.js';

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

describe('step-up when the server names only the scope a token lacks', () => {
  let server: OAuthServer;
  const opened: string[] = [];
  const authorize = async (url: string) => {
    opened.push(url);
    await browse(url);
  };
  beforeAll(async () => {
    // mcp:root is a scope no token is ever granted (the authorization server does not know it).
    server = await startOAuthServer({ upstream: everything.url, scopes: ['mcp', 'mcp:admin'], toolScopes: { 'get-tiny-image': 'mcp:admin', 'get-env': 'mcp:root' }, stepUpNames: 'missing' });
  });
  afterAll(() => server?.close());

  it('asks for the union of the scopes the token has and the one named, and the call goes through', async () => {
    const imported = await importMcpServers([{ name: 'ev', url: server.mcpUrl, oauth: { authorize, store: createMemoryTokenStore() } }], { startTimeoutMs: 20_000 });
    try {
      const host = createToolHost();
      imported.register(host);
      expect(new URL(opened.at(-1)!).searchParams.get('scope')).toBe('mcp');
      const before = server.log.length;
      const r = await host.call({ id: 'c', name: 'ev.get-tiny-image', args: {} });
      expect(r.isError, JSON.stringify(r.error)).toBe(false);
      expect(server.log.slice(before)).toEqual(['403', 'authorize', 'token:authorization_code']);
      expect(new URL(opened.at(-1)!).searchParams.get('scope')?.split(' ').sort()).toEqual(['mcp', 'mcp:admin']);
      // The token kept the first scope: a tool that needs only it still works without a login.
      const logins = opened.length;
      expect((await host.call({ id: 'e', name: 'ev.echo', args: { message: 'still' } })).value).toBe('Echo: still');
      expect(opened.length).toBe(logins);
    } finally {
      await imported.close();
    }
  }, 60_000);

  it('steps up once: when the new token still lacks the scope, the call fails with McpAuthError naming it', async () => {
    const imported = await importMcpServers([{ name: 'ev', url: server.mcpUrl, oauth: { authorize, store: createMemoryTokenStore() } }], { startTimeoutMs: 20_000 });
    try {
      const host = createToolHost();
      imported.register(host);
      const logins = opened.length;
      const before = server.log.length;
      const r = await host.call({ id: 'c', name: 'ev.get-env', args: {} });
      expect(r.isError).toBe(true);
      expect(r.error?.message).toMatch(/MCP server "ev": refused the request for want of scope "mcp:root" after it was authorized again asking for it/);
      // One login asking for the union, then the second refusal ends it.
      expect(opened.length).toBe(logins + 1);
      expect(new URL(opened.at(-1)!).searchParams.get('scope')?.split(' ').sort()).toEqual(['mcp', 'mcp:root']);
      expect(server.log.slice(before)).toEqual(['403', 'authorize', 'token:authorization_code', '403']);
      // What the tool throws is an McpAuthError; asked again at once, it fails without another login.
      const tool = imported.tools.find((t) => t.name === 'ev.get-env')!;
      const thrown = await Promise.resolve(tool.execute({}, { signal: new AbortController().signal } as ToolExecContext)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(McpAuthError.isInstance(thrown)).toBe(true);
      expect((thrown as McpAuthError).message).toContain('scope "mcp:root"');
      expect(opened.length).toBe(logins + 1);
      // The next call that needs a scope the token has still works.
      expect((await host.call({ id: 'e', name: 'ev.echo', args: { message: 'after' } })).value).toBe('Echo: after');
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

  it('steps up under client credentials too: a new token for the union of the scopes, once', async () => {
    const stepUp = await startOAuthServer({
      upstream: everything.url,
      scopes: ['mcp', 'mcp:admin'],
      toolScopes: { 'get-tiny-image': 'mcp:admin', 'get-env': 'mcp:root' },
      stepUpNames: 'missing',
      clients: [{ clientId: 'svc', clientSecret, redirectUris: [], grantTypes: ['client_credentials'] }],
    });
    const store = createMemoryTokenStore();
    const imported = await importMcpServers([{ name: 'svc', url: stepUp.mcpUrl, oauth: { grant: 'client_credentials', clientId: 'svc', clientSecret, store } }], { startTimeoutMs: 20_000 });
    try {
      const host = createToolHost();
      imported.register(host);
      expect((await store.load())?.tokens?.scope).toBe('mcp');
      const before = stepUp.log.length;
      const r = await host.call({ id: 'a', name: 'svc.get-tiny-image', args: {} });
      expect(r.isError, JSON.stringify(r.error)).toBe(false);
      expect(stepUp.log.slice(before)).toEqual(['403', 'token:client_credentials']);
      expect((await store.load())?.tokens?.scope?.split(' ').sort()).toEqual(['mcp', 'mcp:admin']);
      const next = stepUp.log.length;
      const refused = await host.call({ id: 'b', name: 'svc.get-env', args: {} });
      expect(refused.isError).toBe(true);
      expect(refused.error?.message).toMatch(/MCP server "svc": refused the request for want of scope "mcp:root"/);
      expect(stepUp.log.slice(next)).toEqual(['403', 'token:client_credentials', '403']);
    } finally {
      await imported.close();
      await stepUp.close();
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

describe('ptc mcp login and logout', () => {
  let server: OAuthServer;
  let config: string;
  let xdg: string;
  let saved: string | undefined;
  beforeAll(async () => {
    server = await startOAuthServer({ upstream: everything.url });
    xdg = await mkdtemp(join(tmpdir(), 'ptc-xdg-'));
    config = join(xdg, 'mcp.json');
    await writeFile(config, JSON.stringify({ mcpServers: { ev: { url: server.mcpUrl, oauth: true } } }));
    saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = xdg;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    await server?.close();
    await rm(xdg, { recursive: true, force: true });
  });

  /** Runs the CLI in this process; a person's browser opens each authorization url it prints. */
  async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const opening: Promise<void>[] = [];
    const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
    const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => {
      err += String(c);
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(String(c))?.[1];
      if (url) opening.push(browse(url));
      return true;
    });
    try {
      const code = await runCli(argv);
      await Promise.all(opening);
      return { code, out, err };
    } finally {
      o.mockRestore();
      e.mockRestore();
      process.exitCode = undefined;
    }
  }

  it('logs in to a server of an mcp.json: prints the url, waits for the redirect, keeps the tokens in a 0600 file', async () => {
    const r = await cli(['mcp', 'login', 'ev', '--mcp-config', config]);
    expect(r.err).toMatch(/MCP server "ev" needs a login\. Open this url/);
    expect(r.code, r.err).toBe(0);
    const file = join(xdg, 'ptc-runtime', 'mcp-tokens', 'ev.json');
    expect(r.out).toContain(`Logged in to MCP server "ev"`);
    expect(r.out).toContain(file);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // ptc run then uses the stored login without asking.
    const before = server.log.filter((l) => l === 'authorize').length;
    const program = join(xdg, 'program.ts');
    await writeFile(program, 'return await tools.ev_echo({ message: "after login" });');
    const run = await cli(['run', program, '--isolation', 'isolate', '--mcp-config', config]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain('Echo: after login');
    expect(server.log.filter((l) => l === 'authorize').length).toBe(before);
    for (const t of server.issued) expect(run.out + run.err + r.out + r.err).not.toContain(t);
  }, 60_000);

  it('logs out: deletes the token file', async () => {
    const file = join(xdg, 'ptc-runtime', 'mcp-tokens', 'ev.json');
    const r = await cli(['mcp', 'logout', 'ev']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Logged out of MCP server "ev"');
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
    expect((await cli(['mcp', 'logout', 'ev'])).out).toContain('No login stored');
  });

  it('names the servers it knows when the name is not one of them, and refuses a stdio server', async () => {
    const r = await cli(['mcp', 'login', 'nope', '--mcp-config', config]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no MCP server named "nope" in the configuration \(it has: ev\)/);
    const s = await cli(['mcp', 'login', 'local', '--mcp', 'local=node server.js']);
    expect(s.err).toMatch(/only HTTP servers log in with OAuth/);
  });

  it('reads --oauth after a url on --mcp', async () => {
    const { parseMcpCommandLine } = await import('../mcp/index.js');
    expect(parseMcpCommandLine('ev=https://x.example/mcp --oauth')).toEqual({ name: 'ev', url: 'https://x.example/mcp', oauth: true });
  });
});
