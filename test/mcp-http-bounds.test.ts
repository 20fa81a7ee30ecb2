/**
 * The bounds of serveMcpHttp before auth and of its sessions (issue 24, findings 1 and 2), over
 * real sockets: time bounds with short injected values (the defaults' structure: a socket is
 * closed within its bound plus the check interval, not after a 30 s sweep), connection caps,
 * and sessions that a client cannot lock by touching them.
 */
import { connect } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { resolveHttpBounds } from '../mcp/http-bounds.js';
import { serveMcpHttp, type McpHttpServeOptions } from '../mcp/index.js';
import { createToolHost, defineTool, InvalidOptionError } from '../tools/index.js';

const TOKEN = 'bounds-test-token-0123456789';

function pingHost() {
  const host = createToolHost();
  host.register(defineTool({ name: 'ping', description: 'Answers pong.', execute: () => 'pong' }));
  return host;
}

async function serve(options: Partial<McpHttpServeOptions>) {
  return serveMcpHttp({ host: pingHost(), authToken: TOKEN, exposeTools: true, ...options });
}

/** A raw socket to the server (from `localAddress`), resolved once connected; `closedAt` once the server closed it. */
function rawSocket(url: string, localAddress = '127.0.0.1') {
  const { port } = new URL(url);
  const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress });
  const state = { socket, closedAt: undefined as number | undefined, received: '' };
  socket.on('data', (d) => (state.received += d.toString()));
  socket.on('error', () => {});
  socket.on('close', () => (state.closedAt = performance.now()));
  return new Promise<typeof state>((ok) => socket.once('connect', () => ok(state)));
}

const waitFor = async (check: () => boolean, ms: number) => {
  const end = performance.now() + ms;
  while (!check() && performance.now() < end) await new Promise((r) => setTimeout(r, 20));
  return check();
};

async function authorizedClient(url: string, name = 'client') {
  const client = new Client({ name, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

describe('when the time bounds are short', () => {
  it('closes a silent socket and one with unfinished headers within headersTimeoutMs plus the check interval (not a 30 s sweep)', async () => {
    const served = await serve({ headersTimeoutMs: 400 });
    try {
      const t0 = performance.now();
      const silent = await rawSocket(served.url);
      const partial = await rawSocket(served.url);
      partial.socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      // The bound is the point: 400 ms plus a 100 ms check interval, with room for a loaded machine.
      expect(await waitFor(() => silent.closedAt !== undefined && partial.closedAt !== undefined, 5_000)).toBe(true);
      expect(silent.closedAt! - t0).toBeGreaterThanOrEqual(350);
      expect(Math.max(silent.closedAt!, partial.closedAt!) - t0).toBeLessThan(3_000);
      expect(partial.received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await served.close();
    }
  });

  it('cuts a body trickled a byte at a time at requestTimeoutMs (a read deadline), and an idle keep-alive socket at keepAliveTimeoutMs', async () => {
    const served = await serve({ headersTimeoutMs: 300, requestTimeoutMs: 800, keepAliveTimeoutMs: 300 });
    try {
      const t0 = performance.now();
      const trickle = await rawSocket(served.url);
      const host = new URL(served.url).host;
      trickle.socket.write(`POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{`);
      const drip = setInterval(() => trickle.socket.write(' '), 100);
      try {
        expect(await waitFor(() => trickle.closedAt !== undefined, 6_000)).toBe(true);
      } finally {
        clearInterval(drip);
      }
      expect(trickle.closedAt! - t0).toBeLessThan(4_000);

      const idle = await rawSocket(served.url);
      idle.socket.write(`POST /nope HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`);
      expect(await waitFor(() => idle.received.includes('404'), 3_000)).toBe(true);
      const answered = performance.now();
      expect(await waitFor(() => idle.closedAt !== undefined, 4_000)).toBe(true);
      expect(idle.closedAt! - answered).toBeLessThan(3_000);
    } finally {
      await served.close();
    }
  });
});

describe('when one address opens more sockets than its cap', () => {
  it('closes its oldest sockets that carried no accepted request, keeps another address\'s, and still serves an authorized client', async () => {
    const served = await serve({ maxConnections: 20, maxConnectionsPerAddress: 10 });
    const sockets: Awaited<ReturnType<typeof rawSocket>>[] = [];
    try {
      for (let i = 0; i < 25; i++) sockets.push(await rawSocket(served.url, '127.0.0.1'));
      const other = [] as typeof sockets;
      for (let i = 0; i < 5; i++) other.push(await rawSocket(served.url, '127.0.0.2'));
      // Past the grace a new socket has to send its headers, the oldest of 127.0.0.1 go.
      expect(await waitFor(() => sockets.filter((s) => s.closedAt === undefined).length <= 10, 5_000)).toBe(true);
      expect(sockets.slice(0, 15).every((s) => s.closedAt !== undefined)).toBe(true);
      expect(other.every((s) => s.closedAt === undefined)).toBe(true);
      const client = await authorizedClient(served.url);
      expect(await client.callTool({ name: 'ping', arguments: {} })).toMatchObject({ structuredContent: { result: 'pong' } });
      await client.close();
      // In all: past 20, the oldest not-yet-accepted socket goes at once, whatever its address.
      for (let i = 0; i < 10; i++) other.push(await rawSocket(served.url, '127.0.0.3'));
      expect(await waitFor(() => [...sockets, ...other].filter((s) => s.closedAt === undefined).length <= 20, 3_000)).toBe(true);
      for (const s of [...sockets, ...other]) s.socket.destroy();
    } finally {
      await served.close();
    }
  });
});

describe('when serveMcpHttp is given a bad bound', () => {
  const refusal = (options: Partial<McpHttpServeOptions>) => serve(options).then((s) => s.close().then(() => 'listened'), (e: unknown) => e);

  it.each([
    [{ maxConnections: 0 }, 'maxConnections', /maxConnections must be a whole number, 1 or more, got 0$/],
    [{ maxConnections: 1.5 }, 'maxConnections', /got 1\.5$/],
    [{ maxConnectionsPerAddress: 30, maxConnections: 20 }, 'maxConnectionsPerAddress', /a whole number from 1 to maxConnections \(20\), got 30$/],
    [{ headersTimeoutMs: 0 }, 'headersTimeoutMs', /headersTimeoutMs must be a number of ms above 0/],
    [{ requestTimeoutMs: 1_000, headersTimeoutMs: 2_000 }, 'requestTimeoutMs', /at least headersTimeoutMs \(2000\)/],
    [{ keepAliveTimeoutMs: Number.NaN }, 'keepAliveTimeoutMs', /got NaN$/],
    [{ maxSessionsPerClient: 200 }, 'maxSessionsPerClient', /from 1 to maxSessions \(100\), got 200$/],
  ])('%j is an InvalidOptionError naming %s', async (options, option, message) => {
    const err = await refusal(options);
    expect(InvalidOptionError.isInstance(err), String(err)).toBe(true);
    expect(err).toMatchObject({ where: 'serveMcpHttp', option });
    expect((err as Error).message).toMatch(message);
  });

  it('has the documented defaults, the connection cap at most half the open-file limit', () => {
    expect(resolveHttpBounds({}, 100, 1_000_000)).toEqual({
      maxConnections: 512,
      maxConnectionsPerAddress: 64,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      checkIntervalMs: 1_000,
      maxSessionsPerClient: 20,
    });
    expect(resolveHttpBounds({}, 100, 1_024).maxConnections).toBe(512);
    expect(resolveHttpBounds({}, 100, 256).maxConnections).toBe(128);
    expect(resolveHttpBounds({}, 10, undefined).maxSessionsPerClient).toBe(10);
  });
});

describe('when one client holds sessions and touches them', () => {
  it('a new client still gets a session: the least recently used idle one gives way; per client the cap makes the client replace its own', async () => {
    const served = await serve({ stateful: true, maxSessions: 4, maxSessionsPerClient: 3 });
    const clients: Client[] = [];
    try {
      // One client (127.0.0.1) opens three sessions and keeps touching them.
      for (let i = 0; i < 3; i++) clients.push(await authorizedClient(served.url, `holder-${i}`));
      for (const c of clients) await c.listTools();
      // A fourth from the same address: past its own cap of 3, its least recently used idle
      // session (holder-0) gives way, not a 503.
      const fourth = await authorizedClient(served.url, 'same-address');
      await expect(clients[0]!.listTools()).rejects.toThrow(/Session not found|404/);
      for (const c of clients.slice(1)) await c.listTools();
      expect((await fourth.callTool({ name: 'ping', arguments: {} })).structuredContent).toEqual({ result: 'pong' });
      clients.push(fourth);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await served.close();
    }
  }, 30_000);

  it('past maxSessions the least recently used idle session of anyone gives way, however often the others are touched', async () => {
    const served = await serve({ stateful: true, maxSessions: 3, maxSessionsPerClient: 3 });
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 3; i++) clients.push(await authorizedClient(served.url, `holder-${i}`));
      // Touch them all, most recently the first: the second is now the least recently used.
      for (const i of [1, 2, 0]) await clients[i]!.listTools();
      const newcomer = await authorizedClient(served.url, 'newcomer');
      expect((await newcomer.callTool({ name: 'ping', arguments: {} })).structuredContent).toEqual({ result: 'pong' });
      await expect(clients[1]!.listTools()).rejects.toThrow(/Session not found|404/);
      await clients[0]!.listTools();
      await clients[2]!.listTools();
      clients.push(newcomer);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await served.close();
    }
  }, 30_000);
});

