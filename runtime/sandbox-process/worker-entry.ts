/** Finds the script a sandbox process runs (`worker.js`, or `worker.ts` bundled from source). */
import { resolveWorkerScript } from '../worker-script.js';

/** Absolute path of the worker script for `node`; bundles it on first use when running from source. */
export function resolveWorkerEntry(): Promise<string> {
  return resolveWorkerScript({ besideUrl: import.meta.url, name: 'worker', external: ['isolated-vm', 'esbuild'] });
}
