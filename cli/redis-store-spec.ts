/**
 * `--store-env NAME`: the shared stores of `ptc mcp serve` replicas, from a `redis://` URL in that
 * environment variable (never argv: a URL carries a password, and argv is visible to every user
 * of the machine in `ps`). ptc-runtime/redis (and ioredis) load only when the flag is given.
 */
import type { RedisStores } from '../redis/index.js';
import { CliError } from './errors.js';

/** Opens the Redis stores named by `--store-env NAME`; a {@link CliError} says what is wrong without the URL. */
export async function openRedisStoresFromEnv(name: string, env: NodeJS.ProcessEnv = process.env): Promise<RedisStores> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new CliError('--store-env takes the name of an environment variable holding a redis:// URL, not the URL itself');
  const url = env[name];
  if (!url) throw new CliError(`--store-env ${name}: that environment variable is not set`);
  if (!/^rediss?:\/\//.test(url)) throw new CliError(`--store-env ${name}: the variable must hold a redis:// or rediss:// URL`);
  let redis: typeof import('../redis/index.js');
  try {
    redis = await import('../redis/index.js');
  } catch (err) {
    if (!/ioredis/.test((err as Error).message)) throw err;
    throw new CliError(`--store-env needs the optional package ioredis (npm install ioredis): ${(err as Error).message.split('\n')[0]}`);
  }
  try {
    return await redis.createRedisStores({ url });
  } catch (err) {
    // RedisStoreError's text never holds the URL's password.
    throw new CliError(`--store-env ${name}: ${(err as Error).message}`);
  }
}
