/**
 * ptc-runtime/redis against a real redis-server started by the test (test/support/redis-server.ts):
 * the run store passes the RunStore contract unchanged, and connection failures are named errors
 * that never show the URL's password.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStores, RedisStoreError, type RedisStores } from '../redis/index.js';
import { RunStoreError } from '../runtime/index.js';
import { metaOf, runStoreContract } from './run-store-contract.js';
import { redisServerMissing, startRedisServer, type RedisServer } from './support/redis-server.js';

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
    expect((err as Error).message).toMatch(/^Redis store failed to connect: /);
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
});
