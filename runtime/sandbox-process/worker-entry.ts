/** Finds the script a sandbox process runs (`worker.js`, or `worker.ts` bundled from source). */
import { guestFiles } from '../isolate/guest-source.js';
import { bundleWorkerScript, resolveWorkerScript, type WorkerScript } from '../worker-script.js';

// A bundle carries the guest's files (guest-source.ts), so it is one file that reads no other:
// what the OS sandbox needs, whose root holds no file of this package.
const WORKER: WorkerScript = {
  besideUrl: import.meta.url,
  name: 'worker',
  external: ['isolated-vm', 'esbuild'],
  define: () => ({ PTC_GUEST_SOURCE: JSON.stringify(guestFiles()) }),
};

/** Absolute path of the worker script for `node`; bundles it on first use when running from source. */
export function resolveWorkerEntry(): Promise<string> {
  return resolveWorkerScript(WORKER);
}

/** The worker as one self-contained ES module (what runs under the OS sandbox, which holds no file of this package). */
export function resolveWorkerSource(): Promise<Uint8Array> {
  return bundleWorkerScript(WORKER);
}
