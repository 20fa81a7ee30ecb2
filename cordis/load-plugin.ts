/**
 * Loading a cordis-style tool plugin module outside a cordis application (the CLI's `--tools`,
 * tests, scripts): a fresh cordis context with the `tools` service over a host, the plugin
 * loaded into it, and a check that it actually applied. Cordis reports a throwing `apply` as an
 * `internal/error` event and carries on; here it is an error naming the plugin.
 */
import { Context } from 'cordis';
import { errorText, PtcError, type ToolHost, type ToolHostOptions } from '../tools/index.js';
import { ToolsService } from './tools-service.js';

/** A module in the cordis plugin shape: `apply(ctx, config)`, optionally `name` and `inject`. */
export interface CordisPluginModule {
  readonly name?: string;
  readonly inject?: readonly string[] | Record<string, unknown>;
  apply(ctx: Context, config?: unknown): unknown;
}

/** A plugin could not be loaded: it threw, or it waits for a service that is not there. */
export class ToolPluginError extends PtcError {
  override readonly name = 'ToolPluginError';
  constructor(
    readonly plugin: string,
    readonly problem: string,
  ) {
    super(`Cannot load tool plugin "${plugin}": ${problem}`);
  }
}

/** The plugin object in a module namespace (named exports, or a default export), if any. */
export function isCordisPlugin(value: unknown): value is CordisPluginModule {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { apply?: unknown }).apply === 'function';
}

/** A cordis context serving `tools` over `host` (a new host when omitted). */
export function createToolsContext(options: { readonly host?: ToolHost; readonly hostOptions?: ToolHostOptions } = {}): { ctx: Context; host: ToolHost } {
  const ctx = new Context();
  ctx.plugin(ToolsService, { ...(options.host ? { host: options.host } : {}), ...(options.hostOptions ? { hostOptions: options.hostOptions } : {}) });
  return { ctx, host: ctx.tools.host };
}

/** A loaded plugin: its context and host; `dispose()` unloads it (its tools and hooks go). */
export interface LoadedToolPlugin {
  readonly ctx: Context;
  readonly host: ToolHost;
  dispose(): void;
}

/**
 * Loads a plugin module (its namespace or its default export) into a new context and waits for
 * `apply` to finish. Throws {@link ToolPluginError} naming the plugin when it is not a plugin,
 * throws, or is left waiting for a service.
 */
export async function loadToolPlugin(
  mod: Record<string, unknown>,
  options: { readonly host?: ToolHost; readonly hostOptions?: ToolHostOptions; readonly config?: unknown } = {},
): Promise<LoadedToolPlugin> {
  const plugin = isCordisPlugin(mod) ? mod : isCordisPlugin(mod.default) ? mod.default : undefined;
  const label = typeof plugin?.name === 'string' && plugin.name ? plugin.name : typeof mod.name === 'string' ? mod.name : 'anonymous';
  if (!plugin) throw new ToolPluginError(label, 'the module exports no apply(ctx) function');
  const { ctx, host } = createToolsContext(options);
  const errors: unknown[] = [];
  ctx.on('internal/error', (err: unknown) => void errors.push(err));
  // The plugin's own failure is caught here, not by cordis (whose logger would print it to
  // stdout, the CLI's data channel); it is thrown below as a ToolPluginError instead.
  const apply = async (pluginCtx: Context, config: unknown) => {
    try {
      await plugin.apply(pluginCtx, config);
    } catch (err) {
      errors.push(err);
    }
  };
  // A module namespace is frozen and exotic; cordis keys plugins by identity, so hand it a plain object.
  const fork = ctx.plugin({ name: label, inject: plugin.inject, apply } as never, options.config);
  await ctx.events.flush();
  if (errors.length > 0) {
    fork.dispose();
    const first = errors[0];
    throw new ToolPluginError(label, `apply threw: ${errorText(first)}`);
  }
  if (!fork.runtime.isActive && !fork.isActive) {
    const missing = Object.keys(fork.runtime.inject).filter((name) => fork.runtime.inject[name]?.required && ctx.get(name) == null);
    fork.dispose();
    throw new ToolPluginError(label, `it waits for services that are not provided here: ${missing.join(', ') || '(unknown)'}`);
  }
  return { ctx, host, dispose: () => void fork.dispose() };
}
