/**
 * The bounds of `serveMcpHttp`, checked before anything listens: connections (in all and per
 * remote address), time (to send the headers, the whole request, between keep-alive requests)
 * and sessions (in all and per client). Each bad value is an {@link InvalidOptionError} naming
 * the option, as for the listening options (http-options.ts).
 *
 * The default connection cap is 512, or half the process's open-file limit when that is lower
 * (read from /proc/self/limits on Linux): the other half stays for sandbox processes, imported
 * MCP servers and trace files, so sockets alone can never exhaust the fds.
 */
import { readFileSync } from 'node:fs';
import { InvalidOptionError } from '../tools/index.js';

/** The checked bounds, defaults filled in. */
export interface HttpBounds {
  /** Open sockets at most. */
  readonly maxConnections: number;
  /** Open sockets from one remote address at most. */
  readonly maxConnectionsPerAddress: number;
  /** From a socket's accept (or the end of its last request) to its request headers, ms. */
  readonly headersTimeoutMs: number;
  /** From the start of a request to its last body byte, ms. */
  readonly requestTimeoutMs: number;
  /** A keep-alive socket with no request is closed after this long, ms. */
  readonly keepAliveTimeoutMs: number;
  /** How often Node checks the headers and request times, ms: a quarter of headersTimeoutMs, at most 1 s. */
  readonly checkIntervalMs: number;
  /** Sessions of one client at most (stateful only). */
  readonly maxSessionsPerClient: number;
}

export const DEFAULT_MAX_CONNECTIONS = 512;
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_SESSIONS_PER_CLIENT = 20;

/** Node runs a longer timer at once (after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

const invalid = (option: string, value: unknown, expected: string) => new InvalidOptionError({ where: 'serveMcpHttp', option, value, expected });

/** The soft limit on open files of this process, or undefined where it cannot be read. */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(read())?.[1];
    return soft === undefined ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

function count(options: Record<string, unknown>, option: string, fallback: number, most?: { value: number; name: string }): number {
  const value = options[option] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalid(option, value, 'a whole number, 1 or more');
  if (most && options[option] !== undefined && value > most.value) throw invalid(option, value, `a whole number from 1 to ${most.name} (${most.value})`);
  return most ? Math.min(value, most.value) : value;
}

function ms(options: Record<string, unknown>, option: string, fallback: number): number {
  const value = options[option] ?? fallback;
  if (typeof value !== 'number' || !(value > 0 && value <= MAX_TIMER_MS)) throw invalid(option, value, `a number of ms above 0 and at most ${MAX_TIMER_MS} (about 24.8 days)`);
  return value;
}

/**
 * Checks the bounds of `serveMcpHttp` (`maxSessions` already checked); throws an
 * {@link InvalidOptionError} naming the first bad one.
 */
export function resolveHttpBounds(options: Record<string, unknown>, maxSessions: number, fdLimit: number | undefined = openFileLimit()): HttpBounds {
  const defaultMax = fdLimit === undefined ? DEFAULT_MAX_CONNECTIONS : Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, Math.floor(fdLimit / 2)));
  const maxConnections = count(options, 'maxConnections', defaultMax);
  const maxConnectionsPerAddress = count(options, 'maxConnectionsPerAddress', DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, { value: maxConnections, name: 'maxConnections' });
  const headersTimeoutMs = ms(options, 'headersTimeoutMs', DEFAULT_HEADERS_TIMEOUT_MS);
  const requestTimeoutMs = ms(options, 'requestTimeoutMs', Math.max(DEFAULT_REQUEST_TIMEOUT_MS, headersTimeoutMs));
  // Node measures both from the request's start: headers cannot be given longer than the whole.
  if (requestTimeoutMs < headersTimeoutMs) throw invalid('requestTimeoutMs', requestTimeoutMs, `a number of ms at least headersTimeoutMs (${headersTimeoutMs}): the request's time includes its headers`);
  const keepAliveTimeoutMs = ms(options, 'keepAliveTimeoutMs', DEFAULT_KEEP_ALIVE_TIMEOUT_MS);
  const maxSessionsPerClient = count(options, 'maxSessionsPerClient', DEFAULT_MAX_SESSIONS_PER_CLIENT, { value: maxSessions, name: 'maxSessions' });
  // (keep-alive has a timer per socket; the other two are checked by a sweep over the sockets)
  const checkIntervalMs = Math.max(10, Math.min(1_000, Math.floor(headersTimeoutMs / 4)));
  return { maxConnections, maxConnectionsPerAddress, headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, checkIntervalMs, maxSessionsPerClient };
}
