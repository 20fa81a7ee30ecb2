/**
 * The Redis {@link JobStore}: background jobs every replica lists, reads and kills. A job is a hash
 * (`<prefix>job:<id>`: kind, label, owner, replica, status, times, value or error, progress, lease,
 * ring counters) and a list of output chunks (`<prefix>jobout:<id>`); a sorted set per owner
 * (`<prefix>jobs:owner:<hash of the owner>`, by start time) lists them and counts the owner's limits.
 * Every step is one Lua script, so two replicas never both see room under a limit, an end never
 * overwrites a kill, and the output ring is trimmed in the same script that pushes to it (whole
 * chunks by LTRIM from the head, the one chunk across the edge cut by LSET): the list never holds
 * more than the ring's size.
 *
 * Kill across replicas: a kill sets the status at once and PUBLISHes `<replica> <jobId> <reason>`
 * on `<prefix>jobs:kill`; each store has one subscriber connection, opened on the first
 * `watchKills`. A message lost (the subscriber reconnecting) is caught by the next lease renewal,
 * which returns the replica's jobs that are no longer running.
 *
 * Leases: a running job's `leaseUntil` is renewed by its replica; any script that touches a
 * running job whose lease ran out ends it failed first. Ended jobs (and their output) expire after
 * `ttlMs`; a running one expires `ttlMs` after its lease, so nothing is kept for ever.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { InvalidOptionError, JobStoreError, JOB_ID, LEASE_LOST_ERROR, sliceRing, type JobProgressInfo, type JobStore, type JsonValue, type StoppedJob, type StoredJob } from '../tools/index.js';
import { luaScript, storeRun, type OpenedRedis } from './connection.js';

/** Options of {@link createRedisJobStore}. */
export interface RedisJobStoreOptions {
  /** Prefix of every key and of the kill channel (default `ptc:`). */
  readonly prefix?: string;
  /** How long an ended job (record and output) is kept, ms (default 86,400,000: one day). */
  readonly ttlMs?: number;
}

// Shared by the scripts: ARGV of the caller is not visible here, so each takes what it needs.
const LIB = `
local LEASE_LOST = ${JSON.stringify(LEASE_LOST_ERROR)}
-- Ends a running job whose lease ran out; returns its status (false when there is no such job).
local function expire(job, out, now, ttl)
  local st = redis.call('HMGET', job, 'status', 'leaseUntil')
  if not st[1] then return false end
  if st[1] == 'running' and tonumber(st[2]) < now then
    redis.call('HSET', job, 'status', 'failed', 'endedAt', st[2], 'error', LEASE_LOST)
    redis.call('HDEL', job, 'leaseUntil')
    redis.call('PEXPIRE', job, ttl)
    redis.call('PEXPIRE', out, ttl)
    return 'failed'
  end
  return st[1]
end
-- The owner's job ids, oldest first, with their status; ids whose record expired are dropped.
local function jobsOf(owners, prefix, now, ttl)
  local out = {}
  for _, id in ipairs(redis.call('ZRANGE', owners, 0, -1)) do
    local status = expire(prefix .. 'job:' .. id, prefix .. 'jobout:' .. id, now, ttl)
    if status then out[#out + 1] = { id, status } else redis.call('ZREM', owners, id) end
  end
  return out
end
-- Forgets the owner's oldest finished jobs beyond maxRetained.
local function prune(owners, prefix, now, ttl, maxRetained)
  local finished = {}
  for _, j in ipairs(jobsOf(owners, prefix, now, ttl)) do
    if j[2] ~= 'running' then finished[#finished + 1] = j[1] end
  end
  for i = 1, #finished - maxRetained do
    redis.call('DEL', prefix .. 'job:' .. finished[i], prefix .. 'jobout:' .. finished[i])
    redis.call('ZREM', owners, finished[i])
  end
end
local function kill(job, now, reason, ttl, channel, id)
  redis.call('HSET', job, 'status', 'killed', 'endedAt', now, 'error', reason)
  redis.call('HDEL', job, 'leaseUntil')
  redis.call('PEXPIRE', job, ttl)
  local replica = redis.call('HGET', job, 'replica')
  redis.call('PUBLISH', channel, replica .. ' ' .. id .. ' ' .. reason)
end`;

// KEYS: owners, job, out. ARGV: id, kind, label, owner, replica, startedAt, now, leaseMs, maxRunning, maxRetained, cap, prefix, ttl.
// -1 when created, else the owner's running count.
const CREATE = luaScript(`${LIB}
local now, ttl = tonumber(ARGV[7]), tonumber(ARGV[13])
local running = 0
for _, j in ipairs(jobsOf(KEYS[1], ARGV[12], now, ttl)) do
  if j[2] == 'running' then running = running + 1 end
end
if running >= tonumber(ARGV[9]) then return running end
local leaseUntil = now + tonumber(ARGV[8])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[2], 'kind', ARGV[2], 'label', ARGV[3], 'owner', ARGV[4], 'replica', ARGV[5], 'status', 'running',
  'startedAt', ARGV[6], 'leaseUntil', leaseUntil, 'cap', ARGV[11], 'total', 0, 'dropped', 0, 'retained', 0, 'owners', KEYS[1])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[8]) + ttl)
-- Scored by start time, but never at or below the owner's newest: jobs started in one millisecond
-- are listed and forgotten in the order they were created, not by their ids.
local score = tonumber(ARGV[6])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) >= score then score = tonumber(newest[2]) + 1 end
redis.call('ZADD', KEYS[1], score, ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[8]) + ttl)
prune(KEYS[1], ARGV[12], now, ttl, tonumber(ARGV[10]))
return -1`);

// KEYS: job, out. ARGV: text. The ring: push, then drop from the head what is over the size.
const APPEND = luaScript(`
local st = redis.call('HMGET', KEYS[1], 'status', 'cap', 'retained')
if st[1] ~= 'running' then return 0 end
local cap, retained, text = tonumber(st[2]), tonumber(st[3]), ARGV[1]
local len = #text
local dropped = 0
if len >= cap then
  dropped = retained + len - cap
  redis.call('DEL', KEYS[2])
  redis.call('RPUSH', KEYS[2], string.sub(text, len - cap + 1))
  retained = cap
else
  redis.call('RPUSH', KEYS[2], text)
  retained = retained + len
  local whole = 0
  while retained > cap do
    local head = redis.call('LINDEX', KEYS[2], whole)
    local excess = retained - cap
    if #head <= excess then
      whole = whole + 1
      retained = retained - #head
      dropped = dropped + #head
    else
      redis.call('LSET', KEYS[2], whole, string.sub(head, excess + 1))
      retained = retained - excess
      dropped = dropped + excess
    end
  end
  if whole > 0 then redis.call('LTRIM', KEYS[2], whole, -1) end
end
redis.call('HINCRBY', KEYS[1], 'total', len)
redis.call('HINCRBY', KEYS[1], 'dropped', dropped)
redis.call('HSET', KEYS[1], 'retained', retained)
redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
return 1`);

// KEYS: job. ARGV: progress JSON.
const PROGRESS = luaScript(`
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
return 1`);

// KEYS: job, out. ARGV: replica, status, endedAt, value JSON or '', error or '', hasValue, hasError, maxRetained, prefix, ttl.
const END = luaScript(`${LIB}
local now, ttl = tonumber(ARGV[3]), tonumber(ARGV[10])
if expire(KEYS[1], KEYS[2], now, ttl) ~= 'running' then return 0 end
local st = redis.call('HMGET', KEYS[1], 'replica', 'owners')
if st[1] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'endedAt', ARGV[3])
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'value', ARGV[4]) end
if ARGV[7] == '1' then redis.call('HSET', KEYS[1], 'error', ARGV[5]) end
redis.call('HDEL', KEYS[1], 'leaseUntil')
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
prune(st[2], ARGV[9], now, ttl, tonumber(ARGV[8]))
return 1`);

// KEYS: job, out. ARGV: owner, now, ttl, with output ('1'). The record (flat) and the chunks, or false.
const READ = luaScript(`${LIB}
if not expire(KEYS[1], KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3])) then return false end
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return false end
local chunks = {}
if ARGV[4] == '1' then chunks = redis.call('LRANGE', KEYS[2], 0, -1) end
return { redis.call('HGETALL', KEYS[1]), chunks }`);

// KEYS: owners. ARGV: prefix, now, ttl. Each job: { id, flat record }.
const LIST = luaScript(`${LIB}
local out = {}
for _, j in ipairs(jobsOf(KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))) do
  out[#out + 1] = { j[1], redis.call('HGETALL', ARGV[1] .. 'job:' .. j[1]) }
end
return out`);

// KEYS: job, out, owners. ARGV: owner, now, reason, maxRetained, prefix, ttl, channel, id.
const KILL = luaScript(`${LIB}
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[6])
local status = expire(KEYS[1], KEYS[2], now, ttl)
if not status or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return false end
if status == 'running' then
  kill(KEYS[1], now, ARGV[3], ttl, ARGV[7], ARGV[8])
  redis.call('PEXPIRE', KEYS[2], ttl)
end
local record = redis.call('HGETALL', KEYS[1])
prune(KEYS[3], ARGV[5], now, ttl, tonumber(ARGV[4]))
return record`);

// ARGV: replica, now, leaseMs, prefix, ttl, ids... Each stopped job: { id, status, error or '' }.
const RENEW = luaScript(`${LIB}
local now, leaseMs, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local stopped = {}
for i = 6, #ARGV do
  local id = ARGV[i]
  local job, out = ARGV[4] .. 'job:' .. id, ARGV[4] .. 'jobout:' .. id
  local status = expire(job, out, now, ttl)
  local st = redis.call('HMGET', job, 'replica', 'error')
  if status == 'running' and st[1] == ARGV[1] then
    redis.call('HSET', job, 'leaseUntil', now + leaseMs)
    redis.call('PEXPIRE', job, leaseMs + ttl)
    redis.call('PEXPIRE', out, leaseMs + ttl)
  elseif not status then
    stopped[#stopped + 1] = { id, 'failed', 'the job store no longer holds it' }
  else
    stopped[#stopped + 1] = { id, status, st[2] or '' }
  end
end
return stopped`);

// KEYS: owners. ARGV: prefix, now, reason, ttl, channel.
const FORGET = luaScript(`${LIB}
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[4])
for _, j in ipairs(jobsOf(KEYS[1], ARGV[1], now, ttl)) do
  local job = ARGV[1] .. 'job:' .. j[1]
  if j[2] == 'running' then kill(job, now, ARGV[3], ttl, ARGV[5], j[1]) end
  redis.call('DEL', job, ARGV[1] .. 'jobout:' .. j[1])
end
redis.call('DEL', KEYS[1])
return 1`);

type Flat = readonly (Buffer | string)[];

function recordOf(jobId: string, flat: Flat): StoredJob {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[String(flat[i])] = String(flat[i + 1]);
  return {
    jobId,
    kind: f['kind']!,
    label: f['label']!,
    owner: f['owner']!,
    replica: f['replica']!,
    status: f['status'] as StoredJob['status'],
    startedAt: Number(f['startedAt']),
    ...(f['endedAt'] !== undefined ? { endedAt: Number(f['endedAt']) } : {}),
    ...(f['value'] !== undefined ? { value: JSON.parse(f['value']) as JsonValue } : {}),
    ...(f['error'] !== undefined ? { error: f['error'] } : {}),
    ...(f['progress'] !== undefined ? { progress: JSON.parse(f['progress']) as JobProgressInfo } : {}),
    outputBytes: Number(f['total'] ?? 0),
    droppedBytes: Number(f['dropped'] ?? 0),
  };
}

/** A job store on an open Redis connection (see {@link createRedisStores}). */
export function createRedisJobStore(redis: OpenedRedis, options: RedisJobStoreOptions = {}): JobStore & { close(): Promise<void> } {
  const prefix = options.prefix ?? 'ptc:';
  const ttlMs = options.ttlMs ?? 86_400_000;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new InvalidOptionError({ where: 'createRedisStores', option: 'jobTtlMs', value: ttlMs, expected: 'a whole number of ms, at least 1' });
  const { client } = redis;
  const jobKey = (id: string) => `${prefix}job:${id}`;
  const outKey = (id: string) => `${prefix}jobout:${id}`;
  // Owner keys are agent ids (any text): the key holds a digest of it, the record the id itself.
  const ownersKey = (owner: string) => `${prefix}jobs:owner:${createHash('sha256').update(owner).digest('hex').slice(0, 32)}`;
  const channel = `${prefix}jobs:kill`;

  // A Redis failure is a JobStoreError naming the step (the password never in it); refusals pass through.
  const run = storeRun(redis, (operation, detail, cause) => new JobStoreError(operation, detail, { cause }));

  // One subscriber connection for every replica of this store in the process.
  let subscriber: Promise<Redis> | undefined;
  const watchers = new Map<string, Set<(jobId: string, reason: string) => void>>();
  const subscribe = () =>
    (subscriber ??= run('subscribe to job kills', async () => {
      const sub = client.duplicate({ lazyConnect: true, enableOfflineQueue: true });
      sub.on('error', () => {}); // Reconnects on its own; a kill missed meanwhile comes with the next renewal.
      sub.on('message', (_channel: string, message: string) => {
        const [replica, jobId, ...reason] = message.split(' ');
        for (const onKill of watchers.get(replica!) ?? []) onKill(jobId!, reason.join(' '));
      });
      try {
        await sub.connect();
        await sub.subscribe(channel);
      } catch (err) {
        sub.disconnect();
        subscriber = undefined;
        throw err;
      }
      return sub;
    }));

  return {
    kind: 'shared',
    async create(job, o) {
      const result = Number(
        await run(`record job "${job.jobId}"`, () =>
          CREATE.call(client, [ownersKey(job.owner), jobKey(job.jobId), outKey(job.jobId)], [job.jobId, job.kind, job.label, job.owner, job.replica, job.startedAt, o.now, o.leaseMs, o.maxRunning, o.maxRetained, o.outputBytes, prefix, ttlMs]),
        ),
      );
      return result < 0 ? { created: true } : { created: false, running: result };
    },
    async append(jobId, text) {
      await run(`append the output of job "${jobId}"`, () => APPEND.call(client, [jobKey(jobId), outKey(jobId)], [text]));
    },
    async progress(jobId, progress) {
      await run(`record the progress of job "${jobId}"`, () => PROGRESS.call(client, [jobKey(jobId)], [JSON.stringify(progress)]));
    },
    async end(jobId, outcome, o) {
      const ended = await run(`end job "${jobId}"`, () =>
        END.call(
          client,
          [jobKey(jobId), outKey(jobId)],
          [outcome.replica, outcome.status, outcome.endedAt, outcome.value === undefined ? '' : JSON.stringify(outcome.value), outcome.error ?? '', outcome.value === undefined ? '0' : '1', outcome.error === undefined ? '0' : '1', o.maxRetained, prefix, ttlMs],
        ),
      );
      return Number(ended) === 1;
    },
    async read(owner, jobId, o) {
      if (!JOB_ID.test(jobId)) return undefined;
      const reply = (await run(`read job "${jobId}"`, () => READ.callBuffer(client, [jobKey(jobId), outKey(jobId)], [owner, o.now, ttlMs, o.page ? '1' : '0']))) as [Flat, Buffer[]] | null;
      if (!reply) return undefined;
      const job = recordOf(jobId, reply[0]);
      if (!o.page) return { job };
      return { job, output: sliceRing(Buffer.concat(reply[1]), job.droppedBytes, o.page.offset, o.page.limit) };
    },
    async list(owner, o) {
      const reply = (await run('list jobs', () => LIST.callBuffer(client, [ownersKey(owner)], [prefix, o.now, ttlMs]))) as [Buffer, Flat][];
      return reply.map(([id, flat]) => recordOf(String(id), flat));
    },
    async kill(owner, jobId, o) {
      if (!JOB_ID.test(jobId)) return undefined;
      const flat = (await run(`kill job "${jobId}"`, () =>
        KILL.callBuffer(client, [jobKey(jobId), outKey(jobId), ownersKey(owner)], [owner, o.now, o.reason, o.maxRetained, prefix, ttlMs, channel, jobId]),
      )) as Flat | null;
      return flat ? recordOf(jobId, flat) : undefined;
    },
    async renew(replica, jobIds, o) {
      if (jobIds.length === 0) return [];
      const reply = (await run('renew job leases', () => RENEW.call(client, [], [replica, o.now, o.leaseMs, prefix, ttlMs, ...jobIds]))) as [string, string, string][];
      return reply.map(([jobId, status, error]): StoppedJob => ({ jobId, status: status as StoppedJob['status'], ...(error !== '' ? { error } : {}) }));
    },
    async watchKills(replica, onKill) {
      await subscribe();
      const set = watchers.get(replica) ?? new Set();
      watchers.set(replica, set);
      set.add(onKill);
      return {
        async close() {
          set.delete(onKill);
          if (set.size === 0) watchers.delete(replica);
        },
      };
    },
    async forgetOwner(owner, o) {
      await run('forget the jobs of an owner', () => FORGET.call(client, [ownersKey(owner)], [prefix, o.now, o.reason, ttlMs, channel]));
    },
    async close() {
      const sub = await subscriber?.catch(() => undefined);
      subscriber = undefined;
      watchers.clear();
      if (sub) await sub.quit().catch(() => sub.disconnect());
    },
  };
}
