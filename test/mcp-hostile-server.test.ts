// Issue 18: a hostile MCP server (test/fixtures/hostile-mcp-server.mjs, the real SDK) must not be
// able to hurt the host. Each test drives one attack and checks what the host does.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToolTypes } from '../codegen/index.js';
import { createHost } from '../examples/tools.js';
import { createMcpServer, importMcpServers, MAX_MCP_SERVER_SCHEMA_CHARS, McpServerStartError, type ImportMcpOptions, type McpImport } from '../mcp/index.js';
import { createRunCodeTool } from '../runtime/index.js';
import { createToolHost } from '../tools/index.js';
import { captureCli } from './support/capture-cli.js';

const fixture = resolve('test/fixtures/hostile-mcp-server.mjs');
const hostile = (name: string, ...attacks: string[]) => ({ name, command: process.execPath, args: [fixture, ...attacks] });

/** The longest the event loop went without running a 10 ms timer while `work` ran. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  try {
    const value = await work();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { value, stallMs };
  } finally {
    clearInterval(timer);
  }
}

describe('when a server answers with a value its output schema pattern backtracks on (ReDoS)', () => {
  let imported: McpImport;
  beforeAll(async () => {
    imported = await importMcpServers([hostile('h')]);
  }, 30_000);
  afterAll(() => imported?.close());

  it('never runs the server\'s regex on the host: the event loop keeps turning and the value is checked by our pipeline', async () => {
    const host = createToolHost();
    imported.register(host);
    // 28 characters: the SDK's Ajv check of "^(a+)+$" would block this thread for tens of seconds.
    const { value: r, stallMs } = await longestStall(() => host.call({ id: 'm', name: 'h.match', args: { n: 28 } }));
    expect(r.isError, JSON.stringify(r.content)).toBe(false);
    expect(r.value).toEqual({ v: `${'a'.repeat(28)}!` });
    expect(stallMs).toBeLessThan(1_000);
  });

  it('ends a program whose call never answers at the run\'s wallMs, and the host stays responsive', async () => {
    const host = createToolHost();
    imported.register(host);
    const runCode = createRunCodeTool({ host, isolation: 'isolate', limits: { wallMs: 1_500 } });
    host.register(runCode);
    try {
      const { value: r, stallMs } = await longestStall(() => host.call({ id: 'run', name: 'run_code', args: { code: 'await tools.h_hang({});\nreturn 1;' } }));
      expect(r.isError).toBe(true);
      expect(r.error?.message).toMatch(/wallMs=1500/);
      expect(stallMs).toBeLessThan(1_000);
      const echo = await host.call({ id: 'e', name: 'h.echo', args: { text: 'still here' } });
      expect(echo.value).toBe('still here');
    } finally {
      await runCode.close();
    }
  }, 30_000);
});

describe('when a server floods stderr and log notifications', () => {
  it('reports a start failure after 48 MB of stderr without a newline with a bounded tail of it', async () => {
    const { value: err, stallMs } = await longestStall(() => importMcpServers([hostile('flood', 'stderr-start=48000000', 'exit-start=3')]).then(() => new Error('it started'), (e: unknown) => e as Error));
    expect(McpServerStartError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/^MCP server "flood" \(.*hostile-mcp-server\.mjs stderr-start=48000000 exit-start=3\) failed to start: .*exited with code 3/);
    expect(err.message).toMatch(/hostile: giving up before the handshake$/);
    expect(err.message.length).toBeLessThan(3_000);
    expect(stallMs).toBeLessThan(1_000);
  }, 120_000);

  it('keeps working through 48 MB of stderr after start-up, handing an opt-in sink bounded lines', async () => {
    let pieces = 0;
    let longest = 0;
    const imported = await importMcpServers([hostile('flood')], {
      onServerStderr: (_server, line) => {
        pieces++;
        longest = Math.max(longest, line.length);
      },
    });
    try {
      const host = createToolHost();
      imported.register(host);
      const { value: r, stallMs } = await longestStall(() => host.call({ id: 'f', name: 'flood.flood_stderr', args: { bytes: 48_000_000 } }));
      expect(r.value).toBe('flooded');
      expect(stallMs).toBeLessThan(1_000);
      expect(longest).toBeLessThanOrEqual(4_001);
      expect(pieces * 4_000).toBeGreaterThanOrEqual(48_000_000 - 4_000);
    } finally {
      await imported.close();
    }
  }, 120_000);

  it('hands log notifications to an opt-in sink, each cut', async () => {
    const entries: { level: string; text: string }[] = [];
    const options: ImportMcpOptions = { onServerLog: (_s, e) => entries.push(e) };
    const imported = await importMcpServers([hostile('logs')], options);
    try {
      const host = createToolHost();
      imported.register(host);
      const r = await host.call({ id: 'l', name: 'logs.flood_log', args: { count: 500, size: 20_000 } });
      expect(r.value).toBe('logged');
      expect(entries).toHaveLength(500);
      expect(entries.every((e) => e.level === 'info' && e.text.length <= 4_001)).toBe(true);
    } finally {
      await imported.close();
    }
  }, 60_000);
});

describe('when a server dies after start', () => {
  it('reports it once with its exit code, and every later call says so', async () => {
    const exits: string[] = [];
    const imported = await importMcpServers([hostile('evil')], { onServerExit: (s, reason) => exits.push(`${s}: ${reason}`) });
    try {
      const host = createToolHost();
      imported.register(host);
      const crash = await host.call({ id: 'c', name: 'evil.crash', args: { code: 3 } });
      expect(crash.isError).toBe(true);
      expect(crash.error?.message).toMatch(/MCP server "evil" exited with code 3; it is not restarted/);
      const later = await host.call({ id: 'd', name: 'evil.echo', args: { text: 'x' } });
      expect(later.error?.message).toMatch(/MCP server "evil" exited with code 3/);
      expect(exits).toEqual(['evil: exited with code 3']);
    } finally {
      await imported.close();
    }
  }, 30_000);

  it('says so when a server sends a line over the cap and is stopped', async () => {
    const exits: string[] = [];
    const imported = await importMcpServers([hostile('liner')], { onServerExit: (s, reason) => exits.push(reason) });
    try {
      const host = createToolHost();
      imported.register(host);
      const r = await host.call({ id: 'l', name: 'liner.long_line', args: { bytes: 11 * 1024 * 1024 } });
      expect(r.error?.message).toMatch(/MCP server "liner" sent a message over 10485760 bytes/);
      expect(exits).toHaveLength(1);
    } finally {
      await imported.close();
    }
  }, 60_000);
});

describe('when a server names its tools after the host\'s', () => {
  it('skips docs.read (tools.docs_read) next to the host\'s docs_read, which keeps working', async () => {
    const imported = await importMcpServers([hostile('docs', 'collide')]);
    const host = createHost();
    const runCode = createRunCodeTool({ host, isolation: 'isolate' });
    try {
      imported.register(host);
      host.register(runCode);
      expect(host.tools().map((t) => t.name)).not.toContain('docs.read');
      expect(imported.skipped).toContainEqual({ server: 'docs', tool: 'read', reason: "its program name tools.docs_read is the host's tool docs_read" });
      const r = await host.call({ id: 'p', name: 'run_code', args: { code: 'const d = await tools.docs_read({ docId: "doc-01" });\nconst e = await tools.docs_echo({ text: "hi" });\nreturn [d.docId, e];' } });
      expect(r.isError, JSON.stringify(r.content)).toBe(false);
      expect((r.value as { result: unknown }).result).toEqual(['doc-01', 'hi']);
    } finally {
      await runCode.close();
      await imported.close();
    }
  }, 30_000);
  it('refuses host.register(imported.tools) naming both tools, so no program breaks (issue 24, finding 11)', async () => {
    const imported = await importMcpServers([hostile('docs', 'collide')]);
    const host = createHost();
    const runCode = createRunCodeTool({ host, isolation: 'isolate' });
    try {
      host.register(runCode);
      // Registering the imported tools as they are (not through imported.register) must fail now,
      // at registration, rather than break every later run_code program.
      expect(() => host.register(imported.tools)).toThrow('Cannot register tool "docs.read": its program name tools.docs_read is already the program name of tool "docs_read"');
      expect(host.get('docs.echo')).toBeUndefined(); // all or none
      const r = await host.call({ id: 'p2', name: 'run_code', args: { code: 'return (await tools.docs_read({ docId: "doc-01" })).docId;' } });
      expect(r.isError, JSON.stringify(r.content)).toBe(false);
      expect((r.value as { result: unknown }).result).toBe('doc-01');
    } finally {
      await runCode.close();
      await imported.close();
    }
  }, 30_000);
});

describe('when a server lists schemas meant to break the types', () => {
  it('lets a program leave out constructor and toString, and types a $ref loop as unknown', async () => {
    const imported = await importMcpServers([hostile('t', 'types')]);
    try {
      const host = createToolHost();
      imported.register(host);
      const r = await host.call({ id: 't', name: 't.typed', args: { loop: 1 } });
      expect(r.isError, JSON.stringify(r.content)).toBe(false);
      expect(r.value).toBe('called typed {"loop":1}');
      expect(generateToolTypes(host.tools()).declarations).not.toMatch(/type (\w+) = \1;/);
    } finally {
      await imported.close();
    }
  }, 30_000);
});

describe('when a server lists a catalog within every per-tool limit but huge in sum', () => {
  it('imports a bounded amount of schema text, lists the rest as skipped, and mcp serve\'s tools/list stays small', async () => {
    // 100 tools x 40 properties x 2,000-character descriptions: 8 MB of schema text as sent.
    const imported = await importMcpServers([hostile('big', 'catalog=100,40,2000')]);
    const host = createToolHost();
    const runCode = createRunCodeTool({ host, isolation: 'isolate' });
    try {
      imported.register(host);
      host.register(runCode);
      const big = imported.tools.filter((t) => t.name.startsWith('big.big_'));
      const text = big.reduce((n, t) => n + t.description.length + JSON.stringify(t.parametersJsonSchema).length, 0);
      expect(text).toBeLessThanOrEqual(MAX_MCP_SERVER_SCHEMA_CHARS);
      expect(big.length).toBeGreaterThan(10);
      expect(imported.skipped.filter((s) => s.tool.startsWith('big_'))).toHaveLength(100 - big.length);
      const server = createMcpServer({ host, exposeTools: true });
      const [a, b] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'sizer', version: '1' });
      await Promise.all([server.connect(a), client.connect(b)]);
      const listed = JSON.stringify(await client.listTools());
      await client.close();
      // The SDK's clients close the connection on a message over 10 MiB; "well under" is a fifth of it.
      expect(listed.length).toBeLessThan(2 * 1024 * 1024);
      console.log(`tools/list with the hostile catalog: ${listed.length} characters (${big.length} of 100 tools imported)`);
    } finally {
      await runCode.close();
      await imported.close();
    }
  }, 60_000);
});

describe('when a server puts terminal escapes in names and descriptions', () => {
  it('never lets them reach the terminal through the CLI: skip reasons and warnings are escaped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-hostile-cli-'));
    const script = join(dir, 'p.ts');
    writeFileSync(script, 'return 1;\n');
    const r = await captureCli(['run', script, '--isolation', 'isolate', '--mcp', `h=${process.execPath} ${fixture} names=escape`]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202A-\u202E\u2066-\u2069\u200B]/);
    expect(r.err).toContain('ptc: warning: MCP tool h.evil\\u001B[2K\\u000Dptc mcp serve: forged not imported');
    expect(r.err).toContain('unknown type ["weird\\u001b[31m"] ignored');
  }, 60_000);
});
