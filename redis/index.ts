/**
 * ptc-runtime/redis: the shared stores replicas use past one machine, on ioredis (an optional
 * peer dependency: only this subpath loads it).
 *
 *   const stores = await createRedisStores({ url: process.env.REDIS_URL! });
 *   createRunCodeTool({ spills: stores.spills, durable: { store: stores.runs, keys } });
 *   await stores.close();
 */
import type { RunStore, SharedSpillStore, TraceHeadStore } from '../runtime/index.js';
import type { JobStore } from '../tools/index.js';
import { createRedisJobStore } from './redis-job-store.js';
import { openRedis, type RedisConnection } from './connection.js';
import { createRedisRunStore } from './redis-run-store.js';
import { createRedisSpillStore } from './redis-spill-store.js';
import { createRedisTraceHeadStore } from './redis-trace-head-store.js';

export { RedisStoreError } from './connection.js';
export type { RedisConnection } from './connection.js';
export { createRedisRunStore } from './redis-run-store.js';
export type { RedisRunStoreOptions } from './redis-run-store.js';
export { createRedisSpillStore } from './redis-spill-store.js';
export type { RedisSpillStoreOptions } from './redis-spill-store.js';
export { createRedisTraceHeadStore } from './redis-trace-head-store.js';
export { createRedisJobStore } from './redis-job-store.js';
export type { RedisJobStoreOptions } from './redis-job-store.js';

/** Options of {@link createRedisStores}. */
export interface RedisStoresOptions {
  /** Prefix of every key the stores write (default `ptc:`); replicas that share state share it. */
  readonly prefix?: string;
  /** How long a spill is kept, ms (default one hour). */
  readonly spillTtlMs?: number;
  /** How long an ended background job (record and output) is kept, ms (default one day). */
  readonly jobTtlMs?: number;
}

/** The shared stores of one deployment, on one Redis. */
export interface RedisStores {
  /** Output over run_code's cap, read by `spill_read` on any replica (`createRunCodeTool({ spills })`). */
  readonly spills: SharedSpillStore;
  /** Durable runs' journals (`createRunCodeTool({ durable: { store } })`). */
  readonly runs: RunStore;
  /** Background jobs every replica lists, reads and kills (`createToolHost({ jobs: stores.jobs })`). */
  readonly jobs: JobStore;
  /** The latest trace head of each replica's chain (`put(replicaId, writer.head)`), to link a resumed run's chain. */
  readonly traceHeads: TraceHeadStore;
  /** Closes the connection this opened (a client passed in is left open). */
  close(): Promise<void>;
}

/** Connects (waiting for the first PING) and returns the stores. */
export async function createRedisStores(connection: RedisConnection, options: RedisStoresOptions = {}): Promise<RedisStores> {
  const redis = await openRedis(connection);
  const prefix = options.prefix ?? 'ptc:';
  const jobs = createRedisJobStore(redis, { prefix, ...(options.jobTtlMs !== undefined ? { ttlMs: options.jobTtlMs } : {}) });
  return {
    spills: createRedisSpillStore(redis, { prefix, ...(options.spillTtlMs !== undefined ? { ttlMs: options.spillTtlMs } : {}) }),
    runs: createRedisRunStore(redis, { prefix }),
    traceHeads: createRedisTraceHeadStore(redis, { prefix }),
    jobs,
    async close() {
      await jobs.close();
      if (redis.owned) await redis.client.quit().catch(() => redis.client.disconnect());
    },
  };
}
