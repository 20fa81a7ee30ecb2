/**
 * The Redis {@link RunStore}: durable runs' journals shared by replicas. Each run is a hash
 * (`<prefix>run:<id>`: status, fence, lease, the record) and a list (`<prefix>journal:<id>`);
 * two sorted sets index them (by creation for `list`, by expiry for `sweep`). Every write is one
 * Lua script, so a check and its write are atomic: an append checks the fence and pushes all its
 * entries or none; a claim is a compare-and-set on status, lease and fence. Passes the same
 * contract as the memory and file stores (test/run-store-contract.ts).
 *
 * The record's `pending` and `expiresAt` are fields of their own, so a settle replaces them
 * without decoding JSON in Lua (cjson turns `[]` into `{}`).
 */
import { RunStoreConflictError, RunStoreError, RunStoreFencedError, type RunClaim, type RunMeta, type RunStatus, type RunStore, type RunSummary, type StoredRun } from '../runtime/index.js';
import { luaScript, storeRun, type OpenedRedis } from './connection.js';

// KEYS: run, journal, by-creation, by-expiry. ARGV: id, base meta, pending, createdAt, expiresAt, leaseUntil, entries...
const CREATE = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'meta', ARGV[2], 'pending', ARGV[3], 'expiresAt', ARGV[5], 'status', 'active', 'fence', 1, 'leaseUntil', ARGV[6])
for i = 7, #ARGV, 1000 do redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV))) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1])
return 1`);

// The holding check shared by append and settle: '' when `fence` holds the run, else why not.
const HOLDING = `
local function holding(run, fence)
  local state = redis.call('HMGET', run, 'status', 'fence')
  if not state[1] then return 'the run is unknown' end
  if state[2] ~= fence then return 'another claim holds it (fence ' .. state[2] .. ', this claim\\'s ' .. fence .. ')' end
  if state[1] == 'completed' or state[1] == 'failed' or state[1] == 'expired' then return 'it has ended (' .. state[1] .. ')' end
  return ''
end`;

// KEYS: run, journal. ARGV: fence, entries...
const APPEND = luaScript(`${HOLDING}
local refused = holding(KEYS[1], ARGV[1])
if refused ~= '' then return refused end
for i = 2, #ARGV, 1000 do redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV))) end
return ''`);

// KEYS: run, by-expiry. ARGV: id, fence, status, pending ('' keeps), expiresAt ('' keeps).
const SETTLE = luaScript(`${HOLDING}
local refused = holding(KEYS[1], ARGV[2])
if refused ~= '' then return refused end
redis.call('HSET', KEYS[1], 'status', ARGV[3])
redis.call('HDEL', KEYS[1], 'leaseUntil')
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'pending', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'expiresAt', ARGV[5]) end
if ARGV[3] == 'suspended' then
  redis.call('ZADD', KEYS[2], redis.call('HGET', KEYS[1], 'expiresAt'), ARGV[1])
else
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return ''`);

// KEYS: run. ARGV: now, leaseMs. The new fence, or -1 when unknown, ended or held.
const CLAIM = luaScript(`
local state = redis.call('HMGET', KEYS[1], 'status', 'leaseUntil')
if not state[1] then return -1 end
local free = state[1] == 'suspended' or (state[1] == 'active' and tonumber(state[2] or '0') < tonumber(ARGV[1]))
if not free then return -1 end
local fence = redis.call('HINCRBY', KEYS[1], 'fence', 1)
redis.call('HSET', KEYS[1], 'status', 'active', 'leaseUntil', tonumber(ARGV[1]) + tonumber(ARGV[2]))
return fence`);

// KEYS: run. ARGV: fence, leaseUntil.
const RENEW = luaScript(`
local state = redis.call('HMGET', KEYS[1], 'status', 'fence')
if state[1] ~= 'active' or state[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'leaseUntil', ARGV[2])
return 1`);

// KEYS: by-expiry. ARGV: now, limit, run key prefix. Keys are built here from the index, so the
// store needs one Redis node (or a prefix with a hash tag on a cluster).
const SWEEP = luaScript(`
local now = tonumber(ARGV[1])
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
  if #out >= tonumber(ARGV[2]) then break end
  local run = ARGV[3] .. id
  local state = redis.call('HMGET', run, 'status', 'leaseUntil')
  if not state[1] or state[1] == 'completed' or state[1] == 'failed' or state[1] == 'expired' then
    redis.call('ZREM', KEYS[1], id)
  elseif state[1] == 'suspended' or tonumber(state[2] or '0') < now then
    redis.call('HSET', run, 'status', 'expired')
    redis.call('HDEL', run, 'leaseUntil')
    redis.call('ZREM', KEYS[1], id)
    out[#out + 1] = id
  end
end
return out`);

/** Options of {@link createRedisRunStore}. */
export interface RedisRunStoreOptions {
  /** Prefix of every key (default `ptc:`). */
  readonly prefix?: string;
}

type BaseMeta = Omit<RunMeta, 'pending' | 'expiresAt'>;

/** A run store on an open Redis connection (see {@link createRedisStores}). */
export function createRedisRunStore(redis: OpenedRedis, options: RedisRunStoreOptions = {}): RunStore {
  const prefix = options.prefix ?? 'ptc:';
  const { client } = redis;
  const runKey = (id: string) => `${prefix}run:${id}`;
  const journalKey = (id: string) => `${prefix}journal:${id}`;
  const byCreation = `${prefix}runs:created`;
  const byExpiry = `${prefix}runs:expiry`;

  // A Redis failure is a RunStoreError (what durable runs already handle); refusals pass through.
  const run = storeRun(redis, (operation, detail, cause) => new RunStoreError(operation, detail, { cause }));

  const metaOf = (fields: Record<string, string>): RunMeta => {
    const base = JSON.parse(fields['meta']!) as BaseMeta;
    return { ...base, pending: JSON.parse(fields['pending']!) as RunMeta['pending'], expiresAt: Number(fields['expiresAt']) };
  };

  return {
    async create({ meta, entries, leaseMs, now }) {
      const { pending, expiresAt, ...base } = meta;
      const created = await run(`create run "${meta.runId}"`, () =>
        CREATE.call(client, [runKey(meta.runId), journalKey(meta.runId), byCreation, byExpiry], [meta.runId, JSON.stringify(base), JSON.stringify(pending), meta.createdAt, expiresAt, now + leaseMs, ...entries]),
      );
      if (created !== 1) throw new RunStoreConflictError(meta.runId);
      return { runId: meta.runId, fence: 1 };
    },
    async append(claim, entries) {
      const refused = await run(`append to run "${claim.runId}"`, () => APPEND.call(client, [runKey(claim.runId), journalKey(claim.runId)], [claim.fence, ...entries]));
      if (refused !== '') throw new RunStoreFencedError(claim.runId, String(refused));
    },
    async load(runId) {
      const [fields, entries] = await run(`load run "${runId}"`, async () => {
        const results = await client.multi().hgetall(runKey(runId)).lrange(journalKey(runId), 0, -1).exec();
        if (results === null) throw new Error('the transaction was aborted');
        for (const [err] of results) if (err) throw err;
        return [results[0]![1] as Record<string, string>, results[1]![1] as string[]] as const;
      });
      if (fields['status'] === undefined) return undefined;
      const status = fields['status'] as RunStatus;
      const stored: StoredRun = { meta: metaOf(fields), status, fence: Number(fields['fence']), leaseUntil: status === 'active' && fields['leaseUntil'] !== undefined ? Number(fields['leaseUntil']) : undefined, entries };
      return stored;
    },
    async claim(runId, { leaseMs, now }) {
      const fence = Number(await run(`claim run "${runId}"`, () => CLAIM.call(client, [runKey(runId)], [now, leaseMs])));
      return fence < 0 ? undefined : { runId, fence };
    },
    async renew(claim: RunClaim, { leaseMs, now }) {
      return (await run(`renew the lease of run "${claim.runId}"`, () => RENEW.call(client, [runKey(claim.runId)], [claim.fence, now + leaseMs]))) === 1;
    },
    async settle(claim, settlement) {
      const pending = settlement.meta?.pending === undefined ? '' : JSON.stringify(settlement.meta.pending);
      const expiresAt = settlement.meta?.expiresAt === undefined ? '' : String(settlement.meta.expiresAt);
      const refused = await run(`settle run "${claim.runId}"`, () => SETTLE.call(client, [runKey(claim.runId), byExpiry], [claim.runId, claim.fence, settlement.status, pending, expiresAt]));
      if (refused !== '') throw new RunStoreFencedError(claim.runId, String(refused));
    },
    async list(options = {}) {
      const limit = options.limit ?? 100;
      const out: RunSummary[] = [];
      const page = 200;
      for (let start = 0; out.length < limit; start += page) {
        const ids = await run('list runs', () => client.zrange(byCreation, start, start + page - 1));
        if (ids.length === 0) break;
        const pipeline = client.pipeline();
        for (const id of ids) pipeline.hmget(runKey(id), 'meta', 'pending', 'expiresAt', 'status');
        const results = await run('list runs', async () => (await pipeline.exec()) ?? []);
        for (const [err, value] of results) {
          if (err) throw new RunStoreError('list runs (Redis)', String(err.message));
          const [meta, pending, expiresAt, status] = value as (string | null)[];
          if (meta == null || status == null) continue;
          if (options.status !== undefined && status !== options.status) continue;
          out.push({ meta: metaOf({ meta, pending: pending ?? '[]', expiresAt: expiresAt ?? '0' }), status: status as RunStatus });
          if (out.length >= limit) break;
        }
      }
      return out;
    },
    async sweep({ now, limit = 100 }) {
      return (await run('sweep expired runs', () => SWEEP.call(client, [byExpiry], [now, limit, `${prefix}run:`]))) as string[];
    },
  };
}
