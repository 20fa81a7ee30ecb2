/**
 * The shared stores against the embedded ones, side by side, in one run: a durable run's journal
 * append (one entry, as each tool call after a resume writes), the claim + load a resume starts
 * with (100 entries), and a 64 KiB spill's write and one page's read. Redis is a redis-server
 * started here on a free loopback port (no persistence), on the same machine: the figures are
 * the client + server cost, without a network hop.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { createRedisStores } from '../redis/index.js';
import { createFileRunStore, createMemoryRunStore, createSpillStore, newSpillId, type RunStore } from '../runtime/index.js';

const port = await new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});
const dir = mkdtempSync(join(tmpdir(), 'ptc-stores-bench-'));
const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
let stores: Awaited<ReturnType<typeof createRedisStores>> | undefined;
for (let i = 0; i < 100 && stores === undefined; i++) {
  stores = await createRedisStores({ url: `redis://127.0.0.1:${port}` }).catch(async () => {
    await new Promise((r) => setTimeout(r, 50));
    return undefined;
  });
}
if (stores === undefined) throw new Error('redis-server did not start (is it installed? scripts/setup.sh)');

const ENTRY = JSON.stringify({ kind: 'result', seq: 1, value: 'x'.repeat(200) });
const memory = createMemoryRunStore();
const file = createFileRunStore({ dir: join(dir, 'runs') });
let n = 0;
const meta = (runId: string) => ({ runId, agentId: 'a', parentCallId: 'c', createdAt: 0, expiresAt: 8.64e15, pending: [], fingerprints: {} });
const appendOn = async (store: RunStore) => {
  const claim = await store.create({ meta: meta(`bench${++n}`), entries: [], leaseMs: 1e12, now: 0 });
  return () => store.append(claim, [ENTRY]);
};
const resumeOn = async (store: RunStore) => {
  const runId = `resume${++n}`;
  const claim = await store.create({ meta: meta(runId), entries: Array.from({ length: 100 }, () => ENTRY), leaseMs: 1e12, now: 0 });
  await store.settle(claim, { status: 'suspended' });
  return async () => {
    const c = await store.claim(runId, { leaseMs: 1e12, now: 1 });
    await store.load(runId);
    await store.settle(c!, { status: 'suspended' });
  };
};
const SPILL = JSON.stringify('y'.repeat(64 * 1024));
const memorySpills = createSpillStore();
const redisSpills = stores.spills;
const memId = memorySpills.put(SPILL).id;
const redisId = (await redisSpills.put(newSpillId(), SPILL)).id;

const bench = new Bench({ time: 1000, warmup: true });
bench
  .add('journal append, memory', await appendOn(memory))
  .add('journal append, file (fsync)', await appendOn(file))
  .add('journal append, redis', await appendOn(stores.runs))
  .add('resume (claim + load 100 entries + release), memory', await resumeOn(memory))
  .add('resume (claim + load 100 entries + release), file', await resumeOn(file))
  .add('resume (claim + load 100 entries + release), redis', await resumeOn(stores.runs))
  .add('spill 64 KiB write, memory', () => void memorySpills.delete(memorySpills.put(SPILL).id))
  .add('spill 64 KiB write, redis', async () => void (await redisSpills.put(newSpillId(), SPILL)))
  .add('spill page read (16 KiB), memory', () => void Buffer.from(memorySpills.read(memId)!, 'utf8').subarray(0, 16_384))
  .add('spill page read (16 KiB), redis', async () => void (await redisSpills.readRange(redisId, { start: 0, end: 16_384, agent: undefined })));
await bench.run();
for (const task of bench.tasks) {
  const r = task.result as unknown as { latency: { p50: number } };
  console.log(`${task.name.padEnd(58)} ${(r.latency.p50 * 1000).toFixed(1).padStart(9)} µs (median)`);
}
await stores.close();
server.kill('SIGTERM');
rmSync(dir, { recursive: true, force: true });
