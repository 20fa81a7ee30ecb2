/**
 * The function that links a trace's lines: SHA-256 of a line's bytes (unkeyed), or HMAC-SHA256
 * of them under a secret key (keyed). The header names which (`hash: 'sha256' | 'hmac-sha256'`),
 * and a keyed header also carries `keyId`, an HMAC of a fixed label under the same key, so a
 * verifier can tell "not the key it was written with" from "edited" (it proves nothing more: an
 * attacker who changes it only changes which of the two a broken chain is reported as).
 *
 * The key is bytes: a string key is its UTF-8 bytes as given (a hex or base64 string is not
 * decoded), and it must be at least 32 bytes, since every line of a keyed trace is a known
 * plaintext with its MAC beside it, open to an offline guess of a weak key.
 */
import { createHash, createHmac } from 'node:crypto';
import { InvalidOptionError } from './errors.js';

/** A secret for keyed traces: at least {@link MIN_TRACE_KEY_BYTES} bytes (a string counts its UTF-8 bytes). */
export type TraceKey = string | Uint8Array;

/** Shortest key a keyed trace accepts (`openssl rand -hex 32` gives 64). */
export const MIN_TRACE_KEY_BYTES = 32;

/** The header's name of the chain function. */
export type TraceHashName = 'sha256' | 'hmac-sha256';

/** Hashes one line (its exact bytes, or a string's UTF-8 bytes) for the chain. */
export interface ChainHasher {
  readonly name: TraceHashName;
  /** For a keyed chain: the key's id as written in the header. */
  readonly keyId?: string;
  hash(line: string | Uint8Array): string;
}

/** SHA-256 (hex) of a line's exact bytes (a string: its UTF-8 bytes): the unkeyed chain's link. */
export function hashLine(line: string | Uint8Array): string {
  return typeof line === 'string' ? createHash('sha256').update(line, 'utf8').digest('hex') : createHash('sha256').update(line).digest('hex');
}

const KEY_ID_LABEL = 'ptc-trace key id';

/** The key's bytes, checked. Never puts the key in the error: only its length. */
export function traceKeyBytes(key: TraceKey, where: string): Buffer {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key instanceof Uint8Array ? Buffer.from(key) : undefined;
  if (bytes === undefined) throw new InvalidOptionError({ where, option: 'key', value: typeof key, expected: 'a string or a Uint8Array' });
  if (bytes.length < MIN_TRACE_KEY_BYTES) {
    throw new InvalidOptionError({ where, option: 'key (its length in bytes)', value: bytes.length, expected: `at least ${MIN_TRACE_KEY_BYTES} (a random secret, e.g. \`openssl rand -hex 32\`)` });
  }
  return bytes;
}

/** The chain function for a trace: keyed when `key` is given. */
export function chainHasher(key: TraceKey | undefined, where: string): ChainHasher {
  if (key === undefined) return { name: 'sha256', hash: hashLine };
  const secret = traceKeyBytes(key, where);
  const mac = (line: string | Uint8Array) => (typeof line === 'string' ? createHmac('sha256', secret).update(line, 'utf8') : createHmac('sha256', secret).update(line)).digest('hex');
  return { name: 'hmac-sha256', keyId: mac(KEY_ID_LABEL).slice(0, 16), hash: mac };
}
