/**
 * The connection bounds of `serveMcpHttp`, which hold before anyone has shown a token.
 *
 * Nothing is known of a socket until its request headers are complete, and a client that never
 * completes them costs the server one fd each. Unbounded, one client without the token holding
 * a thousand half-open sockets took the server to its open-file limit, and then every accept
 * failed, the authorized client's included. So:
 * - at most `maxConnections` sockets in all, checked as each is accepted: the process never
 *   holds more than that plus the one being judged (the default is half the fd limit). Past it,
 *   room is made by closing the oldest socket that has not yet carried an accepted request (its
 *   client has shown nothing: no token, or no request at all), else the one idle longest between
 *   requests; a socket with a request in flight never is, and only when all are busy is the
 *   newcomer closed. A newcomer is never refused outright: it may be the authorized client, and
 *   refusing newcomers would shut it out as surely as a full table;
 * - at most `maxConnectionsPerAddress` from one remote address, so that one address cannot push
 *   out another's: past it, that address's oldest not-yet-accepted socket is closed, but only
 *   once it is {@link ADMISSION_GRACE_MS} old (an idle one of an accepted client only when the
 *   address has no other left: its client may be writing its next request on it). Under a flood, sockets are
 *   accepted in batches before any of them is read; a newcomer gets that long to send its
 *   headers (plenty for a real client) before it can be taken for the flood. Younger sockets over
 *   the cap wait for a later check, still bounded by `maxConnections`.
 * An attacker who keeps reopening sockets therefore mostly closes its own older ones, while a
 * newcomer, being the newest, goes last: it is safe while fewer than `maxConnections` sockets
 * arrive between its accept and its headers, and from its own address's cap for the grace.
 * Time bounds (headers, the whole request, idle keep-alive) are Node's own, set by serve-http.ts
 * with a check interval short enough to enforce them promptly.
 */
import type { Socket } from 'node:net';

/** One accepted socket. */
interface Connection {
  readonly socket: Socket;
  readonly address: string;
  /** Has carried a request that passed the checks (Host, Origin, token). */
  trusted: boolean;
  /** Requests being answered on it. */
  inFlight: number;
  /** When it was accepted (the guard's clock). */
  readonly since: number;
}

/** How long a new socket is safe from its own address's cap: time to send its headers. */
export const ADMISSION_GRACE_MS = 1_000;

/** The caps, checked by the caller (http-bounds.ts). */
export interface ConnectionCaps {
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
}

/** Tracks the server's sockets and closes what goes past the caps (see the note above). */
export class ConnectionGuard {
  private readonly all = new Map<Socket, Connection>();
  /** Not yet trusted, oldest first. */
  private readonly untrusted = new Map<Socket, Connection>();
  /** Trusted with nothing in flight, longest idle first. */
  private readonly idle = new Map<Socket, Connection>();
  private readonly byAddress = new Map<string, Set<Connection>>();
  /** Sockets closed to keep within the caps. */
  closed = 0;
  private recheck: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly caps: ConnectionCaps,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Open sockets. */
  get size(): number {
    return this.all.size;
  }

  /** A socket was accepted: counts it, and closes one socket if a cap is passed. */
  admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '(unknown)';
    const connection: Connection = { socket, address, trusted: false, inFlight: 0, since: this.now() };
    this.all.set(socket, connection);
    this.untrusted.set(socket, connection);
    let same = this.byAddress.get(address);
    if (!same) this.byAddress.set(address, (same = new Set()));
    same.add(connection);
    socket.once('close', () => this.forget(connection));
    if (this.all.size > this.caps.maxConnections) this.evict(this.victim(connection));
    if (!socket.destroyed && same.size > this.caps.maxConnectionsPerAddress && !this.enforceAddress(same)) this.scheduleRecheck();
  }

  /** Stops the recheck timer (the server is closing). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.recheck);
  }

  /** A request's headers arrived on `socket`. */
  requestStarted(socket: Socket): void {
    const connection = this.all.get(socket);
    if (!connection) return;
    connection.inFlight++;
    this.idle.delete(socket);
  }

  /** The request passed the Host, Origin and token checks: its socket is the client's. */
  trust(socket: Socket): void {
    const connection = this.all.get(socket);
    if (!connection || connection.trusted) return;
    connection.trusted = true;
    this.untrusted.delete(socket);
  }

  /** A request's answer ended (or its socket closed). */
  requestEnded(socket: Socket): void {
    const connection = this.all.get(socket);
    if (!connection) return;
    connection.inFlight = Math.max(0, connection.inFlight - 1);
    if (connection.inFlight === 0 && connection.trusted) this.idle.set(socket, connection);
  }

  private victim(newcomer: Connection): Connection {
    for (const c of this.untrusted.values()) if (c !== newcomer) return c;
    for (const c of this.idle.values()) return c;
    return newcomer;
  }

  /** Brings one address within its cap as far as the grace allows; false when some remain over. */
  private enforceAddress(same: Set<Connection>): boolean {
    const ripe = this.now() - ADMISSION_GRACE_MS;
    while (same.size > this.caps.maxConnectionsPerAddress) {
      let untrusted: Connection | undefined;
      let idle: Connection | undefined;
      for (const c of same) {
        if (!c.trusted) {
          untrusted = c; // the oldest: accept order
          break;
        }
        if (c.inFlight === 0) idle ??= c;
      }
      // An idle socket of a client that showed its token goes only when no other is left: its
      // client may be writing its next request on it right now.
      const victim = untrusted ? (untrusted.since <= ripe ? untrusted : undefined) : idle;
      if (!victim) return false;
      this.evict(victim);
    }
    return true;
  }

  private scheduleRecheck(): void {
    if (this.recheck !== undefined || this.stopped) return;
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      let over = false;
      for (const same of [...this.byAddress.values()]) if (same.size > this.caps.maxConnectionsPerAddress && !this.enforceAddress(same)) over = true;
      if (over) this.scheduleRecheck();
    }, ADMISSION_GRACE_MS / 4);
    this.recheck.unref();
  }

  private evict(connection: Connection): void {
    this.closed++;
    this.forget(connection);
    connection.socket.destroy();
  }

  private forget(connection: Connection): void {
    const { socket } = connection;
    if (this.all.get(socket) !== connection) return;
    this.all.delete(socket);
    this.untrusted.delete(socket);
    this.idle.delete(socket);
    const same = this.byAddress.get(connection.address);
    same?.delete(connection);
    if (same?.size === 0) this.byAddress.delete(connection.address);
  }
}
