/**
 * Durable runs from the CLI, in real processes (issue 25): `ptc mcp serve --http --store file:DIR`
 * suspends a program at its approval ask (the MCP client reads one line with the run id and no
 * token); `ptc runs list` shows what it waits for; `ptc runs approve` (another process, the key
 * from its environment) resumes it with the operator's decision; the client's `run_result` then
 * returns the program's final value. A deny reaches the program as a denial; a wrong key and a
 * missing one are refused, and nothing runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transpileProject } from './support/transpile-project.js';

const KEY = 'an operator key of at least thirty-two bytes, from the env';
let cli = '';
const dirs: string[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  cli = (await transpileProject('cli-durable')).cli;
}, 120_000);
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function ptc(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function serve(store: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', cli, 'mcp', 'serve', '--http', '127.0.0.1:0', '--isolation', 'isolate', '--store', `file:${store}`, '--durable-key-env', 'PTC_TEST_DURABLE_KEY'], {
    env: { ...process.env, PTC_TEST_DURABLE_KEY: KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d;
      const m = /listening on (http:\/\/\S+?)[;\s]/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${err}`)));
  });
  expect(err).toMatch(/durable runs in file:/);
  return { url, child };
}

const FLAG_PROGRAM = `
  const { records } = await tools.expenses_list({ employeeId: 'u-102' });
  const first = records[0]!;
  try {
    const flagged = await tools.expense_flag({ expenseId: first.id, reason: 'receipt missing' });
    return { flagged: true, id: first.id, result: flagged };
  } catch (e) {
    return { flagged: false, id: first.id, message: (e as Error).message };
  }`;

async function clientOf(url: string): Promise<Client> {
  const client = new Client({ name: 'durable-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const textOf = (r: unknown) => ((r as { content: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');

describe('durable runs through ptc mcp serve --store and ptc runs', () => {
  let store = '';
  let url = '';
  beforeAll(async () => {
    store = mkdtempSync(join(tmpdir(), 'ptc-cli-durable-'));
    dirs.push(store);
    ({ url } = await serve(store));
  }, 60_000);

  it('suspends at the ask, lists it, resumes it from another process on approve, and run_result returns the value', async () => {
    const client = await clientOf(url);
    try {
      const r = await client.callTool({ name: 'run_code', arguments: { code: FLAG_PROGRAM } });
      const text = textOf(r);
      expect(text).toMatch(/Do not run the program again/);
      expect(text).not.toMatch(/ptcr1\./);
      // The whole MCP result, structuredContent too, is the client's (the model's): no token in it.
      expect(JSON.stringify(r)).not.toMatch(/ptcr1\.|resumeToken/);
      const runId = /run[_ ]?(?:id)?[":\s]+([A-Za-z0-9_-]{16,})/i.exec(text)?.[1] ?? /"runId":\s*"([^"]+)"/.exec(JSON.stringify(r))?.[1];
      expect(runId, text).toBeDefined();

      const listed = await ptc(['runs', 'list', '--store', `file:${store}`]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(runId!);
      expect(listed.stdout).toMatch(/waits for expense_flag .*receipt missing.*: flagging an expense notifies/);
      expect(listed.stdout).not.toMatch(/ptcr1\./);

      const pending = await client.callTool({ name: 'run_result', arguments: { runId } });
      expect(JSON.parse(textOf(pending))).toMatchObject({ status: 'suspended', pending: [{ toolName: 'expense_flag' }] });

      const wrongKey = await ptc(['runs', 'approve', runId!, '--store', `file:${store}`, '--key-env', 'K', '--isolation', 'isolate'], { K: 'a different key that is also long enough to pass' });
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stderr).toMatch(/cannot be resumed/);
      const noKey = await ptc(['runs', 'approve', runId!, '--store', `file:${store}`, '--key-env', 'PTC_UNSET_KEY_VAR', '--isolation', 'isolate']);
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toMatch(/--key-env PTC_UNSET_KEY_VAR: the environment variable PTC_UNSET_KEY_VAR is not set/);

      const approved = await ptc(['runs', 'approve', runId!, '--store', `file:${store}`, '--key-env', 'K', '--isolation', 'isolate', '--by', 'ops@example.com'], { K: KEY });
      expect(approved.code, approved.stderr).toBe(0);
      const value = JSON.parse(approved.stdout) as { flagged: boolean; id: string };
      expect(value).toMatchObject({ flagged: true });

      const done = await client.callTool({ name: 'run_result', arguments: { runId } });
      expect(JSON.parse(textOf(done))).toEqual({ status: 'completed', value });
      const shown = await ptc(['runs', 'show', runId!, '--store', `file:${store}`]);
      expect(shown.stdout).toMatch(/^run \S+: completed/m);
      expect(shown.stdout).toMatch(/resumed at .*allow-once by ops@example\.com/);
      // Approved once: a second approve finds nothing to answer.
      const again = await ptc(['runs', 'approve', runId!, '--store', `file:${store}`, '--key-env', 'K', '--isolation', 'isolate'], { K: KEY });
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/is completed, not waiting for a person/);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('hands an operator deny to the program as a denial', async () => {
    const client = await clientOf(url);
    try {
      const r = await client.callTool({ name: 'run_code', arguments: { code: FLAG_PROGRAM } });
      const runId = /"runId":\s*"([^"]+)"/.exec(JSON.stringify(r))?.[1] ?? /([A-Za-z0-9_-]{22})/.exec(textOf(r))?.[1];
      const denied = await ptc(['runs', 'deny', runId!, '--store', `file:${store}`, '--key-env', 'K', '--isolation', 'isolate'], { K: KEY });
      expect(denied.code, denied.stderr).toBe(0);
      expect(JSON.parse(denied.stdout)).toMatchObject({ flagged: false, message: expect.stringMatching(/^Denied: /) });
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('ptc mcp serve --store without its key', () => {
  it('refuses to start, naming the flag it needs', async () => {
    const r = await ptc(['mcp', 'serve', '--http', '127.0.0.1:0', '--store', 'file:/tmp/ptc-never-used']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--store makes run_code durable, which needs --durable-key-env NAME/);
    const bad = await ptc(['mcp', 'serve', '--http', '127.0.0.1:0', '--store', 'redis-ish', '--durable-key-env', 'K'], { K: KEY });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--store takes file:DIR/);
  }, 60_000);
});
