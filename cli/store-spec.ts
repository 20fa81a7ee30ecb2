/**
 * `--store SPEC` and `--durable-key-env NAME`: where durable runs are kept and the key their
 * resume tokens are signed with, shared by `ptc mcp serve` and `ptc runs`. The key is read from
 * the environment, never from argv (where `ps` would show it), and never printed.
 *
 * Accepted stores: `file:DIR` (the embedded file run store: one machine, survives a restart).
 */
import { resolve } from 'node:path';
import type { RunStore } from '../runtime/index.js';
import { CliError } from './errors.js';

/** The durable settings a command builds its run_code with. */
export interface DurableSettings {
  readonly store: RunStore;
  /** What `--store` named, for messages (no secret in it). */
  readonly describe: string;
  readonly keys: { readonly current: string; readonly previous?: readonly string[] };
}

/** Opens the run store a `--store` value names. Throws {@link CliError} naming the accepted forms. */
export async function openRunStore(spec: string): Promise<{ store: RunStore; describe: string }> {
  const match = /^file:(.+)$/.exec(spec);
  if (match === null) throw new CliError(`--store takes file:DIR (a directory for the file run store), got ${JSON.stringify(spec.slice(0, 100))}`);
  const dir = resolve(match[1]!);
  const { createFileRunStore } = await import('../runtime/index.js');
  return { store: createFileRunStore({ dir }), describe: `file:${dir}` };
}

/**
 * The durable settings of `--store` with `--durable-key-env` (and `--durable-previous-key-env`
 * for a rotated key): both or neither. Throws {@link CliError} when one is missing, the variable
 * is unset, or the key is shorter than 32 bytes.
 */
export async function durableSettings(flags: { readonly store?: string; readonly keyEnv?: string; readonly previousKeyEnv?: string }, keyFlag = '--durable-key-env'): Promise<DurableSettings | undefined> {
  if (flags.store === undefined && flags.keyEnv === undefined) return undefined;
  if (flags.store === undefined) throw new CliError(`${keyFlag} signs durable runs' resume tokens: give --store file:DIR too`);
  if (flags.keyEnv === undefined) throw new CliError(`--store makes run_code durable, which needs ${keyFlag} NAME: an environment variable holding a secret of at least 32 bytes (e.g. \`openssl rand -hex 32\`)`);
  const current = secretFromEnv(flags.keyEnv, keyFlag);
  const previous = flags.previousKeyEnv === undefined ? undefined : [secretFromEnv(flags.previousKeyEnv, '--durable-previous-key-env')];
  const { store, describe } = await openRunStore(flags.store);
  return { store, describe, keys: { current, ...(previous ? { previous } : {}) } };
}

/** Most bytes of a key is not checked; fewer than this are refused. */
const MIN_KEY_BYTES = 32;

/** The secret in environment variable `name`, checked (never printed). */
function secretFromEnv(name: string, flag: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new CliError(`${flag} takes the name of an environment variable, not a key`);
  const value = process.env[name];
  if (value === undefined || value === '') throw new CliError(`${flag} ${name}: the environment variable ${name} is not set`);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes < MIN_KEY_BYTES) throw new CliError(`${flag} ${name}: the key in ${name} is ${bytes} bytes; it must be at least ${MIN_KEY_BYTES} (e.g. \`openssl rand -hex 32\`)`);
  return value;
}
