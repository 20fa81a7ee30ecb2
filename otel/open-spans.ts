import type { Context, Span } from '@opentelemetry/api';

/** An open call's span. */
export interface CallEntry {
  readonly span: Span;
  /** The span's own context: a program's calls start under it, the middleware runs the body in it. */
  readonly context: Context;
  /** Set at `ptc/run-start`: the call is a run, remembered briefly after it ends. */
  isRun: boolean;
}

/**
 * Spans still waiting for their end event, by id. Two rules keep it from leaking or lying:
 * - an entry leaves when its end event comes (`take`), when the sink closes (`drain`), or, past
 *   `max` entries (results that never come), oldest first through `evict`;
 * - two open entries under one id (two hosts on one sink, or two `host.call`s reusing an id)
 *   are kept in arrival order and told apart by order only, as the event log tells them apart.
 */
export class OpenSpans<T> {
  readonly #byId = new Map<string, T[]>();
  #size = 0;

  constructor(
    private readonly max: number,
    private readonly evict: (entry: T) => void,
  ) {}

  /** How many entries are open. */
  get size(): number {
    return this.#size;
  }

  add(id: string, entry: T): void {
    const list = this.#byId.get(id);
    if (list) list.push(entry);
    else this.#byId.set(id, [entry]);
    this.#size++;
    while (this.#size > this.max) {
      const oldest = this.#byId.keys().next().value!;
      this.evict(this.take(oldest)!);
    }
  }

  /** The oldest open entry under `id`, left open. */
  first(id: string): T | undefined {
    return this.#byId.get(id)?.[0];
  }

  /** Removes and returns the oldest open entry under `id`. */
  take(id: string): T | undefined {
    const list = this.#byId.get(id);
    if (!list) return undefined;
    const entry = list.shift()!;
    if (list.length === 0) this.#byId.delete(id);
    this.#size--;
    return entry;
  }

  /** Removes and returns every open entry. */
  drain(): T[] {
    const all = [...this.#byId.values()].flat();
    this.#byId.clear();
    this.#size = 0;
    return all;
  }
}

/** A small map that forgets its oldest entry past `max` (recently ended runs). */
export class RecentMap<V> {
  readonly #map = new Map<string, V>();
  constructor(private readonly max: number) {}

  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value!);
  }

  get(key: string): V | undefined {
    return this.#map.get(key);
  }

  clear(): void {
    this.#map.clear();
  }
}
