/**
 * `ptc mcp serve --http` against a hostile client that has no token (issue 24, finding 1): the
 * server runs as a real process at `ulimit -n 1024`, one client holds ~1,100 half-open sockets
 * (request headers started, never finished) and reopens each one the server closes, and an
 * authorized client's `initialize` and `run_code` must still be served, promptly. Before the
 * connection bounds the server sat at 1,024 fds and every authorized request got ECONNRESET.
 *
 * The server runs with its default bounds (no flag): the attack is bounded in sockets (1,100 at
 * once), in connects (60,000) and in time (it stops once the authorized client is done, or after
 * 45 s), and only loopback is used.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transpileProject } from './support/transpile-project.js';

const TOKEN = 'hostile-test-token-0123456789abcdef';
const SOCKETS = 1_100;
const MAX_CONNECTS = 60_000;

/** Starts the CLI at `ulimit -n 1024`; resolves with its url once it listens. */
async function startServer(cli: string, flags: readonly string[] = []): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const line = [process.execPath, '--no-node-snapshot', cli, 'mcp', 'serve', '--http', '0', '--auth-token-env', 'PTC_HOSTILE_TOKEN', ...flags].map((a) => `'${a}'`).join(' ');
  const child = spawn('bash', ['-c', `ulimit -n 1024; exec ${line}`], { env: { ...process.env, PTC_HOSTILE_TOKEN: TOKEN }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no url: ${err}`)), 60_000);
    const poll = setInterval(() => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) {
        clearInterval(poll);
        clearTimeout(timer);
        ok(m[1]!);
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      fail(new Error(`the server exited with ${code}: ${err}`));
    });
  });
  return { child, url, stderr: () => err };
}

/** Open fds of a process (Linux). */
const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/**
 * The attacker: keeps `SOCKETS` sockets open, each with unfinished headers and no token, and
 * opens a new one for each the server closes, until stopped or out of its connect budget.
 */
function attack(port: number) {
  const open = new Set<Socket>();
  let connects = 0;
  let closedByServer = 0;
  let maxOpen = 0;
  let stopped = false;
  const dial = () => {
    if (stopped || connects >= MAX_CONNECTS) return;
    connects++;
    const socket = connect({ host: '127.0.0.1', port });
    open.add(socket);
    socket.on('connect', () => {
      maxOpen = Math.max(maxOpen, [...open].filter((s) => !s.connecting).length);
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n`);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      open.delete(socket);
      if (stopped) return;
      closedByServer++;
      // Reconnect, as a client that wants to keep its sockets would (a macrotask later, so the
      // loop cannot starve this process).
      setTimeout(dial, 0);
    });
  };
  for (let i = 0; i < SOCKETS; i++) dial();
  return {
    stats: () => ({ connects, closedByServer, maxOpen, open: open.size }),
    stop() {
      stopped = true;
      for (const s of open) s.destroy();
    },
  };
}

describe('when a client without the token holds ~1,100 half-open sockets against ptc mcp serve --http at ulimit -n 1024', () => {
  let cli: string;
  beforeAll(async () => {
    ({ cli } = await transpileProject('mcp-http-hostile'));
  }, 120_000);

  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await new Promise((r) => server!.child.once('exit', r));
    }
  });

  it('still serves an authorized client\'s initialize and run_code, promptly, with the default bounds', async () => {
    server = await startServer(cli);
    const { port } = new URL(server.url);
    /** One authorized client: initialize, then run_code; how long each took. */
    const authorizedRound = async (name: string) => {
      const client = new Client({ name, version: '1' });
      const t0 = performance.now();
      await client.connect(new StreamableHTTPClientTransport(new URL(server!.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
      const t1 = performance.now();
      const r = (await client.callTool({ name: 'run_code', arguments: { code: 'return 6 * 7;' } })) as { structuredContent?: unknown; isError?: boolean };
      const t2 = performance.now();
      await client.close();
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ result: 42 });
      return { initializeMs: Math.round(t1 - t0), runCodeMs: Math.round(t2 - t1) };
    };
    // Before the attack: the first run starts a sandbox process, which is not what is measured.
    const quiet = await authorizedRound('before-the-attack');
    const attacker = attack(Number(port));
    const timings: { initializeMs: number; runCodeMs: number }[] = [];
    let peakFds = 0;
    const fdPoll = setInterval(() => (peakFds = Math.max(peakFds, openFds(server!.child.pid!))), 50);
    const deadline = setTimeout(() => attacker.stop(), 45_000);
    try {
      // Let the attack reach its full size before the authorized client comes.
      const ramp = Date.now();
      while (attacker.stats().connects < SOCKETS + 200 && Date.now() - ramp < 10_000) await new Promise((r) => setTimeout(r, 50));
      for (let round = 0; round < 3; round++) timings.push(await authorizedRound(`authorized-${round}`));
    } finally {
      clearTimeout(deadline);
      clearInterval(fdPoll);
      const stats = attacker.stats();
      attacker.stop();
      // The figures for docs/mcp.md and the report.
      console.log(JSON.stringify({ attacker: stats, serverPeakFds: peakFds, quiet, underAttack: timings }));
    }
    // The attack was real: the server had to close sockets to stay within its bounds.
    expect(attacker.stats().connects).toBeGreaterThan(SOCKETS);
    expect(attacker.stats().closedByServer).toBeGreaterThan(0);
    // The bound is the point here: served, and well before the old 30 s sweep would have freed
    // anything (generous: this machine is shared and often loaded).
    for (const t of timings) expect(t.initializeMs + t.runCodeMs).toBeLessThan(25_000);
    expect(peakFds).toBeLessThan(1_024);
    expect(server.child.exitCode).toBeNull();
  }, 150_000);
});
