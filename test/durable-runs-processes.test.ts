/**
 * Durable runs across host processes on one run store, the file store and a Redis one on a
 * redis-server of the test's own (test/fixtures/durable-host.mjs, on the built package): a host SIGKILLed while its run is suspended, a host killed inside a tool's
 * body after a resume, and two hosts resuming the same run at once. Effects are counted in a
 * ledger file the tools append to.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { redisServerMissing, startRedisServer, type RedisServer } from './support/redis-server.js';

const FIXTURE = resolve('test/fixtures/durable-host.mjs');
const dirs: string[] = [];
const children = new Set<ReturnType<typeof spawn>>();

afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

let redis: RedisServer | undefined;
let kind: 'file' | 'redis' = 'file';
let prefixes = 0;

/** A ledger, and a store of the suite's kind: a directory, or a Redis URL and a key prefix of its own. */
async function workspace() {
  const dir = await mkdtemp(join(tmpdir(), 'ptc-durable-'));
  dirs.push(dir);
  const ledger = join(dir, 'ledger.jsonl');
  if (kind === 'redis') return { store: redis!.url, ledger, env: { STORE_PREFIX: `p${process.pid}x${++prefixes}:` } };
  return { store: join(dir, 'runs'), ledger, env: {} as Record<string, string> };
}
let currentEnv: Record<string, string> = {};

interface Host {
  readonly pid: number;
  /** The first line it prints (its run_code result, or what resume threw), parsed. */
  readonly output: Promise<Record<string, unknown>>;
  readonly exited: Promise<number | null>;
  kill(): void;
}

function host(args: string[], env: Record<string, string> = {}): Host {
  const child = spawn(process.execPath, ['--no-node-snapshot', FIXTURE, ...args], { env: { ...process.env, ...currentEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const output = new Promise<Record<string, unknown>>((resolveOut, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n')) resolveOut(JSON.parse(line!) as Record<string, unknown>);
    });
    child.on('exit', (code) => reject(new Error(`host exited (${code}) before printing a result: ${stderr.slice(-2000)}`)));
  });
  output.catch(() => undefined);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { pid: child.pid!, output, exited, kill: () => child.kill('SIGKILL') };
}

async function ledgerOf(path: string): Promise<{ tool: string; key: string | null; args: Record<string, unknown>; pid: number }[]> {
  if (!existsSync(path)) return [];
  return (await readFile(path, 'utf8')).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const PROGRAM = `
  const [a, b, c] = await Promise.all([tools.read({ n: 1 }), tools.read({ n: 2 }), tools.read({ n: 3 })]);
  const r = Math.random();
  await tools.notify({ text: 'before ' + r });
  const charged = await tools.charge({ text: String(a + b + c) });
  await tools.notify({ text: 'after ' + charged });
  return { sum: a + b + c, r, charged };`;

type Suspension = { runId: string; resumeToken: string; pending: { approvalId: string }[] };

async function suspend(ws: { store: string; ledger: string; env: Record<string, string> }, code = PROGRAM): Promise<{ s: Suspension; a: Host }> {
  currentEnv = ws.env;
  const a = host(['start', ws.store, ws.ledger, code], { STAY: '1' });
  const out = await a.output;
  const s = (out.value as { suspended: Suspension }).suspended;
  expect(s, JSON.stringify(out)).toBeDefined();
  return { s, a };
}

const allow = (s: Suspension) => JSON.stringify(s.pending.map((p) => ({ approvalId: p.approvalId, decision: 'allow-once' })));

if (redisServerMissing !== undefined) console.warn(redisServerMissing);
const kinds = redisServerMissing === undefined ? (['file', 'redis'] as const) : (['file'] as const);

describe.each(kinds)('durable runs across host processes (%s run store)', (storeKind) => {
  beforeAll(async () => {
    kind = storeKind;
    if (storeKind === 'redis') redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.dispose();
    redis = undefined;
  });

  it('a host SIGKILLed while its run is suspended: a new process resumes it, each effect exactly once, randomness replayed', { timeout: 120_000 }, async () => {
    const ws = await workspace();
    const { s, a } = await suspend(ws);
    a.kill();
    await a.exited;
    const b = host(['resume', ws.store, ws.ledger, s.resumeToken, allow(s)]);
    const out = await b.output;
    expect(out.isError, JSON.stringify(out)).toBe(false);
    const result = (out.value as { result: { sum: number; r: number; charged: string } }).result;
    expect(result).toMatchObject({ sum: 60, charged: 'charge ok' });
    const ledger = await ledgerOf(ws.ledger);
    expect(ledger.map((e) => e.tool)).toEqual(['read', 'read', 'read', 'notify', 'charge', 'notify']);
    expect(ledger.filter((e) => e.pid === a.pid).map((e) => e.tool)).toEqual(['read', 'read', 'read', 'notify']);
    expect(ledger.find((e) => e.tool === 'charge')).toMatchObject({ key: `${s.runId}.5`, pid: b.pid });
    // The value the program read before the pause, on host A, is the one it returned on host B.
    expect(ledger[3]!.args.text).toBe(`before ${result.r}`);
    // The token is single-use, also for a third process.
    const c = host(['resume', ws.store, ws.ledger, s.resumeToken, allow(s)]);
    expect(await c.output).toMatchObject({ thrown: 'RunResumeError' });
    expect(await ledgerOf(ws.ledger)).toHaveLength(6);
  });

  it.each([
    ['not idempotent: the program is told it may have completed, and it is not repeated', '', 1],
    ['idempotent: it runs again with the same key', 'charge', 2],
  ])('a host killed inside a tool body after a resume, %s', { timeout: 120_000 }, async (_what, idempotent, charges) => {
    const ws = await workspace();
    const { s, a } = await suspend(ws, `const r = await tools.charge({ text: 'pay' }).catch((e) => e.message); return r;`);
    a.kill();
    const b = host(['resume', ws.store, ws.ledger, s.resumeToken, allow(s)], { HANG_IN: 'charge', LEASE_MS: '1000', IDEMPOTENT: idempotent });
    await until(async () => ((await ledgerOf(ws.ledger)).some((e) => e.tool === 'charge') ? true : undefined), 'the charge to start');
    b.kill();
    await b.exited;
    // After the dead resumer's lease: the same token, on a third host.
    const c = host(['resume', ws.store, ws.ledger, s.resumeToken, allow(s)], { IDEMPOTENT: idempotent, NOW_OFFSET_MS: '5000' });
    const out = await c.output;
    expect(out.isError, JSON.stringify(out)).toBe(false);
    const result = (out.value as { result: string }).result;
    const ledger = (await ledgerOf(ws.ledger)).filter((e) => e.tool === 'charge');
    expect(ledger).toHaveLength(charges);
    expect(new Set(ledger.map((e) => e.key))).toEqual(new Set([`${s.runId}.1`]));
    if (charges === 1) expect(result).toMatch(/may have completed/);
    else expect(result).toBe('charge ok');
  });

  it('two hosts resuming the same run at once: exactly one wins, the other is refused, nothing runs twice', { timeout: 120_000 }, async () => {
    const ws = await workspace();
    const { s, a } = await suspend(ws);
    a.kill();
    const [x, y] = [host(['resume', ws.store, ws.ledger, s.resumeToken, allow(s)]), host(['resume', ws.store, ws.ledger, s.resumeToken, allow(s)])];
    const outs = await Promise.all([x.output, y.output]);
    expect(outs.filter((o) => o.isError === false)).toHaveLength(1);
    expect(outs.filter((o) => o.thrown === 'RunResumeError')).toHaveLength(1);
    const ledger = await ledgerOf(ws.ledger);
    expect(ledger.filter((e) => e.tool === 'charge')).toHaveLength(1);
    expect(ledger.filter((e) => e.tool === 'read')).toHaveLength(3);
  });
});
