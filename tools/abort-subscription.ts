/**
 * One abort listener per signal, fanned out to any number of subscribers. Many calls share one
 * signal (every child of a PTC run, every call of a turn); adding and removing an EventTarget
 * listener per call costs O(listeners) to remove, which grows with the calls in flight. Here a
 * subscription is a Set entry: O(1) to add and to drop.
 */
const subscribers = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `onAbort` once when `signal` aborts; returns the unsubscribe function. */
export function subscribeAbort(signal: AbortSignal, onAbort: () => void): () => void {
  let set = subscribers.get(signal);
  if (!set) {
    const fresh = new Set<() => void>();
    set = fresh;
    subscribers.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        subscribers.delete(signal);
        for (const fn of [...fresh]) fn();
        fresh.clear();
      },
      { once: true },
    );
  }
  const entry = () => onAbort();
  set.add(entry);
  const owner = set;
  return () => void owner.delete(entry);
}
