/**
 * ptc-runtime/redis against a real redis-server started by the test (test/support/redis-server.ts):
 * the run store passes the RunStore contract unchanged, and connection failures are named errors
 * that never show the URL's password.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStores, RedisStoreError, type RedisStores } from '../redis/index.js';
import { createToolHost, type AgentRef } from '../tools/index.js';
import { createMemoryTraceHeadStore, createRunCodeTool, RunStoreError, type RunCodeValue, type SpilledPart, type TraceHeadStore } from '../runtime/index.js';
import { metaOf, runStoreContract } from './run-store-contract.js';
import { redisServerMissing, startRedisServer, type RedisServer } from './support/redis-server.js';

/** What every trace head store does: a head per chain, moving forward only within one trace. */
function traceHeadContract(name: string, open: () => Promise<{ store: TraceHeadStore; close: () => Promise<void> }>) {
  it(`trace heads (${name}): the latest head per chain, never moved back within a trace`, async () => {
    const { store, close } = await open();
    try {
      expect(await store.get('replica-a')).toBeUndefined();
      expect(await store.put('replica-a', { traceId: 't1', seq: 5, hash: 'h5' })).toBe(true);
      expect(await store.put('replica-a', { traceId: 't1', seq: 3, hash: 'h3' })).toBe(false);
      expect(await store.put('replica-b', { traceId: 't2', seq: 1, hash: 'b1' })).toBe(true);
      expect(await store.get('replica-a')).toEqual({ traceId: 't1', seq: 5, hash: 'h5' });
      // A new trace (a replica restarted with a new file) replaces the head.
      expect(await store.put('replica-a', { traceId: 't3', seq: 0, hash: 'n0' })).toBe(true);
      expect((await store.list()).sort((x, y) => x.chain.localeCompare(y.chain))).toEqual([
        { chain: 'replica-a', head: { traceId: 't3', seq: 0, hash: 'n0' } },
        { chain: 'replica-b', head: { traceId: 't2', seq: 1, hash: 'b1' } },
      ]);
    } finally {
      await close();
    }
  });
}

traceHeadContract('memory', async () => ({ store: createMemoryTraceHeadStore(), close: async () => {} }));

if (redisServerMissing !== undefined) console.warn(redisServerMissing);
const suite = redisServerMissing === undefined ? describe : describe.skip;

suite('Redis stores', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  // Each store gets a prefix of its own on the one server: a fresh, empty store.
  const freshStores = () => createRedisStores({ url: server.url }, { prefix: `t${randomBytes(6).toString('hex')}:` });

  runStoreContract('redis', async () => {
    const stores = await freshStores();
    return { store: stores.runs, dispose: () => stores.close() };
  });

  traceHeadContract('redis', async () => {
    const stores = await freshStores();
    return { store: stores.traceHeads, close: () => stores.close() };
  });

  it('keeps runs across connections (another replica sees them)', async () => {
    const prefix = `shared${randomBytes(4).toString('hex')}:`;
    const a = await createRedisStores({ url: server.url }, { prefix });
    const b = await createRedisStores({ url: server.url }, { prefix });
    try {
      const claim = await a.runs.create({ meta: metaOf('r1'), entries: ['a'], leaseMs: 1000, now: 1 });
      await a.runs.settle(claim, { status: 'suspended' });
      const taken = await b.runs.claim('r1', { leaseMs: 1000, now: 2 });
      expect(taken).toEqual({ runId: 'r1', fence: 2 });
      await expect(a.runs.append(claim, ['stale'])).rejects.toThrow(/another claim holds it/);
      expect((await a.runs.load('r1'))!.entries).toEqual(['a']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a connection it cannot make with a named error that hides the password', async () => {
    const closed = `redis://user:s3cretpass@127.0.0.1:1`;
    const err = await createRedisStores({ url: closed }).catch((e: unknown) => e);
    expect(RedisStoreError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(/^Redis store failed to connect to 127.0.0.1:1: /);
    expect((err as Error).message).not.toContain('s3cretpass');
  });

  it('refuses a URL that is not redis:// without echoing it', async () => {
    const err = await createRedisStores({ url: 'http://user:s3cretpass@example' }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/url must be a redis:\/\/ or rediss:\/\/ URL/);
    expect((err as Error).message).not.toContain('s3cretpass');
  });

  it('fails calls with a RunStoreError naming the operation while Redis is down', async () => {
    const stores = await freshStores();
    try {
      await stores.runs.create({ meta: metaOf('r1'), entries: ['a'], leaseMs: 1000, now: 1 });
      await server.stop({ hard: true });
      const err = await stores.runs.load('r1').catch((e: unknown) => e);
      expect(RunStoreError.isInstance(err)).toBe(true);
      expect((err as Error).message).toMatch(/^The run store failed to load run "r1" \(Redis\): /);
    } finally {
      await server.restart();
      await stores.close();
    }
  });

  describe('spills shared by two replicas', () => {
    const ADA: AgentRef = { id: 'ada' };
    const BOB: AgentRef = { id: 'bob' };
    // Multi-byte text, so pages read by byte range must not split a character.
    const PROGRAM = 'const rows = []; for (let i = 0; i < 150; i++) rows.push({ i, name: "行" + i + " é 😀" }); return rows;';
    const expected = Array.from({ length: 150 }, (_, i) => ({ i, name: `行${i} é 😀` }));

    const replica = async (prefix: string) => {
      const stores = await createRedisStores({ url: server.url }, { prefix });
      const host = createToolHost();
      const runCode = createRunCodeTool({ isolation: 'isolate', limits: { maxOutputBytes: 1_000 }, spills: stores.spills });
      host.register(runCode);
      return { host, stores, close: async () => { await runCode.close(); await stores.close(); } };
    };

    it('a spill made on replica A is paged whole on replica B by the same agent, and refused to another', async () => {
      const prefix = `sp${randomBytes(4).toString('hex')}:`;
      const a = await replica(prefix);
      const b = await replica(prefix);
      try {
        const made = await a.host.call({ id: 'c1', name: 'run_code', args: { code: PROGRAM } }, { agent: ADA });
        expect(made.isError).toBe(false);
        const part = (made.value as unknown as RunCodeValue).result as unknown as SpilledPart;
        expect(part.spilled.bytes).toBeGreaterThan(1_000);
        let joined = '';
        let offset = 0;
        while (offset < part.spilled.bytes) {
          const r = await b.host.call({ id: `r${offset}`, name: 'spill_read', args: { id: part.spilled.id, offset } }, { agent: ADA });
          expect(r.isError).toBe(false);
          const page = r.value as { text: string; offset: number; nextOffset: number; bytes: number };
          expect(page.offset).toBe(offset);
          expect(page.bytes).toBe(part.spilled.bytes);
          expect(page.text).not.toMatch(/\uFFFD/);
          joined += page.text;
          offset = page.nextOffset;
        }
        expect(JSON.parse(joined)).toEqual(expected);
        const other = await b.host.call({ id: 'r-bob', name: 'spill_read', args: { id: part.spilled.id } }, { agent: BOB });
        const unknown = await b.host.call({ id: 'r-none', name: 'spill_read', args: { id: 'spill_AAAAAAAAAAAAAAAA' } }, { agent: ADA });
        expect(other.isError).toBe(true);
        expect(other.content).toEqual(unknown.content.map((block) => (block.type === 'text' ? { ...block, text: block.text.replace('spill_AAAAAAAAAAAAAAAA', part.spilled.id) } : block)));
        const noAgent = await b.host.call({ id: 'r-anon', name: 'spill_read', args: { id: part.spilled.id } });
        expect(noAgent.isError).toBe(true);
      } finally {
        await a.close();
        await b.close();
      }
    }, 60_000);

    it('keeps a spill for its time to live only', async () => {
      const stores = await createRedisStores({ url: server.url }, { prefix: `ttl${randomBytes(4).toString('hex')}:`, spillTtlMs: 50 });
      try {
        const { id } = await stores.spills.put('spill_BBBBBBBBBBBBBBBB', '"short lived"', { owner: ADA });
        expect(await stores.spills.read(id)).toBe('"short lived"');
        expect(await stores.spills.readRange(id, { start: 1, end: 6, agent: ADA })).toEqual({ bytes: 13, chunk: Buffer.from('short') });
        await new Promise((resolve) => setTimeout(resolve, 120));
        expect(await stores.spills.read(id)).toBeUndefined();
        expect(await stores.spills.readRange(id, { start: 0, end: 5, agent: ADA })).toBeUndefined();
      } finally {
        await stores.close();
      }
    });
  });
});
