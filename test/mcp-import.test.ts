import { mkdirSync, mkdtempSync, realpathSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToolTypes } from '../codegen/index.js';
import { importMcpServers, McpServerStartError, TEXT_RESULT_NOTE, type McpImport } from '../mcp/index.js';
import { createRunCodeTool, type RunCodeRejected } from '../runtime/index.js';
import { createToolHost, type ToolEvent, type ToolHost } from '../tools/index.js';

const bin = (name: string) => resolve('node_modules/.bin', name);
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-mcp-fs-')));
let imported: McpImport;
let host: ToolHost;
const events: ToolEvent[] = [];

beforeAll(async () => {
  mkdirSync(join(root, 'notes'));
  writeFileSync(join(root, 'notes', 'a.txt'), 'alpha\nbeta\n');
  writeFileSync(join(root, 'notes', 'b.txt'), 'gamma\n');
  writeFileSync(join(root, 'notes', 'c.txt'), 'delta epsilon zeta\n');
  imported = await importMcpServers([
    { name: 'everything', command: bin('mcp-server-everything'), args: ['stdio'] },
    { name: 'fs', command: bin('mcp-server-filesystem'), args: [root] },
  ]);
  host = createToolHost({ onEvent: (e) => events.push(e) });
  host.register(imported.tools);
  host.hooks.guard((ex) => (ex.toolName === 'fs.write_file' ? 'writes are not allowed in this session' : undefined));
}, 60_000);
afterAll(async () => {
  await imported?.close();
});

const call = (name: string, args: unknown) => host.call({ id: `c-${Math.random()}`, name, args }, { agent: { id: 't' } });

describe('when tools are imported from real MCP servers over stdio', () => {
  it('registers every tool under its server prefix', () => {
    const names = host.tools().map((t) => t.name);
    expect(names).toContain('everything.echo');
    expect(names).toContain('everything.get-structured-content');
    expect(names).toContain('fs.read_text_file');
    expect(names).toContain('fs.list_directory');
    expect(imported.servers.map((s) => [s.name, s.toolCount > 5])).toEqual([
      ['everything', true],
      ['fs', true],
    ]);
    // server-everything's research tool requires MCP tasks: skipped and listed, never imported to fail on every call.
    expect(imported.skipped).toEqual([{ server: 'everything', tool: 'simulate-research-query', reason: expect.stringMatching(/requires MCP tasks/) }]);
  });

  it("declines a server's elicitation by default, and hands it to the host's elicitation handler when given", async () => {
    const declined = await call('everything.trigger-elicitation-request', {});
    expect(declined.isError).toBe(false);
    expect(declined.value).toMatch(/declined/);
    expect(declined.value).toMatch(/no elicitation handler was given/);
    const asked: string[] = [];
    const other = await importMcpServers([{ name: 'ev2', command: bin('mcp-server-everything'), args: ['stdio'] }], {
      elicitation: async (server, request) => {
        asked.push(`${server}: ${request.message}`);
        return { action: 'accept', content: { name: 'Ada Lovelace' } };
      },
    });
    try {
      const h = createToolHost();
      other.register(h);
      const accepted = await h.call({ id: 'e1', name: 'ev2.trigger-elicitation-request', args: {} });
      expect(accepted.value).toMatch(/Ada Lovelace/);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(/^ev2: /);
    } finally {
      await other.close();
    }
  }, 30_000);

  it('re-serves an imported tool with the annotations its server listed', async () => {
    const { mcpToolMetaOf } = await import('../mcp/tool-meta.js');
    const tool = host.tools().find((t) => t.name === 'fs.read_text_file')!;
    expect(mcpToolMetaOf(tool)?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('uses structuredContent as the canonical value, and text when there is none', async () => {
    const structured = await call('everything.get-structured-content', { location: 'Chicago' });
    expect(structured.isError).toBe(false);
    expect(structured.value).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
    const echo = await call('everything.echo', { message: 'hi there' });
    expect(echo.value).toBe('Echo: hi there');
    const listing = await call('fs.list_directory', { path: join(root, 'notes') });
    expect((listing.value as { content: string }).content).toMatch(/\[FILE\] a\.txt/);
  });

  it("gives a direct call the server's own content blocks (resource links, images), and a program the text", async () => {
    const links = await call('everything.get-resource-links', { count: 2 });
    expect(links.isError).toBe(false);
    expect(typeof links.value).toBe('string');
    expect(links.value).toMatch(/\[resource_link /);
    expect(links.content[0]).toEqual({ type: 'text', text: expect.stringMatching(/2 resource links/) });
    expect(links.content.slice(1)).toEqual([
      expect.objectContaining({ type: 'resource_link', uri: expect.stringMatching(/^demo:\/\//), name: expect.stringMatching(/Resource 1/) }),
      expect.objectContaining({ type: 'resource_link', name: expect.stringMatching(/Resource 2/) }),
    ]);
    const image = await call('everything.get-tiny-image', {});
    expect(image.content.map((b) => b.type)).toContain('image');
    const embedded = await call('everything.get-resource-reference', { resourceType: 'Text', resourceId: 2 });
    expect(embedded.content.map((b) => b.type)).toContain('resource');
  });

  it('validates arguments in our pipeline before the server sees them', async () => {
    const bad = await call('everything.get-sum', { a: 1, b: 'two' });
    expect(bad.error?.kind).toBe('invalid-args');
    expect(bad.error?.message).toMatch(/\bb\b/);
  });

  it('turns a server-side error into a tool error carrying the server text', async () => {
    const outside = await call('fs.read_text_file', { path: '/etc/passwd' });
    expect(outside.isError).toBe(true);
    expect(outside.error?.kind).toBe('execution');
    expect(outside.error?.message).toMatch(/outside allowed directories|Access denied/i);
  });

  it('applies host guards to MCP tools: a denied write never reaches the server', async () => {
    const target = join(root, 'notes', 'new.txt');
    const r = await call('fs.write_file', { path: target, content: 'x' });
    expect(r.denied).toMatchObject({ by: 'guard', reason: 'writes are not allowed in this session' });
    expect(existsSync(target)).toBe(false);
  });

  it('schedules read-only tools in parallel and the rest exclusively', () => {
    expect(host.executionMode({ name: 'fs.read_text_file', args: { path: 'x' } })).toEqual({ kind: 'parallel' });
    expect(host.executionMode({ name: 'fs.write_file', args: { path: 'x', content: '' } })).toEqual({ kind: 'exclusive' });
  });

  it('generates typed bindings with the documented callable names', () => {
    const types = generateToolTypes(host.tools());
    expect(types.callableNames.get('everything.get-sum')).toBe('everything_get_sum');
    expect(types.declarations).toMatch(/everything_get_sum\(args: ToolArgsMap\["everything\.get-sum"\]\)/);
    expect(types.outputMap).toMatch(/"fs\.read_text_file": \{\s*content: string;\s*\}/);
  });

  it('declares a tool without an outputSchema as the string it resolves to, and says so', async () => {
    const types = generateToolTypes(host.tools());
    expect(types.outputMap).toMatch(/"everything\.get-sum": string;/);
    expect(types.outputMap).toMatch(/"everything\.echo": string;/);
    expect(types.outputMap).not.toMatch(/"everything\.[^"]+": unknown;/);
    expect(types.declarations).toContain(TEXT_RESULT_NOTE);
    // A tool with an outputSchema keeps its structured type.
    expect(types.outputMap).toMatch(/"fs\.read_text_file": \{\s*content: string;\s*\}/);
  });

  it("type-checks and runs a program's .split(' ') on such a tool's value", async () => {
    const runCode = createRunCodeTool({ isolation: 'isolate', host, typecheck: 'reject' });
    const disposable = host.register(runCode);
    try {
      const code = `const words = (await tools.everything_get_sum({ a: 2, b: 3 })).split(' '); return { last: words[words.length - 1], n: words.length };`;
      const r = await host.call({ id: 'run-split', name: 'run_code', args: { code } }, { agent: { id: 't' } });
      expect(r.isError, JSON.stringify(r.content)).toBe(false);
      const result = (r.value as { result: { last: string; n: number } }).result;
      expect(result.last).toMatch(/5/);
      expect(result.n).toBeGreaterThan(1);
      // Without the declaration the same program is refused by the check: numbers have no split.
      const bad = await host.call({ id: 'run-split-bad', name: 'run_code', args: { code: 'const n: number = await tools.everything_get_sum({ a: 2, b: 3 }); return n;' } }, { agent: { id: 't' } });
      const rejected = bad.value as unknown as RunCodeRejected;
      expect(rejected.rejected).toMatch(/not run/);
      expect(rejected.diagnostics[0]?.message).toMatch(/'string' is not assignable to type 'number'/);
    } finally {
      disposable.dispose();
      await runCode.close();
    }
  }, 30_000);

  it('lets one program batch calls across both servers through run_code', async () => {
    const runCode = createRunCodeTool({ isolation: 'isolate', host });
    const disposable = host.register(runCode);
    try {
      const code = `
        const dir = ${JSON.stringify(join(root, 'notes'))};
        const listing = await tools.fs_list_directory({ path: dir });
        const files = listing.content.split('\\n').filter((l) => l.startsWith('[FILE] ')).map((l) => l.slice(7));
        const texts = await Promise.all(files.map((f) => tools.fs_read_text_file({ path: dir + '/' + f })));
        const words = texts.map((t) => t.content.trim().split(/\\s+/).length);
        let total = 0;
        for (const w of words) total = Number(String(await tools.everything_get_sum({ a: total, b: w })).match(/(-?\\d+)\\D*$/)?.[1] ?? NaN);
        const echoed = await tools.everything_echo({ message: files.join(',') });
        return { files, words, total, echoed };
      `;
      const r = await host.call({ id: 'run-mcp', name: 'run_code', args: { code } }, { agent: { id: 't' } });
      expect(r.isError, JSON.stringify(r.content)).toBe(false);
      expect((r.value as { result: unknown }).result, JSON.stringify(r.value)).toEqual({ files: ['a.txt', 'b.txt', 'c.txt'], words: [2, 1, 3], total: 6, echoed: 'Echo: a.txt,b.txt,c.txt' });
      const children = events.filter((e) => e.type === 'tool/call' && e.origin.kind === 'ptc' && e.origin.parentCallId === 'run-mcp').map((e) => (e as { toolName: string }).toolName);
      expect(new Set(children)).toEqual(new Set(['fs.list_directory', 'fs.read_text_file', 'everything.get-sum', 'everything.echo']));
      expect(children).toHaveLength(1 + 3 + 3 + 1);
    } finally {
      disposable.dispose();
      await runCode.close();
    }
  }, 30_000);
});

describe('when a server cannot start', () => {
  it('names the server and the command', async () => {
    const err = await importMcpServers([{ name: 'ghost', command: '/nonexistent/mcp-ghost', args: [] }]).catch((e: unknown) => e);
    expect(McpServerStartError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(/^MCP server "ghost" \(\/nonexistent\/mcp-ghost\) failed to start/);
  });

  it('names a server that exits with its stderr', async () => {
    const err = await importMcpServers([{ name: 'crashy', command: process.execPath, args: ['-e', 'console.error("boom: missing API key"); process.exit(3)'] }]).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/MCP server "crashy"/);
    expect((err as Error).message).toMatch(/boom: missing API key/);
  });
});

describe('when a server lists hostile or colliding tools', () => {
  const script = `
    import('@modelcontextprotocol/sdk/server/mcp.js').then(async ({ McpServer }) => {
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const { ListToolsRequestSchema, CallToolRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
      const s = new McpServer({ name: 'hostile', version: '1' }, { capabilities: { tools: {} } });
      const obj = { type: 'object', properties: { q: { type: 'string', pattern: '(a+)+$' } } };
      s.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
        { name: 'a-b', description: 'first', inputSchema: obj },
        { name: 'a_b', description: 'collides', inputSchema: obj },
        { name: 'x'.repeat(300), description: 'too long', inputSchema: obj },
        { name: 'big', description: 'd'.repeat(50000), inputSchema: obj },
        { name: 'constructor', inputSchema: { type: 'object' } },
      ] }));
      s.server.setRequestHandler(CallToolRequestSchema, async (r) => ({ content: [{ type: 'text', text: 'called ' + r.params.name + ' ' + JSON.stringify(r.params.arguments) }] }));
      await s.connect(new StdioServerTransport());
    });`;

  it('keeps the first of two colliding names, skips what cannot be a tool, caps descriptions, drops regexes', async () => {
    const imported = await importMcpServers([{ name: 'h', command: process.execPath, args: ['-e', script] }]);
    try {
      expect(imported.tools.map((t) => t.name)).toEqual(['h.a-b', 'h.big', 'h.constructor']);
      expect(imported.skipped.map((s) => s.tool)).toEqual(expect.arrayContaining(['a_b', 'x'.repeat(200)]));
      expect(imported.skipped.find((s) => s.tool === 'a_b')?.reason).toMatch(/tools\.h_a_b is taken by h\.a-b/);
      expect(imported.tools.find((t) => t.name === 'h.big')!.description.length).toBeLessThanOrEqual(4000);
      const host = createToolHost();
      host.register(imported.tools);
      const r = await host.call({ id: 'x', name: 'h.constructor', args: {} });
      expect(r.value).toBe('called constructor {}');
      const slow = await host.call({ id: 'y', name: 'h.a-b', args: { q: 'a'.repeat(40) + '!' } });
      expect(slow.value).toMatch(/^called a-b/);
    } finally {
      await imported.close();
    }
  }, 30_000);
});
