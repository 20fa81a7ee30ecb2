/**
 * Finds the script a sandbox process runs. Built (`dist/`, as after `npm ci`, whose `prepare`
 * runs the build): the compiled `worker.js` beside this module. From TypeScript sources (vitest,
 * tsx), where plain `node` cannot load `worker.ts`: the worker is bundled once with esbuild into
 * `node_modules/.cache/ptc-runtime/` of this package (named by a hash of its content, written
 * atomically), where Node still resolves `isolated-vm` from the package's `node_modules`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: Promise<string> | undefined;

/** Absolute path of the worker script for `node`; bundles it on first use when running from source. */
export function resolveWorkerEntry(): Promise<string> {
  cached ??= locate().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function locate(): Promise<string> {
  const here = fileURLToPath(import.meta.url);
  const dir = dirname(here);
  if (here.endsWith('.js')) {
    const built = join(dir, 'worker.js');
    if (existsSync(built)) return built;
  }
  const source = join(dir, 'worker.ts');
  if (!existsSync(source)) throw new Error(`sandbox worker not found next to ${here}`);
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['isolated-vm', 'esbuild'],
    write: false,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]!.contents;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const cacheDir = join(resolve(dir, '..', '..'), 'node_modules', '.cache', 'ptc-runtime');
  const file = join(cacheDir, `sandbox-worker-${hash}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(cacheDir, { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, text);
    renameSync(temp, file);
  }
  return file;
}
