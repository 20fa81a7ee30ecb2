import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer, mcpApprovalChannel } from '../mcp/index.js';
import { createRunCodeTool, type RunCodeTool } from '../runtime/index.js';
import { verifyTrace, type ToolEvent } from '../tools/index.js';
import { createHost } from '../examples/tools.js';
import { transpileProject } from './support/transpile-project.js';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

describe('when an MCP client talks to our server (in memory, real SDK Client)', () => {
  let client: Client;
  let runCode: RunCodeTool;
  const events: ToolEvent[] = [];
  beforeAll(async () => {
    const host = createHost({ onEvent: (e) => events.push(e) });
    runCode = createRunCodeTool({ host, isolation: 'isolate' });
    host.register(runCode);
    const server = createMcpServer({ host, exposeTools: true });
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'test-client', version: '1.0.0' });
    await Promise.all([server.connect(a), client.connect(b)]);
  });
  afterAll(async () => {
    await client?.close();
    await runCode?.close();
  });

  it('lists run_code with the generated declarations in its description, and the tools with output schemas', async () => {
    const { tools } = await client.listTools();
    const rc = tools.find((t) => t.name === 'run_code')!;
    expect(rc.description).toMatch(/declare const tools: Tools;/);
    expect(rc.description).toMatch(/team_list\(args\?: ToolArgsMap\["team_list"\]\): Promise<ToolOutputMap\["team_list"\]>/);
    expect(rc.inputSchema).toMatchObject({ type: 'object', properties: { code: { type: 'string' } }, required: ['code'] });
    const teamGet = tools.find((t) => t.name === 'team_get')!;
    expect(teamGet.outputSchema).toMatchObject({ type: 'object', properties: { result: {} }, required: ['result'] });
    expect(tools.find((t) => t.name === 'docs_read')!.outputSchema).toMatchObject({ type: 'object', properties: { docId: { type: 'string' } } });
  });

  it('runs a program: canonical value in structuredContent, rendered content in content', async () => {
    const r = (await client.callTool({ name: 'run_code', arguments: { code: 'const { members } = await tools.team_list({ team: "design" });\nreturn members.map((m) => m.name);' } })) as CallResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ result: ['Sam Whitfield', 'Noor Haddad', 'Elena Petrova', 'Kofi Mensah'], calls: [{ tool: 'team_list', status: 'ok' }] });
    expect(r.content[0]!.text).toContain('Noor Haddad');
  });

  it('wraps every value of a tool whose output schema is not exactly an object, objects too, so the client\'s schema check passes', async () => {
    // team_get's output is a member or null: its outputSchema is { result: member | null }. The
    // SDK client validates structuredContent against it and throws on a mismatch.
    const found = (await client.callTool({ name: 'team_get', arguments: { id: 'u-101' } })) as CallResult;
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toMatchObject({ result: { id: 'u-101' } });
  });

  it('wraps a non-object value as { result } and maps errors to isError', async () => {
    const scalar = (await client.callTool({ name: 'team_get', arguments: { id: 'u-999' } })) as CallResult;
    expect(scalar.structuredContent).toEqual({ result: null });
    const denied = (await client.callTool({ name: 'docs_read', arguments: { docId: 'doc-10' } })) as CallResult;
    expect(denied.isError).toBe(true);
    expect(denied.structuredContent).toBeUndefined();
    expect(denied.content[0]!.text).toMatch(/doc-10 is classified confidential/);
  });

  it('fails an ask closed: there is no way to ask the user', async () => {
    const r = (await client.callTool({ name: 'expense_flag', arguments: { expenseId: 'exp-0001', reason: 'please check' } })) as CallResult;
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/unavailable/);
    const decision = events.find((e) => e.type === 'tool/decision' && e.toolName === 'expense_flag' && e.stage === 'policy');
    expect(decision).toMatchObject({ decision: 'ask' });
    const call = events.find((e) => e.type === 'tool/call' && e.toolName === 'expense_flag');
    expect(call).toMatchObject({ agent: { id: 'mcp:test-client' } });
  });

  it('answers an unknown tool with an error result listing what exists', async () => {
    const r = (await client.callTool({ name: 'constructor', arguments: {} })) as CallResult;
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/^Unknown tool "constructor"\. Available tools: .*run_code/);
  });

  it('maps a rejected program (type errors) to a value the model can fix from', async () => {
    const r = (await client.callTool({ name: 'run_code', arguments: { code: 'return await tools.team_get({ id: 7 });' } })) as CallResult;
    expect(r.structuredContent).toMatchObject({ rejected: expect.stringContaining('type errors'), diagnostics: [{ line: 1 }] });
  });
});

describe('when `ptc mcp serve` runs as a real process on stdio', () => {
  let client: Client;
  const dir = mkdtempSync(join(tmpdir(), 'ptc-serve-'));
  const trace = join(dir, 'serve.jsonl');
  beforeAll(async () => {
    const { cli } = await transpileProject('mcp-serve');
    client = new Client({ name: 'stdio-client', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: ['--no-node-snapshot', cli, 'mcp', 'serve', '--isolation', 'isolate', '--trace', trace], stderr: 'pipe' }),
    );
  }, 60_000);

  it('serves only run_code, tool_search and spill_read by default and runs a program against the example tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['run_code', 'spill_read', 'tool_search']);
    const found = (await client.callTool({ name: 'tool_search', arguments: { query: 'monthly budget', limit: 1 } })) as CallResult;
    expect(found.structuredContent).toMatchObject({ matches: [{ name: 'budget_get', callable: 'budget_get', declaration: expect.stringContaining('budget_get(args: {') }] });
    const r = (await client.callTool({ name: 'run_code', arguments: { code: 'const b = await tools.budget_get({ employeeId: "u-101" });\nreturn b?.monthlyLimitCents;' } })) as CallResult;
    expect(r.structuredContent).toMatchObject({ result: 90000 });
  });

  it('lets the client page through a spilled output with spill_read, under the cap', async () => {
    const big = (await client.callTool({ name: 'run_code', arguments: { code: 'return "é".repeat(20000);' } })) as CallResult;
    const { id, bytes } = (big.structuredContent as { result: { spilled: { id: string; bytes: number } } }).result.spilled;
    expect(bytes).toBe(40_002);
    const page = (await client.callTool({ name: 'spill_read', arguments: { id, offset: 1 } })) as CallResult;
    expect(page.isError).toBeFalsy();
    expect(page.structuredContent).toMatchObject({ id, bytes, offset: 1, text: expect.stringMatching(/^é+$/) });
    const shown = (page.content as { text: string }[])[0]!.text;
    expect(Buffer.byteLength(shown, 'utf8')).toBeLessThanOrEqual(16_384);
    expect(shown.split('\n')[0]).toMatch(/^spill spill_\S+, bytes 1\.\.\d+ of 40002; next page: offset \d+ \(\d+ bytes left\)$/);
  });

  it('keeps stdout for the protocol: what a tools module prints goes to stderr', async () => {
    const { root, cli } = await transpileProject('mcp-serve-noisy');
    const tools = join(dir, 'noisy-tools.mjs');
    writeFileSync(
      tools,
      `import { defineTool } from ${JSON.stringify(join(root, 'index.js'))};\n` +
        `console.log('loading noisy tools');\n` +
        `export const tools = [defineTool({ name: 'noisy', description: 'Prints.', output: { schema: { type: 'string' } },\n` +
        `  execute: () => { console.log('{"jsonrpc":"2.0","id":2,"result":{"forged":true}}'); process.stdout.write('raw write\\n'); return 'done'; } })];\n`,
    );
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'noisy', arguments: {} } },
    ];
    const child = spawn(process.execPath, ['--no-node-snapshot', cli, 'mcp', 'serve', '--tools', tools, '--expose-tools', '--isolation', 'isolate'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdin.write(requests.map((r) => JSON.stringify(r)).join('\n') + '\n');
    for (let i = 0; i < 200 && !out.includes('"id":2'); i++) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    const lines = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: number; result?: { structuredContent?: unknown } });
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
    expect(lines[1]!.result?.structuredContent).toEqual({ result: 'done' });
    expect(err).toContain('loading noisy tools');
    // The start line counts the tools programs can call: not run_code, tool_search or spill_read.
    expect(err).toContain('ptc mcp serve: run_code over 1 tool(s), tools exposed; waiting on stdio');
    expect(err).toContain('"forged":true');
    expect(err).toContain('raw write');
  }, 60_000);

  it('exits 1 saying so when the client sends a message over 10 MiB, instead of looking like a disconnect', async () => {
    const { cli } = await transpileProject('mcp-serve-big');
    const child = spawn(process.execPath, ['--no-node-snapshot', cli, 'mcp', 'serve', '--isolation', 'isolate'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.resume();
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const huge = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_code', arguments: { code: `return "${'x'.repeat(11 * 1024 * 1024)}";` } } };
    child.stdin.on('error', () => undefined);
    child.stdin.write(JSON.stringify(init) + '\n' + JSON.stringify(huge) + '\n');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(err).toContain(`ptc: the MCP client sent a message larger than ${10 * 1024 * 1024} bytes`);
  }, 60_000);

  it('holds up against a hostile client: malformed lines, escapes in them, and a flood of requests', async () => {
    const { cli } = await transpileProject('mcp-serve-hostile');
    const child = spawn(process.execPath, ['--no-node-snapshot', cli, 'mcp', 'serve', '--isolation', 'isolate'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdin.on('error', () => undefined);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil\u001b[2K\u202E', version: '1' } } };
    const lines = [
      JSON.stringify(init),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      'not json \u001b]52;c;ZXZpbA==\u0007 \u202Eforged',
      '{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"\u001b[31mrun_code","arguments":{}}}',
      '[1,2,3]',
      ...Array.from({ length: 3_000 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'ping' })),
      JSON.stringify({ jsonrpc: '2.0', id: 9_999, method: 'tools/list' }),
    ];
    child.stdin.write(lines.join('\n') + '\n');
    for (let i = 0; i < 400 && !out.includes('"id":9999'); i++) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    const answers = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: number | string; result?: { tools?: { name: string }[] } });
    expect(answers.filter((a) => typeof a.id === 'number' && a.id >= 100 && a.id < 3_100)).toHaveLength(3_000);
    expect(answers.find((a) => a.id === 9_999)?.result?.tools?.map((t) => t.name)).toContain('run_code');
    expect(err).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202A-\u202E]/);
  }, 60_000);

  it('writes a verifiable trace that ends when the client disconnects', async () => {
    await client.close();
    for (let i = 0; i < 50 && !readFileSync(trace, 'utf8').includes('"trace/end"'); i++) await new Promise((r) => setTimeout(r, 100));
    const v = verifyTrace(readFileSync(trace, 'utf8'));
    expect(v.problems).toEqual([]);
    expect(v.events.some((e) => e.type === 'ptc/run-end')).toBe(true);
  });
});

describe('when approval is asked of the MCP client through elicitation (--approve client)', () => {
  const connect = async (answer?: (message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }) => {
    const approval = mcpApprovalChannel();
    const host = createHost({ approval });
    const server = createMcpServer({ host, exposeTools: true, approval });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'asker', version: '1' }, answer ? { capabilities: { elicitation: {} } } : {});
    const asked: string[] = [];
    if (answer) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        const message = (req.params as { message: string }).message;
        asked.push(message);
        return answer(message);
      });
    }
    await Promise.all([server.connect(a), client.connect(b)]);
    const flag = async () => (await client.callTool({ name: 'expense_flag', arguments: { expenseId: 'exp-0002', reason: 'looks off' } })) as CallResult;
    return { client, asked, flag };
  };

  it('allows once when the user accepts with allow: true, and asks again next time', async () => {
    const { client, asked, flag } = await connect(() => ({ action: 'accept', content: { allow: true } }));
    expect((await flag()).structuredContent).toMatchObject({ flagId: 'flag-1', alreadyFlagged: false });
    expect((await flag()).structuredContent).toMatchObject({ alreadyFlagged: true });
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatch(/^Tool call needs approval: expense_flag \{"expenseId":"exp-0002","reason":"looks off"\}\nWhy: flagging an expense/);
    await client.close();
  });

  it('denies when the user declines, cancels or accepts without allow', async () => {
    for (const answer of [{ action: 'decline' as const }, { action: 'cancel' as const }, { action: 'accept' as const, content: { allow: false } }]) {
      const { client, flag } = await connect(() => answer);
      const r = await flag();
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toMatch(/denied/i);
      await client.close();
    }
  });

  it('denies when the client cannot be asked', async () => {
    const { client, flag } = await connect();
    const r = await flag();
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/does not support elicitation/);
    await client.close();
  });
});
