/**
 * Spill: what a run would send to the model beyond `maxOutputBytes` is kept whole here, outside
 * the model's context, and the value carries a handle (`{ spilled: { id, bytes } }`) plus a head
 * and a tail. Nothing is ever silently cut: the model pages through it with `spill_read`
 * (spill-read-tool.ts), the host reads it whole with `read`.
 *
 * - Ownership: a spill belongs to the agent whose run_code call made it (or to "no agent").
 *   `get` returns the owner with the text; spill_read compares it with the caller's agent and
 *   answers a mismatch exactly like an unknown id. Ids are random (96 bits), so one run cannot
 *   guess another's spill either.
 * - Retention: a spill is kept `ttlMs` after it was made (default one hour), and the store is
 *   bounded: past `maxEntries` or `maxTotalBytes` the oldest spills are evicted first. An
 *   expired or evicted spill is gone for everyone, as if it never existed. The clock is
 *   injectable (`now`), so tests move time instead of waiting.
 * - The store is in memory and per process (per replica behind a load balancer): a spill made on
 *   one replica is unknown on another.
 */
import { randomBytes } from 'node:crypto';
import { InvalidOptionError, type AgentRef } from '../../tools/index.js';

/** A handle to spilled text. */
export interface SpillHandle {
  readonly id: string;
  readonly bytes: number;
}

/** A kept spill, as {@link SpillStore.get} returns it. */
export interface SpillEntry {
  /** The spilled JSON text, whole. */
  readonly text: string;
  /** Its size in UTF-8 bytes. */
  readonly bytes: number;
  /** The agent whose run made it (absent: the run had no agent). */
  readonly owner?: AgentRef;
  /** When it was made (the store's clock, ms). */
  readonly createdAt: number;
  /** When it stops being kept (the store's clock, ms). */
  readonly expiresAt: number;
}

/** Where output over the cap is kept. */
export interface SpillStore {
  /** Keeps `text` whole for `owner` (the agent of the run that made it) and returns its handle. */
  put(text: string, options?: { readonly owner?: AgentRef }): SpillHandle;
  /** The kept spill with its owner, or undefined when unknown, expired or evicted. */
  get(id: string): SpillEntry | undefined;
  /** The full text of a spill (for the host: no owner check), or undefined when unknown, expired or evicted. */
  read(id: string): string | undefined;
  /** Forgets a spill. */
  delete(id: string): boolean;
}

/**
 * A spill store shared by replicas (`ptc-runtime/redis`): asynchronous, read by byte range, and
 * scoped to the agent that made a spill (a read for another agent answers like an unknown id).
 * `createRunCodeTool({ spills })` takes it or the in-memory {@link SpillStore}; run_code chooses
 * the ids (`spill_` and 96 random bits) and writes a run's spills before it answers.
 */
export interface SharedSpillStore {
  readonly kind: 'shared';
  /** Keeps `text` whole under `id` for `owner` (the agent of the run that made it). */
  put(id: string, text: string, options?: { readonly owner?: AgentRef }): Promise<SpillHandle>;
  /**
   * Bytes `start` to `end` (exclusive, clamped to the spill) of the spill's UTF-8 text, with its
   * total size; undefined when unknown, expired, or made for another agent than `agent`.
   */
  readRange(id: string, range: { readonly start: number; readonly end: number; readonly agent: AgentRef | undefined }): Promise<{ readonly bytes: number; readonly chunk: Buffer } | undefined>;
  /** The full text (for the host: no owner check), or undefined. */
  read(id: string): Promise<string | undefined>;
  /** Forgets a spill. */
  delete(id: string): Promise<boolean>;
}

/** Either kind of spill store run_code takes. */
export type AnySpillStore = SpillStore | SharedSpillStore;

/** True for a {@link SharedSpillStore}. */
export const isSharedSpillStore = (store: AnySpillStore): store is SharedSpillStore => (store as SharedSpillStore).kind === 'shared';

/** A new spill id: `spill_` and 96 random bits. */
export const newSpillId = (): string => `spill_${randomBytes(12).toString('base64url')}`;

/**
 * A synchronous store for one report that records what was spilled, so the spills can then be
 * written to a shared store (run_code's cap decides synchronously what to spill).
 */
export function recordingSpillStore(): SpillStore & { readonly kept: ReadonlyMap<string, { text: string; owner?: AgentRef }> } {
  const kept = new Map<string, { text: string; owner?: AgentRef }>();
  return {
    kept,
    put(text, options = {}) {
      const id = newSpillId();
      kept.set(id, { text, ...(options.owner ? { owner: options.owner } : {}) });
      return { id, bytes: Buffer.byteLength(text, 'utf8') };
    },
    get: () => undefined,
    read: (id) => kept.get(id)?.text,
    delete: (id) => kept.delete(id),
  };
}

/** Options of {@link createSpillStore}. */
export interface SpillStoreOptions {
  /** Most spills kept (default 100). */
  readonly maxEntries?: number;
  /** Most bytes kept over all spills (default 64 MiB). */
  readonly maxTotalBytes?: number;
  /** How long a spill is kept after it was made, ms (default 3,600,000: one hour). */
  readonly ttlMs?: number;
  /** The clock (default `Date.now`); inject it in tests. */
  readonly now?: () => number;
}

/** Defaults of {@link createSpillStore}. */
export const DEFAULT_SPILL_RETENTION = Object.freeze({ maxEntries: 100, maxTotalBytes: 64 << 20, ttlMs: 60 * 60_000 });

const positive = (option: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidOptionError({ where: 'createSpillStore', option, value, expected: 'a whole number of at least 1' });
  }
  return value;
};

/** An in-memory spill store with a time to live and oldest-first eviction. */
export function createSpillStore(options: SpillStoreOptions = {}): SpillStore {
  const maxEntries = positive('maxEntries', options.maxEntries, DEFAULT_SPILL_RETENTION.maxEntries);
  const maxTotalBytes = positive('maxTotalBytes', options.maxTotalBytes, DEFAULT_SPILL_RETENTION.maxTotalBytes);
  const ttlMs = positive('ttlMs', options.ttlMs, DEFAULT_SPILL_RETENTION.ttlMs);
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') throw new InvalidOptionError({ where: 'createSpillStore', option: 'now', value: now, expected: 'a function returning ms' });
  // Insertion order is creation order, and every spill lives ttlMs: the oldest expire first.
  const entries = new Map<string, SpillEntry>();
  let total = 0;
  const drop = (id: string, entry: SpillEntry) => {
    entries.delete(id);
    total -= entry.bytes;
  };
  const sweep = () => {
    const at = now();
    for (const [id, entry] of entries) {
      if (entry.expiresAt > at && entries.size <= maxEntries && total <= maxTotalBytes) return;
      drop(id, entry);
    }
  };
  const live = (id: unknown): SpillEntry | undefined => {
    if (typeof id !== 'string') return undefined;
    sweep();
    return entries.get(id);
  };
  return {
    put(text, putOptions = {}) {
      const id = newSpillId();
      const bytes = Buffer.byteLength(text, 'utf8');
      const createdAt = now();
      const owner = putOptions.owner;
      const entry: SpillEntry = Object.freeze({
        text,
        bytes,
        ...(owner ? { owner: Object.freeze({ ...owner }) } : {}),
        createdAt,
        expiresAt: createdAt + ttlMs,
      });
      entries.set(id, entry);
      total += bytes;
      sweep();
      return { id, bytes };
    },
    get: live,
    read: (id) => live(id)?.text,
    delete(id) {
      const entry = entries.get(id);
      if (!entry) return false;
      drop(id, entry);
      return true;
    },
  };
}
