/**
 * A queue served fairly across groups (the type-check thread's agents). The rule:
 * - each group's items are served in the order they came;
 * - the next item is the head of the group served least recently (a group never served, or
 *   forgotten, first; ties: the group whose head came first). A group is remembered while it has
 *   an item queued or one being served, so an agent whose check is running waits behind every
 *   other agent's first check, and four slow programs of one agent cannot delay another's more
 *   than one of them;
 * - a group may hold at most `cap` queued items (the one being served not counted): more are
 *   refused, not queued.
 * Picking is O(groups), fine for the handful of agents one host serves at once.
 */

interface Group<T> {
  readonly items: { readonly item: T; readonly seq: number }[];
  lastServed: number;
  serving: number;
}

/** Items in groups, served round-robin by group (see the file note). */
export class FairQueue<T> {
  private readonly groups = new Map<string, Group<T>>();
  private seq = 0;
  private served = 0;

  /** Queues `item` in `group`; false (not queued) when the group already holds `cap` queued items. */
  push(group: string, item: T, cap = Number.POSITIVE_INFINITY): boolean {
    let g = this.groups.get(group);
    if (g !== undefined && g.items.length >= cap) return false;
    if (g === undefined) {
      g = { items: [], lastServed: 0, serving: 0 };
      this.groups.set(group, g);
    }
    g.items.push({ item, seq: ++this.seq });
    return true;
  }

  /** Items queued in `group`. */
  queued(group: string): number {
    return this.groups.get(group)?.items.length ?? 0;
  }

  /** Whether nothing is queued. */
  get empty(): boolean {
    for (const g of this.groups.values()) if (g.items.length > 0) return false;
    return true;
  }

  /** The next item to serve, by the rule; its group counts it as being served until {@link done}. */
  shift(): { readonly group: string; readonly item: T } | undefined {
    let best: [string, Group<T>] | undefined;
    for (const entry of this.groups) {
      const g = entry[1];
      if (g.items.length === 0) continue;
      if (best === undefined) best = entry;
      else {
        const b = best[1];
        if (g.lastServed < b.lastServed || (g.lastServed === b.lastServed && g.items[0]!.seq < b.items[0]!.seq)) best = entry;
      }
    }
    if (best === undefined) return undefined;
    const [group, g] = best;
    g.lastServed = ++this.served;
    g.serving++;
    return { group, item: g.items.shift()!.item };
  }

  /** An item of `group` handed out by {@link shift} is finished. */
  done(group: string): void {
    const g = this.groups.get(group);
    if (g === undefined) return;
    if (g.serving > 0) g.serving--;
    this.forgetIfIdle(group, g);
  }

  /** Removes `item` if still queued; whether it was. */
  remove(item: T): boolean {
    for (const [group, g] of this.groups) {
      const i = g.items.findIndex((e) => e.item === item);
      if (i < 0) continue;
      g.items.splice(i, 1);
      this.forgetIfIdle(group, g);
      return true;
    }
    return false;
  }

  /** Whether a queued item passes `test`. */
  some(test: (item: T) => boolean): boolean {
    for (const g of this.groups.values()) if (g.items.some((e) => test(e.item))) return true;
    return false;
  }

  /** Removes and returns every queued item that `test` accepts (all of them without a test). */
  take(test: (item: T) => boolean = () => true): T[] {
    const out: T[] = [];
    for (const [group, g] of this.groups) {
      for (let i = 0; i < g.items.length; ) {
        if (test(g.items[i]!.item)) out.push(g.items.splice(i, 1)[0]!.item);
        else i++;
      }
      this.forgetIfIdle(group, g);
    }
    return out;
  }

  private forgetIfIdle(group: string, g: Group<T>): void {
    if (g.items.length === 0 && g.serving === 0) this.groups.delete(group);
  }
}
