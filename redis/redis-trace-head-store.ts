/**
 * The Redis {@link TraceHeadStore}: one hash (`<prefix>traceheads`), a field per chain holding its
 * latest head as JSON. The forward-only check and the write are one Lua script.
 */
import type { TraceHead } from '../tools/index.js';
import type { TraceHeadStore } from '../runtime/index.js';
import { luaScript, type OpenedRedis } from './connection.js';

// KEYS: heads. ARGV: chain, traceId, seq, head JSON. 1 when recorded.
const PUT = luaScript(`
local held = redis.call('HGET', KEYS[1], ARGV[1])
if held then
  local h = cjson.decode(held)
  if h.traceId == ARGV[2] and tonumber(h.seq) >= tonumber(ARGV[3]) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
return 1`);

/** A trace head store on an open Redis connection (see {@link createRedisStores}). */
export function createRedisTraceHeadStore(redis: OpenedRedis, options: { readonly prefix?: string } = {}): TraceHeadStore {
  const key = `${options.prefix ?? 'ptc:'}traceheads`;
  const { client } = redis;
  const parse = (text: string): TraceHead => {
    const { traceId, seq, hash } = JSON.parse(text) as TraceHead;
    return { traceId, seq, hash };
  };
  return {
    async put(chain, head) {
      const json = JSON.stringify({ traceId: head.traceId, seq: head.seq, hash: head.hash });
      return (await redis.run(`record the trace head of chain "${chain}"`, () => PUT.call(client, [key], [chain, head.traceId, head.seq, json]))) === 1;
    },
    async get(chain) {
      const text = await redis.run(`read the trace head of chain "${chain}"`, () => client.hget(key, chain));
      return text == null ? undefined : parse(text);
    },
    async list() {
      const all = await redis.run('list trace heads', () => client.hgetall(key));
      return Object.entries(all).map(([chain, text]) => ({ chain, head: parse(text) }));
    },
  };
}
