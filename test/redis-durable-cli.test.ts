/**
 * Durable runs on Redis from the CLI (issue 26): two real `ptc mcp serve --http` replicas on two
 * ports share one redis-server of the test's own through `--store-env NAME --durable-key-env KEY`.
 * A program suspends at an approval ask through replica A; A is killed; the operator's
 * `ptc runs approve --store-env` resumes it (the tool body runs once: a ledger file counts it)
 * and the client reads the outcome through replica B. Two approvals at once: one wins, the other
 * is refused. Each process writes its own trace chain; the resume's `ptc/run-resumed` links to
 * the head A anchored, and `ptc trace verify A B` checks the link across the two files. A client
 * alternates between the two ports for run_code and spill_read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStores } from '../redis/index.js';
import { redisServerMissing, startRedisServer, type RedisServer } from './support/redis-server.js';
import { transpileProject } from './support/transpile-project.js';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

const KEY = 'a fleet-wide durable key of at least thirty-two bytes';
const children = new Set<ChildProcess>();
let dir = '';
let cli = '';
let toolsModule = '';

/**
 * The tools module every process loads (the same tool set: a resume checks its fingerprint).
 * Every body appends a line to $PTC_TEST_LEDGER; `charge` needs a person (an ask, deferred by a
 * durable server); `gate` waits until the file `$PTC_TEST_LEDGER.open` exists.
 */
const TOOLS_MODULE = `
import { appendFileSync, existsSync } from 'node:fs';
import { createToolHost, decision, defineTool } from './tools/index.js';
const ledger = () => process.env.PTC_TEST_LEDGER;
const note = (tool, args) => appendFileSync(ledger(), JSON.stringify({ tool, args, pid: process.pid }) + '\\n');
export function createHost(options) {
  const host = createToolHost(options);
  host.register([
    defineTool({ name: 'read', description: 'Reads n.', parameters: { n: { type: 'number', required: true } }, output: { schema: { type: 'number' } }, execute: (args) => (note('read', args), args.n * 10) }),
    defineTool({ name: 'charge', description: 'Charges.', parameters: { text: { type: 'string', required: true } }, output: { schema: { type: 'string' } }, execute: (args) => (note('charge', args), 'charged ' + args.text) }),
    defineTool({ name: 'gate', description: 'Waits for the gate file.', output: { schema: { type: 'string' } }, execute: async () => {
      note('gate', {});
      while (!existsSync(ledger() + '.open')) await new Promise((r) => setTimeout(r, 25));
      return 'open';
    } }),
  ]);
  host.hooks.preExecute((e) => (e.toolName === 'charge' ? decision.ask('money moves') : undefined));
  return host;
}
`;

const PROGRAM = `
  const a = await tools.read({ n: 4 });
  const charged = await tools.charge({ text: 'sum ' + a });
  return { a, charged };`;

beforeAll(async () => {
  if (redisServerMissing !== undefined) return;
  const built = await transpileProject('redis-durable-cli');
  cli = built.cli;
  toolsModule = join(built.root, 'ledger-tools.mjs');
  writeFileSync(toolsModule, TOOLS_MODULE);
  dir = mkdtempSync(join(tmpdir(), 'ptc-redis-durable-'));
}, 120_000);
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let ledgers = 0;
/** A fresh ledger file path for one test. */
const newLedger = () => join(dir, `ledger-${++ledgers}.jsonl`);
const ledgerOf = (path: string): { tool: string; pid: number }[] =>
  existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { tool: string; pid: number }) : [];

/** Runs `ptc` to its end. */
function ptc(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => {
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

interface Replica {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  readonly exited: Promise<number | null>;
  stderr(): string;
}

/** A `ptc mcp serve --http` replica on the shared Redis, durable, with a trace file of its own. */
function replica(env: Record<string, string>, extra: string[] = []): Replica {
  const args = ['mcp', 'serve', '--http', '0', '--isolation', 'isolate', '--tools', toolsModule, '--store-env', 'SHARED_REDIS', '--durable-key-env', 'DURABLE_KEY', ...extra];
  const child = spawn(process.execPath, ['--no-node-snapshot', cli, ...args], { env: { ...process.env, DURABLE_KEY: KEY, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  let err = '';
  const url = new Promise<string>((ok, fail) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) ok(m[1]!);
    });
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${err}`)));
  });
  url.catch(() => undefined);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => (children.delete(child), r(code))));
  return { child, url, exited, stderr: () => err };
}

async function clientOf(url: string): Promise<Client> {
  const client = new Client({ name: 'redis-durable-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const textOf = (r: unknown) => ((r as CallResult).content ?? []).map((c) => c.text ?? '').join('\n');
const runIdOf = (r: unknown): string => {
  const found = /"runId":\s*"([^"]+)"/.exec(JSON.stringify((r as CallResult).structuredContent ?? {}))?.[1] ?? /run[_ ]?(?:id)?[":\s]+([A-Za-z0-9_-]{16,})/i.exec(textOf(r))?.[1];
  expect(found, textOf(r)).toBeDefined();
  return found!;
};

if (redisServerMissing !== undefined) console.warn(redisServerMissing);
const suite = redisServerMissing === undefined ? describe : describe.skip;

suite('ptc mcp serve --store-env --durable-key-env: durable runs shared by two replicas on one Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  }, 60_000);
  afterAll(async () => {
    await redis?.dispose();
  });

  it('says where durable runs are kept, and a client alternating between the two ports pages each spill on the other', async () => {
    const ledger = newLedger();
    const env = { SHARED_REDIS: redis.url, PTC_TEST_LEDGER: ledger };
    const [a, b] = [replica(env), replica(env)];
    try {
      const urls = await Promise.all([a.url, b.url]);
      expect(a.stderr()).toMatch(/durable runs in Redis \(--store-env SHARED_REDIS\)/);
      const clients = await Promise.all(urls.map(clientOf));
      for (let i = 0; i < 4; i++) {
        const [maker, reader] = [clients[i % 2]!, clients[(i + 1) % 2]!];
        const code = `const rows = []; for (let i = 0; i < 3000; i++) rows.push({ i, round: ${i} }); return rows;`;
        const made = (await maker.callTool({ name: 'run_code', arguments: { code } })) as CallResult;
        expect(made.isError, textOf(made).slice(0, 500)).toBeFalsy();
        const spilled = (made.structuredContent!['result'] as { spilled: { id: string; bytes: number } }).spilled;
        let joined = '';
        for (let offset = 0, turn = 0; offset < spilled.bytes; turn++) {
          // Each page from the other replica than the one before.
          const page = (await (turn % 2 === 0 ? reader : maker).callTool({ name: 'spill_read', arguments: { id: spilled.id, offset } })) as CallResult;
          expect(page.isError, textOf(page).slice(0, 500)).toBeFalsy();
          const value = page.structuredContent as { text: string; nextOffset: number };
          joined += value.text;
          offset = value.nextOffset;
        }
        const rows = JSON.parse(joined) as { i: number; round: number }[];
        expect(rows).toHaveLength(3000);
        expect(rows[2999]).toEqual({ i: 2999, round: i });
      }
      await Promise.all(clients.map((c) => c.close()));
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
    }
  }, 180_000);

  it('a run suspended through replica A, A SIGKILLed: approved from the shared store, the charge runs once, the client reads the value through B, and the resume links to A\'s chain', async () => {
    const ledger = newLedger();
    const env = { SHARED_REDIS: redis.url, PTC_TEST_LEDGER: ledger };
    const [traceA, traceB, traceR] = ['a', 'b', 'resume'].map((n) => join(dir, `kill-${n}.jsonl`));
    const a = replica(env, ['--trace', traceA]);
    const b = replica(env, ['--trace', traceB]);
    const [urlA, urlB] = await Promise.all([a.url, b.url]);
    const clientA = await clientOf(urlA);
    const suspended = await clientA.callTool({ name: 'run_code', arguments: { code: PROGRAM } });
    expect(textOf(suspended)).toMatch(/Do not run the program again/);
    expect(textOf(suspended)).not.toMatch(/ptcr1\./);
    const runId = runIdOf(suspended);
    expect(ledgerOf(ledger).map((e) => e.tool)).toEqual(['read']);

    const listed = await ptc(['runs', 'list', '--store-env', 'SHARED_REDIS'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(runId);
    expect(listed.stdout).toMatch(/waits for charge .*sum 40.*: money moves/);

    a.child.kill('SIGKILL');
    await a.exited;
    const clientB = await clientOf(urlB);
    try {
      const waiting = await clientB.callTool({ name: 'run_result', arguments: { runId } });
      expect(JSON.parse(textOf(waiting))).toMatchObject({ status: 'suspended', pending: [{ toolName: 'charge' }] });

      const approved = await ptc(['runs', 'approve', runId, '--store-env', 'SHARED_REDIS', '--key-env', 'K', '--tools', toolsModule, '--isolation', 'isolate', '--by', 'ops@example.com', '--trace', traceR], { ...env, K: KEY });
      expect(approved.code, approved.stderr).toBe(0);
      const value = JSON.parse(approved.stdout) as { a: number; charged: string };
      expect(value).toEqual({ a: 40, charged: 'charged sum 40' });
      const effects = ledgerOf(ledger);
      expect(effects.map((e) => e.tool)).toEqual(['read', 'charge']);
      expect(effects[0]!.pid).toBe(a.child.pid);

      const done = await clientB.callTool({ name: 'run_result', arguments: { runId } });
      expect(JSON.parse(textOf(done))).toEqual({ status: 'completed', value });
      const shown = await ptc(['runs', 'show', runId, '--store-env', 'SHARED_REDIS'], env);
      expect(shown.stdout).toMatch(/resumed at .*allow-once by ops@example\.com/);
    } finally {
      await clientB.close();
      b.child.kill('SIGTERM');
      await b.exited;
    }

    // A's chain stops where it was killed (no end line); the link to the line it anchored holds.
    const verified = await ptc(['trace', 'verify', traceA, traceR, '--json'], {});
    const report = JSON.parse(verified.stdout) as { ok: boolean; files: { problems: { kind: string }[] }[]; links: { type: string; status: string; to: { seq: number } }[] };
    expect(report.files[0]!.problems.map((p) => p.kind)).toEqual(['truncated']);
    expect(report.files[1]!.problems).toEqual([]);
    expect(report.links).toMatchObject([{ type: 'ptc/run-resumed', status: 'verified' }]);
    const suspendedLine = readFileSync(traceA, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { seq: number; type: string; runId?: string }).find((e) => e.type === 'ptc/run-suspended');
    expect(suspendedLine).toMatchObject({ runId, seq: report.links[0]!.to.seq });
    // The killed replica's chain head was published at the suspension: the line the link names.
    const stores = await createRedisStores({ url: redis.url });
    try {
      const linked = report.links[0]!.to as { traceId: string; seq: number; hash: string };
      expect(await stores.traceHeads.get(linked.traceId)).toEqual(linked);
    } finally {
      await stores.close();
    }
  }, 240_000);

  it('two operators approving at once: one resumes the run, the other is refused, the charge runs once; ptc trace verify checks the link and finds it broken in a cut trace', async () => {
    const ledger = newLedger();
    const env = { SHARED_REDIS: redis.url, PTC_TEST_LEDGER: ledger, K: KEY };
    const traceA = join(dir, 'race-a.jsonl');
    const a = replica(env, ['--trace', traceA]);
    const clientA = await clientOf(await a.url);
    const runId = runIdOf(await clientA.callTool({ name: 'run_code', arguments: { code: PROGRAM } }));
    await clientA.close();
    a.child.kill('SIGTERM'); // a clean stop: A's trace gets its end line
    expect(await a.exited).toBe(0);

    const approve = (trace: string) => ptc(['runs', 'approve', runId, '--store-env', 'SHARED_REDIS', '--key-env', 'K', '--tools', toolsModule, '--isolation', 'isolate', '--trace', trace], env);
    const traces = [join(dir, 'race-1.jsonl'), join(dir, 'race-2.jsonl')];
    const outcomes = await Promise.all(traces.map(approve));
    const winners = outcomes.filter((o) => o.code === 0);
    const losers = outcomes.filter((o) => o.code !== 0);
    expect(winners, outcomes.map((o) => o.stderr).join('\n')).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(losers[0]!.code).toBe(1);
    expect(losers[0]!.stderr).toMatch(/cannot be resumed|not waiting for a person/);
    expect(JSON.parse(winners[0]!.stdout)).toEqual({ a: 40, charged: 'charged sum 40' });
    expect(ledgerOf(ledger).map((e) => e.tool)).toEqual(['read', 'charge']);

    const winnerTrace = traces[outcomes.indexOf(winners[0]!)]!;
    const ok = await ptc(['trace', 'verify', traceA, winnerTrace], {});
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    // Each chain's final head (its end line) is published under its trace id at a clean stop.
    const both = JSON.parse((await ptc(['trace', 'verify', traceA, winnerTrace, '--json'], {})).stdout) as { files: { head: { traceId: string } }[] };
    const stores = await createRedisStores({ url: redis.url });
    try {
      for (const file of both.files) expect(await stores.traceHeads.get(file.head.traceId)).toEqual(file.head);
    } finally {
      await stores.close();
    }
    expect(ok.stdout).toMatch(/link: .* \(ptc\/run-resumed\): links to line \d+ of .*race-a\.jsonl .*: verified/);
    // A's trace cut before the line the run left from (a crash, or a deletion): the link is broken.
    const lines = readFileSync(traceA, 'utf8').split('\n').filter(Boolean);
    const at = lines.findIndex((l) => (JSON.parse(l) as { type: string }).type === 'ptc/run-suspended');
    const cut = join(dir, 'race-a-cut.jsonl');
    writeFileSync(cut, lines.slice(0, at).join('\n') + '\n');
    const broken = await ptc(['trace', 'verify', cut, winnerTrace], {});
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/link: .* \(ptc\/run-resumed\): BROKEN: links to trace \S+ seq \d+, but .*race-a-cut\.jsonl has no line with seq/);
  }, 240_000);
});

suite('Redis stopped and restarted under a durable replica (appendonly, a password)', () => {
  const PASSWORD = 'redis-s3cret-pw';
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer({ appendOnly: true, password: PASSWORD });
  }, 60_000);
  afterAll(async () => {
    await redis?.dispose();
  });

  it('calls that need the store fail with a named error and no password, the host lives on, and after the restart a run suspended before still resumes', async () => {
    const ledger = newLedger();
    const env = { SHARED_REDIS: redis.url, PTC_TEST_LEDGER: ledger, K: KEY };
    const a = replica(env);
    const client = await clientOf(await a.url);
    try {
      // Acknowledged before the outage: a suspended run.
      const runId = runIdOf(await client.callTool({ name: 'run_code', arguments: { code: PROGRAM } }));
      // In progress when Redis stops: the program waits in gate(), then asks (its suspension needs the store).
      const inFlight = client.callTool({ name: 'run_code', arguments: { code: `const g = await tools.gate({}); return await tools.charge({ text: 'gated ' + g });` } });
      for (let i = 0; i < 400 && !ledgerOf(ledger).some((e) => e.tool === 'gate'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(ledgerOf(ledger).map((e) => e.tool)).toEqual(['read', 'gate']);
      await redis.stop({ hard: true });
      writeFileSync(`${ledger}.open`, '');

      const failed = (await inFlight) as CallResult;
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(/The run could not suspend: its journal could not be written to the run store \(The run store failed to create run "\S+" \(Redis\): no connection to Redis at 127\.0\.0\.1:\d+/);
      const stillThere = (await client.callTool({ name: 'run_result', arguments: { runId } })) as CallResult;
      expect(stillThere.isError).toBe(true);
      expect(textOf(stillThere)).toMatch(new RegExp(`The run store failed to load run "${runId}" \\(Redis\\): no connection to Redis at 127\\.0\\.0\\.1:\\d+`));
      const listed = await ptc(['runs', 'list', '--store-env', 'SHARED_REDIS'], env);
      expect(listed.code).toBe(2);
      expect(listed.stderr).toMatch(/--store-env SHARED_REDIS: Redis store failed to connect to 127\.0\.0\.1:\d+/);
      for (const text of [textOf(failed), textOf(stillThere), listed.stderr]) expect(text).not.toContain(PASSWORD);

      // The host did not crash: a program that needs no store runs.
      expect(a.child.exitCode).toBeNull();
      const plain = (await client.callTool({ name: 'run_code', arguments: { code: 'return 6 * 7;' } })) as CallResult;
      expect(plain.isError, textOf(plain)).toBeFalsy();
      expect(textOf(plain)).toContain('42');

      await redis.restart();
      let after: CallResult | undefined;
      for (let i = 0; i < 100; i++) {
        after = (await client.callTool({ name: 'run_result', arguments: { runId } })) as CallResult;
        if (!after.isError) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(JSON.parse(textOf(after))).toMatchObject({ status: 'suspended', pending: [{ toolName: 'charge' }] });
      const approved = await ptc(['runs', 'approve', runId, '--store-env', 'SHARED_REDIS', '--key-env', 'K', '--tools', toolsModule, '--isolation', 'isolate'], env);
      expect(approved.code, approved.stderr).toBe(0);
      expect(JSON.parse(approved.stdout)).toEqual({ a: 40, charged: 'charged sum 40' });
      // The gated run's charge never ran; the suspended run's ran once.
      expect(ledgerOf(ledger).map((e) => e.tool)).toEqual(['read', 'gate', 'charge']);
      expect(a.stderr()).not.toContain(PASSWORD);
    } finally {
      await client.close();
      a.child.kill('SIGTERM');
      await a.exited;
    }
  }, 240_000);
});

suite('the store flags of ptc mcp serve and ptc runs', () => {
  it('names the flag that is missing or doubled, and --help says what --store-env shares', async () => {
    const neither = await ptc(['runs', 'list'], {});
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/give the run store: --store file:DIR or --store-env NAME/);
    const both = await ptc(['runs', 'list', '--store', `file:${dir}`, '--store-env', 'SHARED_REDIS'], {});
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give the run store: .*one of them/);
    const keyOnly = await ptc(['mcp', 'serve', '--http', '0', '--durable-key-env', 'K'], { K: KEY });
    expect(keyOnly.code).toBe(2);
    expect(keyOnly.stderr).toMatch(/--durable-key-env signs durable runs' resume tokens: give --store file:DIR or --store-env NAME too/);
    const unset = await ptc(['runs', 'approve', 'x', '--store-env', 'PTC_UNSET_REDIS_VAR', '--key-env', 'K'], { K: KEY });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/--store-env PTC_UNSET_REDIS_VAR: that environment variable is not set/);
    const help = await ptc(['mcp', 'serve', '--help'], {});
    expect(help.stdout).toMatch(/--store-env REDIS_URL shares spills and background jobs; add --durable-key-env KEY for durable runs on the same Redis/);
  }, 60_000);
});
