import type { Disposable } from './types.js';

/** Wraps a cleanup function as an idempotent {@link Disposable}. */
export function disposable(cleanup: () => void): Disposable {
  let done = false;
  const dispose = () => {
    if (done) return;
    done = true;
    cleanup();
  };
  return { dispose, [Symbol.dispose]: dispose };
}
