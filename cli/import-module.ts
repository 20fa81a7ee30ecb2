/**
 * Imports a user's module by path: `.js`/`.mjs` directly, TypeScript (`.ts`, `.mts`) through
 * esbuild. The bundle is written beside the source (then removed) so its bare imports resolve
 * from the user's own node_modules, exactly as the source's would.
 */
import { existsSync, rmSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliError, withoutSecrets } from './errors.js';
import { errorText } from '../tools/index.js';

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
      throw new CliError(`cannot load ${path}: ${describeLoadError(err)}`);
    } finally {
      rmSync(out, { force: true });
    }
  }
  try {
    return (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    // Node 20 reports an ES module's syntax error without its position: esbuild's parser has it.
    const located = await locateSyntaxError(abs);
    if (located !== undefined) throw new CliError(`cannot load ${path}: ${located}`);
    throw new CliError(`cannot load ${path}: ${describeLoadError(err)}`);
  }
}

async function locateSyntaxError(abs: string): Promise<string | undefined> {
  try {
    const { build } = await import('esbuild');
    await build({ entryPoints: [abs], write: false, bundle: false, format: 'esm', platform: 'node', logLevel: 'silent' });
    return undefined;
  } catch (err) {
    return (err as { errors?: unknown } | null)?.errors !== undefined ? describeLoadError(err) : undefined;
  }
}

interface EsbuildMessage {
  readonly text?: unknown;
  readonly location?: { readonly file?: unknown; readonly line?: unknown; readonly column?: unknown } | null;
}

/** esbuild names files relative to the working directory: outside it, the absolute path reads better. */
function displayPath(file: string): string {
  return file.startsWith('..') ? resolve(file) : file;
}

/**
 * The reason a module did not load: esbuild's first error with where it is, or the error's first
 * line; secrets in it hidden (a module's error may quote a token or a password).
 */
function describeLoadError(err: unknown): string {
  return withoutSecrets(loadErrorText(err));
}

function loadErrorText(err: unknown): string {
  const errors = (err as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors) && errors.length > 0) {
    const first = errors[0] as EsbuildMessage;
    const at = first.location;
    const where = at && typeof at.file === 'string' ? `${displayPath(at.file)}:${String(at.line)}:${Number(at.column) + 1}: ` : '';
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more error${errors.length > 2 ? 's' : ''})` : '';
    return `${where}${String(first.text)}${more}`;
  }
  const text = errorText(err);
  return text.split('\n')[0] ?? text;
}
