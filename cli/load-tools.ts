/**
 * `--tools <module>`: what a tools module may export, in the order looked for: a `createHost`
 * factory (called with the CLI's host options: approval channel, event sink), a default or
 * named `host` (a `createToolHost` result), a default or named `tools` array, or every export
 * that is a tool. A module without `createHost` that exports `apply` (named or as the default
 * export's) is a cordis-style plugin: it is loaded into a `tools` service over a new host
 * (`ptc-runtime/cordis`, imported only then, since cordis is an optional peer dependency).
 * Anything else is a one-line error naming the module.
 */
import { createToolHost, errorText, type Tool, type ToolHost, type ToolHostOptions } from '../tools/index.js';
import { CliError, withoutSecrets } from './errors.js';
import { importModule } from './import-module.js';

function isTool(value: unknown): value is Tool {
  return typeof value === 'object' && value !== null && typeof (value as Tool).execute === 'function' && typeof (value as Tool).parametersJsonSchema === 'object';
}
function isHost(value: unknown): value is ToolHost {
  return typeof value === 'object' && value !== null && typeof (value as ToolHost).call === 'function' && typeof (value as ToolHost).tools === 'function';
}

/**
 * Extracts a host from a module namespace; undefined when it holds no tools. Throws when
 * `createHost` throws or the module's tools cannot be registered (two with one name, say).
 */
export function hostFromModule(mod: Record<string, unknown>, options: ToolHostOptions = {}): ToolHost | undefined {
  if (typeof mod.createHost === 'function') {
    const made: unknown = (mod.createHost as (o: ToolHostOptions) => unknown)(options);
    if (isHost(made)) return made;
  }
  for (const candidate of [mod.host, mod.default]) if (isHost(candidate)) return candidate;
  for (const candidate of [mod.tools, mod.default]) {
    if (Array.isArray(candidate) && candidate.length > 0 && candidate.every(isTool)) {
      const host = createToolHost(options);
      host.register(candidate);
      return host;
    }
  }
  const loose = Object.values(mod).filter(isTool);
  if (loose.length > 0) {
    const host = createToolHost(options);
    host.register(loose);
    return host;
  }
  return undefined;
}

/** `createHost` may be async: its promise's host is the module's. */
async function hostOf(mod: Record<string, unknown>, options: ToolHostOptions): Promise<ToolHost | undefined> {
  if (typeof mod.createHost === 'function') {
    const made: unknown = await (mod.createHost as (o: ToolHostOptions) => unknown)(options);
    if (isHost(made)) return made;
  }
  return hostFromModule({ ...mod, createHost: undefined }, options);
}

function isPluginModule(mod: Record<string, unknown>): boolean {
  const hasApply = (v: unknown) => (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { apply?: unknown }).apply === 'function';
  return typeof mod.createHost !== 'function' && (typeof mod.apply === 'function' || hasApply(mod.default));
}

async function loadPlugin(path: string, mod: Record<string, unknown>, options: ToolHostOptions): Promise<ToolHost> {
  let cordis: typeof import('../cordis/index.js');
  try {
    cordis = await import('../cordis/index.js');
  } catch (err) {
    throw new CliError(`${path} is a cordis plugin, but cordis could not be loaded (npm i cordis@3): ${withoutSecrets(errorText(err))}`);
  }
  try {
    return (await cordis.loadToolPlugin(mod, { hostOptions: options })).host;
  } catch (err) {
    if (cordis.ToolPluginError.isInstance(err)) throw new CliError(`${path}: ${withoutSecrets(err.message)}`);
    throw err;
  }
}

/** Loads `--tools <path>` into a host. Throws {@link CliError} (exit 2) when missing or toolless. */
export async function loadToolsModule(path: string, options: ToolHostOptions = {}): Promise<ToolHost> {
  const mod = await importModule(path);
  if (isPluginModule(mod)) return loadPlugin(path, mod, options);
  let host: ToolHost | undefined;
  try {
    host = await hostOf(mod, options);
  } catch (err) {
    // The module's own failure (createHost threw, two tools share a name): one line naming it,
    // without the secrets its message may quote.
    const what = withoutSecrets(err instanceof Error && err.name !== 'Error' ? `${errorText(err.name)}: ${errorText(err)}` : errorText(err));
    throw new CliError(`${path}: ${typeof mod.createHost === 'function' ? 'createHost failed' : 'its tools could not be registered'}: ${what}`);
  }
  if (!host) throw new CliError(`${path} exports no tools (export a tools array, a host, tools made with defineTool, or a cordis plugin with apply(ctx))`);
  return host;
}
