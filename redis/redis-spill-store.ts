/**
 * The Redis {@link SharedSpillStore}: spills every replica reads. A spill is two keys with the same
 * time to live: the text (`<prefix>spill:<id>`, read by byte range with GETRANGE, so a page never
 * loads the whole spill) and a small hash (`<prefix>spillmeta:<id>`: its size and owner). A read
 * for another agent than the owner answers like an unknown id.
 */
import { InvalidOptionError, type AgentRef } from '../tools/index.js';
import type { SharedSpillStore } from '../runtime/index.js';
import type { OpenedRedis } from './connection.js';

/** Options of {@link createRedisSpillStore}. */
export interface RedisSpillStoreOptions {
  /** Prefix of every key (default `ptc:`). */
  readonly prefix?: string;
  /** How long a spill is kept, ms (default 3,600,000: one hour, as the in-memory store). */
  readonly ttlMs?: number;
}

const SPILL_ID = /^spill_[A-Za-z0-9_-]{16}$/;

/** A spill store on an open Redis connection (see {@link createRedisStores}). */
export function createRedisSpillStore(redis: OpenedRedis, options: RedisSpillStoreOptions = {}): SharedSpillStore {
  const prefix = options.prefix ?? 'ptc:';
  const ttlMs = options.ttlMs ?? 3_600_000;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new InvalidOptionError({ where: 'createRedisStores', option: 'spillTtlMs', value: ttlMs, expected: 'a whole number of ms, at least 1' });
  const { client } = redis;
  const textKey = (id: string) => `${prefix}spill:${id}`;
  const metaKey = (id: string) => `${prefix}spillmeta:${id}`;
  const ownerOf = (agent: AgentRef | undefined) => (agent === undefined ? '' : `agent:${agent.id}`);

  const exec = async (operation: string, build: (multi: ReturnType<typeof client.multi>) => unknown): Promise<unknown[]> =>
    redis.run(operation, async () => {
      const multi = client.multi();
      build(multi);
      const results = await multi.exec();
      if (results === null) throw new Error('the transaction was aborted');
      return results.map(([err, value]) => {
        if (err) throw err;
        return value;
      });
    });

  return {
    kind: 'shared',
    async put(id, text, putOptions = {}) {
      if (!SPILL_ID.test(id)) throw new InvalidOptionError({ where: 'spills.put', option: 'id', value: id, expected: 'an id made by run_code (spill_ and 96 random bits)' });
      const bytes = Buffer.byteLength(text, 'utf8');
      await exec(`keep spill "${id}"`, (m) => m.set(textKey(id), text, 'PX', ttlMs).hset(metaKey(id), 'bytes', bytes, 'owner', ownerOf(putOptions.owner)).pexpire(metaKey(id), ttlMs));
      return { id, bytes };
    },
    async readRange(id, { start, end, agent }) {
      if (!SPILL_ID.test(id)) return undefined;
      const from = Math.max(0, Math.floor(start));
      const to = Math.max(from, Math.floor(end));
      const [meta, chunk] = await exec(`read spill "${id}"`, (m) => m.hmget(metaKey(id), 'bytes', 'owner').getrangeBuffer(textKey(id), from, to - 1));
      const [bytes, owner] = meta as (string | null)[];
      if (bytes == null || owner !== ownerOf(agent)) return undefined;
      // GETRANGE with start past the end (or an empty range) answers ''.
      return { bytes: Number(bytes), chunk: to > from ? (chunk as Buffer) : Buffer.alloc(0) };
    },
    async read(id) {
      if (!SPILL_ID.test(id)) return undefined;
      const text = await redis.run(`read spill "${id}"`, () => client.get(textKey(id)));
      return text ?? undefined;
    },
    async delete(id) {
      if (!SPILL_ID.test(id)) return false;
      const [deleted] = await exec(`delete spill "${id}"`, (m) => m.del(textKey(id), metaKey(id)));
      return Number(deleted) > 0;
    },
  };
}
