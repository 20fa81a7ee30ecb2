/**
 * ptc-runtime/redis: the shared stores replicas use past one machine, on ioredis (an optional
 * peer dependency: only this subpath loads it).
 *
 *   const stores = await createRedisStores({ url: process.env.REDIS_URL! });
 *   createRunCodeTool({ host, durable: { store: stores.runs, keys } });
 *   await stores.close();
 */
import type { RunStore } from '../runtime/index.js';
import { openRedis, type RedisConnection } from './connection.js';
import { createRedisRunStore } from './redis-run-store.js';

export { RedisStoreError } from './connection.js';
export type { RedisConnection } from './connection.js';
export { createRedisRunStore } from './redis-run-store.js';
export type { RedisRunStoreOptions } from './redis-run-store.js';

/** Options of {@link createRedisStores}. */
export interface RedisStoresOptions {
  /** Prefix of every key the stores write (default `ptc:`); replicas that share state share it. */
  readonly prefix?: string;
}

/** The shared stores of one deployment, on one Redis. */
export interface RedisStores {
  /** Durable runs' journals (`createRunCodeTool({ durable: { store } })`). */
  readonly runs: RunStore;
  /** Closes the connection this opened (a client passed in is left open). */
  close(): Promise<void>;
}

/** Connects (waiting for the first PING) and returns the stores. */
export async function createRedisStores(connection: RedisConnection, options: RedisStoresOptions = {}): Promise<RedisStores> {
  const redis = await openRedis(connection);
  const prefix = options.prefix ?? 'ptc:';
  return {
    runs: createRedisRunStore(redis, { prefix }),
    async close() {
      if (redis.owned) await redis.client.quit().catch(() => redis.client.disconnect());
    },
  };
}
