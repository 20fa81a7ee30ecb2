/**
 * Spill: what a run would send to the model beyond `maxOutputBytes` is kept whole here, outside
 * the model's context, and the value carries a handle (`{ spilled: { id, bytes } }`) plus a head
 * and a tail. Nothing is ever silently cut: the host (or a tool it exposes) reads the full text
 * back by id. Ids are random, so one run cannot guess another's spill. The store is in memory and
 * bounded: past `maxEntries` or `maxTotalBytes`, the oldest entries are evicted first.
 */
import { randomBytes } from 'node:crypto';

/** A handle to spilled text. */
export interface SpillHandle {
  readonly id: string;
  readonly bytes: number;
}

/** Where output over the cap is kept. */
export interface SpillStore {
  /** Keeps `text` whole and returns its handle. */
  put(text: string): SpillHandle;
  /** The full text of a spill, or undefined when unknown or evicted. */
  read(id: string): string | undefined;
  /** Forgets a spill. */
  delete(id: string): boolean;
}

/** Options of {@link createSpillStore}. */
export interface SpillStoreOptions {
  /** Most spills kept (default 100). */
  readonly maxEntries?: number;
  /** Most bytes kept over all spills (default 64 MiB). */
  readonly maxTotalBytes?: number;
}

/** An in-memory spill store with oldest-first eviction. */
export function createSpillStore(options: SpillStoreOptions = {}): SpillStore {
  const maxEntries = options.maxEntries ?? 100;
  const maxTotalBytes = options.maxTotalBytes ?? 64 << 20;
  const entries = new Map<string, { text: string; bytes: number }>();
  let total = 0;
  const evict = () => {
    for (const [id, entry] of entries) {
      if (entries.size <= maxEntries && total <= maxTotalBytes) return;
      entries.delete(id);
      total -= entry.bytes;
    }
  };
  return {
    put(text) {
      const id = `spill_${randomBytes(12).toString('base64url')}`;
      const bytes = Buffer.byteLength(text, 'utf8');
      entries.set(id, { text, bytes });
      total += bytes;
      evict();
      return { id, bytes };
    },
    read(id) {
      return typeof id === 'string' ? entries.get(id)?.text : undefined;
    },
    delete(id) {
      const entry = entries.get(id);
      if (!entry) return false;
      entries.delete(id);
      total -= entry.bytes;
      return true;
    },
  };
}
