/**
 * `ptc mcp serve --http … --store-env NAME`: two real server processes sharing one Redis (a
 * redis-server of the test's own); an MCP client runs a program on one and pages its spilled
 * output on the other. The URL comes from the environment only, and a bad variable is refused.
 */
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisServerMissing, startRedisServer, type RedisServer } from './support/redis-server.js';
import { transpileProject } from './support/transpile-project.js';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

if (redisServerMissing !== undefined) console.warn(redisServerMissing);
const suite = redisServerMissing === undefined ? describe : describe.skip;

suite('ptc mcp serve --http with --store-env (Redis)', () => {
  let server: RedisServer;
  let cli: string;
  beforeAll(async () => {
    server = await startRedisServer();
    ({ cli } = await transpileProject('redis-cli'));
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
  });

  const serve = (env: Record<string, string>) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', cli, 'mcp', 'serve', '--http', '0', '--isolation', 'isolate', '--store-env', 'SHARED_REDIS'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const url = new Promise<string>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`no url: ${err}`)), 60_000);
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) {
          clearTimeout(timer);
          ok(m[1]!);
        }
      });
      child.once('exit', (code) => fail(new Error(`exited ${code}: ${err}`)));
    });
    url.catch(() => undefined);
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    return { child, url, exited, stderr: () => err };
  };

  it('a spill made through replica A is paged whole through replica B', async () => {
    const a = serve({ SHARED_REDIS: server.url });
    const b = serve({ SHARED_REDIS: server.url });
    try {
      const [urlA, urlB] = await Promise.all([a.url, b.url]);
      const clientA = new Client({ name: 'a', version: '1' });
      const clientB = new Client({ name: 'b', version: '1' });
      await clientA.connect(new StreamableHTTPClientTransport(new URL(urlA)));
      await clientB.connect(new StreamableHTTPClientTransport(new URL(urlB)));
      const code = 'const rows = []; for (let i = 0; i < 4000; i++) rows.push({ i, name: "row " + i }); return rows;';
      const made = (await clientA.callTool({ name: 'run_code', arguments: { code } })) as CallResult;
      expect(made.isError, JSON.stringify(made).slice(0, 500)).toBeFalsy();
      const spilled = (made.structuredContent!['result'] as { spilled: { id: string; bytes: number } }).spilled;
      expect(spilled.bytes).toBeGreaterThan(0);
      let joined = '';
      let offset = 0;
      while (offset < spilled.bytes) {
        const page = (await clientB.callTool({ name: 'spill_read', arguments: { id: spilled.id, offset } })) as CallResult;
        expect(page.isError, JSON.stringify(page).slice(0, 500)).toBeFalsy();
        const value = page.structuredContent as { text: string; nextOffset: number };
        joined += value.text;
        offset = value.nextOffset;
      }
      expect(JSON.parse(joined)).toHaveLength(4000);
      await clientA.close();
      await clientB.close();
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
    }
  }, 180_000);

  it('refuses to start when the variable is unset or does not hold a redis:// URL, never printing it', async () => {
    const unset = serve({});
    expect(await unset.exited).toBe(2);
    expect(unset.stderr()).toMatch(/--store-env SHARED_REDIS: that environment variable is not set/);
    const wrong = serve({ SHARED_REDIS: 'http://user:s3cretpass@127.0.0.1:1' });
    expect(await wrong.exited).toBe(2);
    expect(wrong.stderr()).toMatch(/must hold a redis:\/\/ or rediss:\/\/ URL/);
    const down = serve({ SHARED_REDIS: 'redis://user:s3cretpass@127.0.0.1:1' });
    expect(await down.exited).toBe(2);
    expect(down.stderr()).toMatch(/--store-env SHARED_REDIS: Redis store failed to connect/);
    expect(unset.stderr() + wrong.stderr() + down.stderr()).not.toContain('s3cretpass');
  }, 120_000);
});
