/**
 * An abort controller that also aborts, with the same reason, when a parent signal does. Does
 * what `AbortSignal.any([parent, own])` does for one parent at a fraction of its cost (Node 20:
 * ~15 µs against ~1 µs per run start), and detaches from the parent when the work is over, so a
 * long-lived parent signal does not collect listeners.
 */
export interface LinkedAbort {
  readonly controller: AbortController;
  /** Stops following the parent (call once the work is over). */
  readonly unlink: () => void;
}

/** Links a new controller to `parent`. */
export function linkedAbort(parent: AbortSignal): LinkedAbort {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, unlink: () => undefined };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { controller, unlink: () => parent.removeEventListener('abort', onAbort) };
}
