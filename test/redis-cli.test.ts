/**
 * `ptc mcp serve --http … --store-env NAME`: two real server processes sharing one Redis (a
 * redis-server of the test's own); an MCP client runs a program on one and pages its spilled
 * output on the other. The URL comes from the environment only, and a bad variable is refused.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  let root: string;
  beforeAll(async () => {
    server = await startRedisServer();
    ({ cli, root } = await transpileProject('redis-cli'));
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
  });

  const serve = (env: Record<string, string>, flags: string[] = []) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', cli, 'mcp', 'serve', '--http', '0', '--isolation', 'isolate', '--store-env', 'SHARED_REDIS', ...flags], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
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

  it("a background job started through replica A is listed, read and killed through replica B (the tools module's createHost gets the shared job store)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptc-redis-jobs-'));
    const tools = join(dir, 'job-tools.mjs');
    writeFileSync(
      tools,
      `import { backgroundHandleSchema, createJobTools, createToolHost, defineTool } from ${JSON.stringify(join(root, 'index.js'))};\n` +
        `export function createHost(options) {\n` +
        `  const host = createToolHost(options);\n` +
        `  host.register([...createJobTools(), defineTool({ name: 'tick', description: 'Starts a job that ticks until killed.', output: { schema: backgroundHandleSchema },\n` +
        `    execute: (_args, exec) => exec.host.jobs.start({ kind: 'tick', label: 'ticks', owner: exec.agent, run: (job) => new Promise((resolve) => { job.append('tick from ' + process.pid + '\\n'); job.signal.addEventListener('abort', () => resolve(undefined)); }) }) })]);\n` +
        `  return host;\n` +
        `}\n`,
    );
    const a = serve({ SHARED_REDIS: server.url }, ['--tools', tools, '--expose-tools']);
    const b = serve({ SHARED_REDIS: server.url }, ['--tools', tools, '--expose-tools']);
    try {
      const [urlA, urlB] = await Promise.all([a.url, b.url]);
      const clientA = new Client({ name: 'a', version: '1' });
      const clientB = new Client({ name: 'b', version: '1' });
      await clientA.connect(new StreamableHTTPClientTransport(new URL(urlA)));
      await clientB.connect(new StreamableHTTPClientTransport(new URL(urlB)));
      const started = (await clientA.callTool({ name: 'tick', arguments: {} })) as CallResult;
      expect(started.isError, JSON.stringify(started).slice(0, 300)).toBeFalsy();
      const { jobId } = started.structuredContent as { jobId: string };
      const listed = (await clientB.callTool({ name: 'job_list', arguments: {} })) as CallResult;
      expect(JSON.stringify(listed.structuredContent)).toContain(jobId);
      let read: CallResult;
      for (let i = 0; ; i++) {
        read = (await clientB.callTool({ name: 'job_read', arguments: { jobId } })) as CallResult;
        if (JSON.stringify(read.structuredContent).includes('tick from') || i > 50) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(JSON.stringify(read.structuredContent)).toMatch(/"status":"running"/);
      expect(JSON.stringify(read.structuredContent)).toContain(`tick from ${a.child.pid}`);
      const killed = (await clientB.callTool({ name: 'job_kill', arguments: { jobId } })) as CallResult;
      expect(killed.isError, JSON.stringify(killed).slice(0, 300)).toBeFalsy();
      const after = (await clientA.callTool({ name: 'job_read', arguments: { jobId } })) as CallResult;
      expect(JSON.stringify(after.structuredContent)).toMatch(/"status":"killed"/);
      await clientA.close();
      await clientB.close();
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
      rmSync(dir, { recursive: true, force: true });
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
