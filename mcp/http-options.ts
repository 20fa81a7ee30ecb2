/**
 * Where and how `serveMcpHttp` listens, checked before anything listens: a bad `port`,
 * `hostname`, `path` or `stateful` is an {@link InvalidOptionError} naming the option, not a
 * Node error from `listen` or a server that answers every request with 404.
 *
 * Sessions: `maxSessions` and `sessionIdleMs` are checked too (a NaN cap would refuse every
 * session; an idle time of 0 or past Node's longest timer would close sessions at once).
 *
 * Sessions: approval through elicitation asks the client in the middle of a call, and the
 * client's answer comes back as another request, which must reach the session that asked. So
 * `approval` turns sessions on; `stateful: false` beside it is refused, saying why.
 */
import { isIP } from 'node:net';
import { InvalidOptionError } from '../tools/index.js';

/** The checked listening options, defaults filled in. */
export interface HttpListenOptions {
  readonly hostname: string;
  readonly port: number;
  readonly path: string;
  /** Keep sessions: asked for, or implied by `approval`. */
  readonly stateful: boolean;
  /** Open sessions at most (stateful only); default 100. */
  readonly maxSessions: number;
  /** A session unused this long is closed, ms; default 10 minutes. */
  readonly sessionIdleMs: number;
}

/** Node runs a longer timer at once (after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

const WHERE = 'serveMcpHttp';
// A DNS name: dot-separated labels of letters, digits and inner hyphens (RFC 1123), 253 at most.
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*\\.?$`);

const invalid = (option: string, value: unknown, expected: string) => new InvalidOptionError({ where: WHERE, option, value, expected });

/** Checks the listening options of `serveMcpHttp`; throws an {@link InvalidOptionError} naming the first bad one. */
export function resolveListenOptions(options: {
  readonly port?: unknown;
  readonly hostname?: unknown;
  readonly path?: unknown;
  readonly stateful?: unknown;
  readonly approval?: unknown;
  readonly maxSessions?: unknown;
  readonly sessionIdleMs?: unknown;
}): HttpListenOptions {
  const port = options.port ?? 0;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65_535) throw invalid('port', port, 'a whole number from 0 to 65535 (0 picks a free port)');
  const hostname = options.hostname ?? '127.0.0.1';
  if (typeof hostname !== 'string' || (isIP(hostname) === 0 && !HOST_NAME.test(hostname))) {
    throw invalid('hostname', hostname, 'an IP address or a host name to listen on, without a scheme, port or brackets (127.0.0.1, ::1, 0.0.0.0, localhost)');
  }
  const path = options.path ?? '/mcp';
  if (typeof path !== 'string' || !path.startsWith('/')) throw invalid('path', path, 'a URL path starting with "/" (/mcp)');
  if (/[?#]/.test(path)) throw invalid('path', path, 'a path without a query or fragment ("?" or "#"): requests are matched on their path alone');
  const read = new URL(path, 'http://host.invalid').pathname;
  if (read !== path) throw invalid('path', path, `a path a request can name as it is (a request for it is read as ${JSON.stringify(read.slice(0, 100))}, which would never match)`);
  if (options.stateful !== undefined && typeof options.stateful !== 'boolean') throw invalid('stateful', options.stateful, 'true or false');
  if (options.approval !== undefined && options.stateful === false) {
    throw invalid(
      'stateful',
      false,
      "true or left out when approval is given: approval through elicitation asks the client in the middle of a call, and the client's answer comes back as another HTTP request, which must reach the session that asked (a stateless server keeps none)",
    );
  }
  const maxSessions = options.maxSessions ?? 100;
  if (typeof maxSessions !== 'number' || !Number.isInteger(maxSessions) || maxSessions < 1) throw invalid('maxSessions', maxSessions, 'a whole number of sessions, 1 or more');
  const sessionIdleMs = options.sessionIdleMs ?? 10 * 60_000;
  if (typeof sessionIdleMs !== 'number' || !(sessionIdleMs > 0 && sessionIdleMs <= MAX_TIMER_MS)) {
    throw invalid('sessionIdleMs', sessionIdleMs, `a number of ms above 0 and at most ${MAX_TIMER_MS} (about 24.8 days)`);
  }
  return { hostname, port, path, stateful: options.stateful ?? options.approval !== undefined, maxSessions, sessionIdleMs };
}
