/**
 * The Redis connection the shared stores use, and how its failures are reported: every error is a
 * {@link RedisStoreError} naming the operation, with the connection URL's password (and any
 * `user:password@` part) cut out of the text, whatever the driver put there.
 */
import { createHash } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { errorText, InvalidOptionError, PtcError } from '../tools/index.js';

/** How to reach Redis: a `redis://` / `rediss://` URL, or a client the caller owns (left open by `close()`). */
export type RedisConnection = { readonly url: string } | { readonly client: Redis };

/** A shared store's call to Redis failed (a connection refused or lost, a script error). */
export class RedisStoreError extends PtcError {
  override readonly name = 'RedisStoreError';
  constructor(
    readonly operation: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Redis store failed to ${operation}: ${detail.replace(/\.+$/, '')}.`, options);
  }
}

/** The text of a driver error with every secret in `secrets` replaced by `***`. */
export function redactedText(err: unknown, secrets: readonly string[]): string {
  let text = errorText(err);
  for (const secret of secrets) if (secret !== '') text = text.split(secret).join('***');
  return text.replace(/(rediss?:\/\/)[^@\s/]*@/g, '$1***@');
}

/** Host and port of a client (never its credentials). */
const where = (client: Redis) => `${client.options.host ?? '?'}:${client.options.port ?? '?'}`;

/** The secrets of a URL (its password and user) that never appear in an error. */
function urlSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    return [parsed.password, decodeURIComponent(parsed.password), parsed.username].filter((s) => s.length >= 3);
  } catch {
    return [];
  }
}

/** An open connection: the client, the secrets to redact, and whether `close()` may quit it. */
export interface OpenedRedis {
  readonly client: Redis;
  readonly owned: boolean;
  readonly secrets: readonly string[];
  /** Options for more connections to the same server (BullMQ needs its own). */
  readonly options: RedisOptions;
  /** Runs `call`, turning a failure into a {@link RedisStoreError} for `operation`. */
  run<T>(operation: string, call: () => Promise<T>): Promise<T>;
}

/**
 * Opens (or adopts) a client and waits for its first PING. An owned client does not queue
 * commands while disconnected: a call during an outage fails at once with a clear error instead
 * of hanging until Redis is back.
 */
export async function openRedis(connection: RedisConnection): Promise<OpenedRedis> {
  let client: Redis;
  let owned: boolean;
  let secrets: string[] = [];
  if ('client' in connection) {
    if (!(connection.client instanceof Redis) && typeof (connection.client as { evalsha?: unknown })?.evalsha !== 'function') {
      throw new InvalidOptionError({ where: 'createRedisStores', option: 'client', value: typeof connection.client, expected: 'an ioredis client' });
    }
    client = connection.client;
    owned = false;
  } else {
    const url = connection.url;
    if (typeof url !== 'string' || !/^rediss?:\/\//.test(url)) {
      // The value shown is the scheme only: a URL may carry a password.
      throw new InvalidOptionError({ where: 'createRedisStores', option: 'url', value: typeof url === 'string' ? `${url.split(':')[0]}:...` : url, expected: 'a redis:// or rediss:// URL' });
    }
    secrets = urlSecrets(url);
    client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 5000, retryStrategy: (times) => Math.min(times * 100, 2000) });
    // ioredis reports connection errors as events too; the calls report them, so keep it quiet.
    client.on('error', () => {});
    owned = true;
  }
  const run = async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      if (PtcError.isInstance(err)) throw err;
      const detail = redactedText(err, secrets);
      // The driver's text for a call during an outage ("Stream isn't writeable") does not say so.
      throw new RedisStoreError(operation, client.status === 'ready' || operation.includes(where(client)) ? detail : `no connection to Redis at ${where(client)} (${client.status}): ${detail}`);
    }
  };
  try {
    if (owned) await run(`connect to ${where(client)}`, () => client.connect());
    await run(`answer PING at ${where(client)}`, () => client.ping());
  } catch (err) {
    // A client of ours that never connected would retry for ever and keep the process alive.
    if (owned) client.disconnect();
    throw err;
  }
  return { client, owned, secrets, options: { ...client.options }, run };
}

/**
 * `redis.run` for a store whose failures are its own named error (what its callers already
 * handle): a {@link RedisStoreError} becomes `wrap('<operation> (Redis)', detail, cause)`;
 * refusals (other named errors) pass through.
 */
export function storeRun(redis: OpenedRedis, wrap: (operation: string, detail: string, cause: PtcError) => Error): <T>(operation: string, call: () => Promise<T>) => Promise<T> {
  return async (operation, call) => {
    try {
      return await redis.run(operation, call);
    } catch (err) {
      if (PtcError.isInstance(err) && err.name === 'RedisStoreError') throw wrap(`${operation} (Redis)`, (err as RedisStoreError).detail, err);
      throw err;
    }
  };
}

/** A Lua script run by its digest, loaded on first use (and again after a server restart). */
export interface LuaScript {
  call(client: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  /** As `call`, with the reply's strings as Buffers (bytes that are not whole UTF-8 characters survive). */
  callBuffer(client: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}

export function luaScript(source: string): LuaScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    async call(client, keys, args) {
      try {
        return await client.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!/NOSCRIPT/.test(errorText(err))) throw err;
        return client.eval(source, keys.length, ...keys, ...args);
      }
    },
    async callBuffer(client, keys, args) {
      try {
        return await client.callBuffer('EVALSHA', sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!/NOSCRIPT/.test(errorText(err))) throw err;
        return client.callBuffer('EVAL', source, keys.length, ...keys, ...args);
      }
    },
  };
}
