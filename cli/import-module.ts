/**
 * Imports a user's module by path: `.js`/`.mjs` directly, TypeScript (`.ts`, `.mts`) through
 * esbuild. The bundle is written beside the source (then removed) so its bare imports resolve
 * from the user's own node_modules, exactly as the source's would.
 */
import { existsSync, rmSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliError } from './errors.js';

/** Imports the module at `path` (relative to the working directory). Throws {@link CliError}. */
export async function importModule(path: string): Promise<Record<string, unknown>> {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new CliError(`cannot find module ${path}`);
  const ext = extname(abs);
  if (ext === '.ts' || ext === '.mts' || ext === '.tsx') {
    const { build } = await import('esbuild');
    const out = join(dirname(abs), `.${basename(abs, ext)}.${process.pid}.${Date.now()}.ptc.mjs`);
    try {
      await build({ entryPoints: [abs], outfile: out, bundle: true, packages: 'external', format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent' });
      return (await import(pathToFileURL(out).href)) as Record<string, unknown>;
    } catch (err) {
      throw new CliError(`cannot load ${path}: ${firstLine(err)}`);
    } finally {
      rmSync(out, { force: true });
    }
  }
  try {
    return (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    throw new CliError(`cannot load ${path}: ${firstLine(err)}`);
  }
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] ?? text;
}
