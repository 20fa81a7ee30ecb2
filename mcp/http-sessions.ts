/**
 * The sessions of a stateful `serveMcpHttp`, and who may hold how many.
 *
 * A full table used to refuse every new client (503) for as long as the holders kept their
 * sessions alive, which one request per session every few minutes did forever. Now:
 * - one client (its principal when `authenticate` names one; else its remote address, since every
 *   holder of the one token carries the same token) holds at most `maxSessionsPerClient` sessions, the server at most
 *   `maxSessions`;
 * - a new session past either cap takes the place of the least recently used *idle* session (no
 *   POST being answered; an open GET stream alone does not count as work), of that client for
 *   the per-client cap, of anyone for the total. Touching sessions only reorders them: some
 *   session is always the least recently used, so a client cannot keep every slot;
 * - only when every session in reach is busy is the newcomer refused (503);
 * - a slot is taken when the `initialize` is accepted, before it is answered, so concurrent
 *   `initialize`s cannot overshoot the caps; one that fails gives its slot back.
 * A closed session's client gets 404 for its id, which MCP clients answer by starting anew.
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** One session. */
export interface SessionEntry {
  readonly transport: StreamableHTTPServerTransport;
  readonly client: string;
  /** POST requests being answered. */
  busy: number;
  lastUsed: number;
}

/** Sessions by id, least recently used first. */
export class SessionTable {
  private readonly sessions = new Map<string, SessionEntry>();

  constructor(
    private readonly caps: { readonly maxSessions: number; readonly maxSessionsPerClient: number },
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The session, as it is (not marked used); undefined when there is none. */
  peek(id: string): SessionEntry | undefined {
    return this.sessions.get(id);
  }

  /** The session, marked as just used; undefined when there is none. */
  use(id: string): SessionEntry | undefined {
    const entry = this.sessions.get(id);
    if (!entry) return undefined;
    this.sessions.delete(id);
    this.sessions.set(id, entry);
    entry.lastUsed = this.now();
    return entry;
  }

  /** A POST of the session started (true) or ended (false). */
  work(entry: SessionEntry, started: boolean): void {
    entry.busy = Math.max(0, entry.busy + (started ? 1 : -1));
    entry.lastUsed = this.now();
  }

  /**
   * Takes a slot for a new session of `client`, closing the least recently used idle session
   * where a cap is reached. Returns the refusal text when every session in reach is busy.
   */
  reserve(id: string, client: string, transport: StreamableHTTPServerTransport): string | undefined {
    const own = [...this.sessions.values()].filter((s) => s.client === client);
    if (own.length >= this.caps.maxSessionsPerClient) {
      const victim = own.find((s) => s.busy === 0);
      if (!victim) return `too many sessions for this client (${this.caps.maxSessionsPerClient}), all busy; try again later`;
      this.evict(victim);
    }
    if (this.sessions.size >= this.caps.maxSessions) {
      const victim = [...this.sessions.values()].find((s) => s.busy === 0);
      if (!victim) return `too many sessions (${this.caps.maxSessions}), all busy; try again later`;
      this.evict(victim);
    }
    // Busy until its initialize is answered: a session being set up is never the one evicted.
    this.sessions.set(id, { transport, client, busy: 1, lastUsed: this.now() });
    return undefined;
  }

  /** Forgets a session (closed, or its initialize failed). */
  delete(id: string): void {
    this.sessions.delete(id);
  }

  /** Sessions with nothing in flight unused for longer than `ms`. */
  idleLongerThan(ms: number): SessionEntry[] {
    const now = this.now();
    return [...this.sessions.values()].filter((s) => s.busy === 0 && now - s.lastUsed > ms);
  }

  /** Every session. */
  all(): SessionEntry[] {
    return [...this.sessions.values()];
  }

  private evict(entry: SessionEntry): void {
    for (const [id, s] of this.sessions) if (s === entry) this.sessions.delete(id);
    void entry.transport.close().catch(() => {});
  }
}
