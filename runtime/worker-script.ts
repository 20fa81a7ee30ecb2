/**
 * Finds a script that runs on its own (a sandbox process's worker, the type-check thread). Built
 * (`dist/`, as after `npm ci`, whose `prepare` runs the build): the compiled `.js` beside the
 * module that asks. From TypeScript sources (vitest, tsx), where plain `node` cannot load a
 * `.ts` file: it is bundled once with esbuild into `node_modules/.cache/ptc-runtime/` of this
 * package (named by a hash of its content, written atomically), where Node still resolves the
 * external packages from the package's `node_modules`.
 *
 * A worker under the OS sandbox sees no file of this package: it gets its script as one
 * self-contained file ({@link bundleWorkerScript}), the source bundle above or, when built, the
 * compiled script bundled in memory (the compiled `.js` imports its siblings).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where a script is and how to bundle it from source. */
export interface WorkerScript {
  /** `import.meta.url` of a module in the script's folder. */
  readonly besideUrl: string;
  /** The script's file name without extension (`worker`). */
  readonly name: string;
  /** Packages left for Node to load (native addons, large CommonJS packages). */
  readonly external: readonly string[];
  /**
   * Globals a bundle gets as constants (esbuild `define`: name -> JSON text), such as the text of
   * files its modules read beside themselves when built. Called only when bundling.
   */
  readonly define?: () => Readonly<Record<string, string>>;
}

const located = new Map<string, Promise<string>>();

/** Absolute path of the script for `node`; bundles it on first use when running from source. */
export function resolveWorkerScript(script: WorkerScript): Promise<string> {
  const key = `${script.besideUrl}#${script.name}`;
  let found = located.get(key);
  if (found === undefined) {
    found = locate(script).catch((err: unknown) => {
      located.delete(key);
      throw err;
    });
    located.set(key, found);
  }
  return found;
}

const bundled = new Map<string, Promise<Uint8Array>>();

/**
 * The script as one ES module file that needs nothing beside it but its external packages
 * (resolved from `node_modules` next to wherever it is placed): what a sandbox process runs
 * under the OS sandbox. Cached per process.
 */
export function bundleWorkerScript(script: WorkerScript): Promise<Uint8Array> {
  const key = `${script.besideUrl}#${script.name}`;
  let found = bundled.get(key);
  if (found === undefined) {
    found = bundleOnce(script).catch((err: unknown) => {
      bundled.delete(key);
      throw err;
    });
    bundled.set(key, found);
  }
  return found;
}

async function bundleOnce(script: WorkerScript): Promise<Uint8Array> {
  const here = fileURLToPath(script.besideUrl);
  const built = join(dirname(here), `${script.name}.js`);
  if (here.endsWith('.js') && existsSync(built)) return bundle(built, script);
  return readFileSync(await resolveWorkerScript(script));
}

async function locate(script: WorkerScript): Promise<string> {
  const here = fileURLToPath(script.besideUrl);
  const dir = dirname(here);
  if (here.endsWith('.js')) {
    const built = join(dir, `${script.name}.js`);
    if (existsSync(built)) return built;
  }
  const source = join(dir, `${script.name}.ts`);
  if (!existsSync(source)) throw new Error(`${script.name} script not found next to ${here}`);
  const text = await bundle(source, script);
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const cacheDir = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'node_modules', '.cache', 'ptc-runtime');
  const file = join(cacheDir, `${script.name}-${hash}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(cacheDir, { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, text);
    renameSync(temp, file);
  }
  return file;
}

/** `entry` and everything it imports but the script's `external` packages, as one ES module. */
async function bundle(entry: string, script: WorkerScript): Promise<Uint8Array> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: [...script.external],
    ...(script.define ? { define: { ...script.define() } } : {}),
    // CommonJS modules in the bundle (codegen's re-export of TypeScript) require their externals.
    banner: { js: "import { createRequire as __ptcCreateRequire } from 'node:module'; const require = __ptcCreateRequire(import.meta.url);" },
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.contents;
}
