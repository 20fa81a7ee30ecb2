/** Finds the script a sandbox process runs (`worker.js`, or `worker.ts` bundled from source). */
import { guestFiles } from '../isolate/guest-source.js';
import { resolveWorkerScript } from '../worker-script.js';

/** Absolute path of the worker script for `node`; bundles it on first use when running from source. */
export function resolveWorkerEntry(): Promise<string> {
  // The bundle carries the guest's files (guest-source.ts), so it is one file that reads no other.
  return resolveWorkerScript({ besideUrl: import.meta.url, name: 'worker', external: ['isolated-vm', 'esbuild'], define: () => ({ PTC_GUEST_SOURCE: JSON.stringify(guestFiles()) }) });
}
