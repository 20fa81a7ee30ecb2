/**
 * `--store SPEC` / `--store-env NAME` and `--durable-key-env NAME`: where durable runs are kept
 * and the key their resume tokens are signed with, shared by `ptc mcp serve` and `ptc runs`. The
 * key (and a Redis URL) is read from the environment, never from argv (where `ps` would show it),
 * and never printed.
 *
 * Accepted stores: `--store file:DIR` (the embedded file run store: one machine, survives a
 * restart), or `--store-env NAME` (the Redis run store of `ptc-runtime/redis`, shared by replicas:
 * the redis:// URL is in that environment variable).
 */
import { resolve } from 'node:path';
import type { RedisStores } from '../redis/index.js';
import type { RunStore } from '../runtime/index.js';
import { CliError } from './errors.js';

/** The durable settings a command builds its run_code with. */
export interface DurableSettings {
  readonly store: RunStore;
  /** What `--store` / `--store-env` named, for messages (no secret in it). */
  readonly describe: string;
  readonly keys: { readonly current: string; readonly previous?: readonly string[] };
}

/** Where durable runs are kept: `--store file:DIR`, or the Redis stores opened for `--store-env NAME`. */
export type RunStoreSource = { readonly store: string } | { readonly redis: RedisStores; readonly storeEnv: string };

/** Opens the run store a `--store` value names. Throws {@link CliError} naming the accepted forms. */
export async function openRunStore(spec: string): Promise<{ store: RunStore; describe: string }> {
  const match = /^file:(.+)$/.exec(spec);
  if (match === null) throw new CliError(`--store takes file:DIR (a directory for the file run store; for Redis use --store-env NAME), got ${JSON.stringify(spec.slice(0, 100))}`);
  const dir = resolve(match[1]!);
  const { createFileRunStore } = await import('../runtime/index.js');
  return { store: createFileRunStore({ dir }), describe: `file:${dir}` };
}

/** The run store of a source, and what to call it in messages. */
async function runStoreOf(source: RunStoreSource): Promise<{ store: RunStore; describe: string }> {
  if ('redis' in source) return { store: source.redis.runs, describe: `Redis (--store-env ${source.storeEnv})` };
  return openRunStore(source.store);
}

/**
 * The durable settings of a store (`--store file:DIR`, or the Redis of `--store-env`) with
 * `--durable-key-env` (and `--durable-previous-key-env` for a rotated key). A file store needs the
 * key (both or neither); Redis stores without a key are shared for spills and jobs only (undefined here).
 * Throws {@link CliError} when a key has no store, the variable is unset, or the key is shorter
 * than 32 bytes.
 */
export async function durableSettings(
  flags: { readonly store?: string; readonly redis?: RedisStores; readonly storeEnv?: string; readonly keyEnv?: string; readonly previousKeyEnv?: string },
  keyFlag = '--durable-key-env',
): Promise<DurableSettings | undefined> {
  const file = flags.store;
  const redis = flags.redis;
  if (file !== undefined && redis !== undefined && flags.keyEnv !== undefined) {
    throw new CliError(`--store and --store-env both name where durable runs are kept: give one (--store-env NAME keeps them in the shared Redis)`);
  }
  if (file === undefined && flags.keyEnv === undefined) return undefined;
  if (file === undefined && redis === undefined) throw new CliError(`${keyFlag} signs durable runs' resume tokens: give --store file:DIR or --store-env NAME too`);
  if (flags.keyEnv === undefined) throw new CliError(`--store makes run_code durable, which needs ${keyFlag} NAME: an environment variable holding a secret of at least 32 bytes (e.g. \`openssl rand -hex 32\`)`);
  const current = secretFromEnv(flags.keyEnv, keyFlag);
  const previous = flags.previousKeyEnv === undefined ? undefined : [secretFromEnv(flags.previousKeyEnv, '--durable-previous-key-env')];
  const { store, describe } = await runStoreOf(file !== undefined ? { store: file } : { redis: redis!, storeEnv: flags.storeEnv ?? '?' });
  return { store, describe, keys: { current, ...(previous ? { previous } : {}) } };
}

/**
 * The run store of a `ptc runs` command: `--store file:DIR` or `--store-env NAME`, exactly one.
 * `close()` releases it (the Redis connection, if one was opened).
 */
export async function runStoreFromFlags(flags: { readonly store?: string; readonly storeEnv?: string }): Promise<{ store: RunStore; describe: string; redis?: RedisStores; close(): Promise<void> }> {
  if ((flags.store === undefined) === (flags.storeEnv === undefined)) throw new CliError('give the run store: --store file:DIR or --store-env NAME (a redis:// URL in that environment variable), one of them');
  if (flags.store !== undefined) {
    const { store, describe } = await openRunStore(flags.store);
    return { store, describe, close: async () => store.close?.() };
  }
  const { openRedisStoresFromEnv } = await import('./redis-store-spec.js');
  const redis = await openRedisStoresFromEnv(flags.storeEnv!);
  return { store: redis.runs, describe: `Redis (--store-env ${flags.storeEnv})`, redis, close: () => redis.close() };
}

/** Most bytes of a key is not checked; fewer than this are refused. */
const MIN_KEY_BYTES = 32;

/** The secret in environment variable `name`, checked (never printed). */
export function secretFromEnv(name: string, flag: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new CliError(`${flag} takes the name of an environment variable, not a key`);
  const value = process.env[name];
  if (value === undefined || value === '') throw new CliError(`${flag} ${name}: the environment variable ${name} is not set`);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes < MIN_KEY_BYTES) throw new CliError(`${flag} ${name}: the key in ${name} is ${bytes} bytes; it must be at least ${MIN_KEY_BYTES} (e.g. \`openssl rand -hex 32\`)`);
  return value;
}
