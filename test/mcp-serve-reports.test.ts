import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../cli/main.js';
import { createMcpServer, serveMcpHttp } from '../mcp/index.js';
import { createRunCodeTool, type RunCodeTool } from '../runtime/index.js';
import { createToolHost, defineTool } from '../tools/index.js';

describe('when a served tool or program reports progress and logs', () => {
  let client: Client;
  let runCode: RunCodeTool;
  const logs: LoggingMessageNotification['params'][] = [];
  beforeAll(async () => {
    const host = createToolHost();
    host.register([
      defineTool({
        name: 'step',
        description: 'One step.',
        parameters: { n: { type: 'number' } },
        execute: (args: { n: number }, exec) => {
          exec.log({ level: 'info', message: `step ${args.n}` });
          exec.log({ level: 'error', message: `step ${args.n} complained` });
          return args.n;
        },
      }),
      defineTool({
        name: 'slow',
        description: 'Reports progress.',
        execute: (_args, exec) => {
          exec.progress({ progress: 1, total: 2, message: 'half' });
          exec.progress({ progress: 2, total: 2, message: 'done' });
          return 'ok';
        },
      }),
    ]);
    runCode = createRunCodeTool({ host, isolation: 'isolate' });
    host.register(runCode);
    const server = createMcpServer({ host, exposeTools: true });
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'reports-client', version: '1.0.0' });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await Promise.all([server.connect(a), client.connect(b)]);
  });
  afterAll(async () => {
    await client?.close();
    await runCode?.close();
  });

  it('advertises logging, and sends a tool\'s progress only to a request that carried a progressToken', async () => {
    expect(client.getServerCapabilities()?.logging).toEqual({});
    // Tools are listed once; no list_changed notification is ever sent, so none is advertised.
    expect(client.getServerCapabilities()?.tools?.listChanged).toBeUndefined();
    const seen: Progress[] = [];
    const slow = await client.callTool({ name: 'slow', arguments: {} }, CallToolResultSchema, { onprogress: (p) => void seen.push(p) });
    expect(slow.isError, JSON.stringify(slow)).toBeFalsy();
    expect(seen.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, 2, 'half'],
      [2, 2, 'done'],
    ]);
  });

  it("reports run_code's own progress as its calls settle, and its child calls' logs at or above the client's level", async () => {
    await client.setLoggingLevel('error');
    logs.length = 0;
    const seen: Progress[] = [];
    const r = await client.callTool(
      { name: 'run_code', arguments: { code: 'const a = await Promise.all([tools.step({ n: 1 }), tools.step({ n: 2 })]); await tools.step({ n: 3 }); return a.length + 2;' } },
      CallToolResultSchema,
      { onprogress: (p) => void seen.push(p) },
    );
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(JSON.stringify(r.structuredContent)).toMatch(/"result":4/);
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(seen[2]!.message).toBe('3 of 3 calls settled');
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs.map((l) => [l.level, l.logger, l.data])).toEqual([
      ['error', 'step', 'step 1 complained'],
      ['error', 'step', 'step 2 complained'],
      ['error', 'step', 'step 3 complained'],
    ]);
    await client.setLoggingLevel('debug');
    logs.length = 0;
    await client.callTool({ name: 'step', arguments: { n: 4 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs.map((l) => l.level)).toEqual(['info', 'error']);
  }, 30_000);
});

describe('logging/setLevel over HTTP', () => {
  const host = createToolHost();
  host.register(
    defineTool({
      name: 'step',
      description: 'One step.',
      parameters: { n: { type: 'number' } },
      execute: (args: { n: number }, exec) => {
        exec.log({ level: 'info', message: `step ${args.n}` });
        exec.log({ level: 'error', message: `step ${args.n} complained` });
        return args.n;
      },
    }),
  );

  /** Connects a client to `url`; returns it and the levels of the log notifications it got. */
  async function connect(url: string) {
    const levels: string[] = [];
    const client = new Client({ name: 'levels-client', version: '1.0.0' });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void levels.push(n.params.level));
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const call = async (n: number) => {
      levels.length = 0;
      const r = await client.callTool({ name: 'step', arguments: { n } });
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      return [...levels];
    };
    return { client, call };
  }

  it('stateless: a setLevel is answered but lasts for its own request only; the server\'s logLevel is what every request gets', async () => {
    const served = await serveMcpHttp({ host, exposeTools: true, port: 0, logLevel: 'warning' });
    const { client, call } = await connect(served.url);
    try {
      expect(await call(1)).toEqual(['error']);
      await expect(client.setLoggingLevel('debug')).resolves.toEqual({});
      // The next request has a server of its own, which knows only the server's level.
      expect(await call(2)).toEqual(['error']);
    } finally {
      await client.close();
      await served.close();
    }
    const all = await serveMcpHttp({ host, exposeTools: true, port: 0 });
    const plain = await connect(all.url);
    try {
      await plain.client.setLoggingLevel('error');
      expect(await plain.call(3)).toEqual(['info', 'error']);
    } finally {
      await plain.client.close();
      await all.close();
    }
  });

  it('with sessions: the client\'s level lasts for its session', async () => {
    const served = await serveMcpHttp({ host, exposeTools: true, port: 0, stateful: true });
    const { client, call } = await connect(served.url);
    try {
      expect(await call(1)).toEqual(['info', 'error']);
      await client.setLoggingLevel('error');
      expect(await call(2)).toEqual(['error']);
      expect(await call(3)).toEqual(['error']);
      await client.setLoggingLevel('debug');
      expect(await call(4)).toEqual(['info', 'error']);
    } finally {
      await client.close();
      await served.close();
    }
  });

  it('refuses a logLevel that is not one, naming the levels (and so does ptc mcp serve --log-level)', async () => {
    await expect(serveMcpHttp({ host, port: 0, logLevel: 'loud' as never })).rejects.toThrow(/serveMcpHttp: logLevel must be one of debug, info, notice, warning, error, critical, alert, emergency, got "loud"/);
    let err = '';
    const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
    try {
      expect(await runCli(['mcp', 'serve', '--http', '0', '--log-level', 'loud'])).toBe(2);
    } finally {
      e.mockRestore();
      process.exitCode = undefined;
    }
    expect(err).toMatch(/--log-level must be one of debug, info, .*emergency, got "loud"/);
  });
});
