/**
 * `tools`: a cordis 3 service backed by a ptc-runtime tool host, so tool plugins written in the
 * cordis style load unchanged apart from the import path:
 *
 * ```ts
 * export const name = 'my-tool';
 * export const inject = ['tools'];
 * export function apply(ctx) { ctx.tools.register(defineTool({ ... })) }
 * ```
 *
 * Why this holds: cordis hands each plugin a context of its own, and a service method reached
 * through `ctx.tools` sees *that* context as `this.ctx` (cordis' traceable services). Every
 * registration (tools, the four hook kinds, event sinks) is made inside `this.ctx.effect(...)`,
 * so it becomes a side effect of the calling plugin's scope: unloading the plugin
 * (`fork.dispose()`, `ctx.registry.delete(plugin)`) unregisters its tools and removes its hooks,
 * and nothing else. A plugin can still dispose one registration early with what it returned.
 * Unloading the service itself closes the host's background jobs only when the service created
 * the host; a host passed in belongs to its owner.
 */
import { Service, type Context } from 'cordis';
import {
  createToolHost,
  InvalidOptionError,
  type Disposable,
  type EventSink,
  type ExecuteMiddleware,
  type PostExecuteListener,
  type PreExecuteListener,
  type Tool,
  type ToolGuard,
  type ToolHooks,
  type ToolHost,
  type ToolHostOptions,
} from '../tools/index.js';

declare module 'cordis' {
  interface Context {
    /** The tool host, as a cordis service (`inject = ['tools']`). */
    tools: ToolsService;
  }
}

/** Config of the service: an existing host, or options for a new one. */
export interface ToolsServiceConfig {
  /** The host to serve; omitted means a new host made from `hostOptions`. */
  readonly host?: ToolHost;
  /** Options of the host the service creates when no `host` is given. */
  readonly hostOptions?: ToolHostOptions;
}

/**
 * A registration that a cordis plugin can undo: callable like the dispose functions cordis
 * returns (`ctx.on(...)`), and a ptc-runtime {@link Disposable} too.
 */
export type ScopedDisposable = (() => void) & Disposable;

function scoped(ctx: Context, register: () => Disposable): ScopedDisposable {
  const dispose = ctx.effect(() => {
    const registration = register();
    return () => registration.dispose();
  });
  return Object.assign(() => dispose(), { dispose: () => dispose(), [Symbol.dispose]: () => dispose() });
}

/** The `tools` service. Load it with `ctx.plugin(ToolsService, { host })`. */
export class ToolsService extends Service {
  /** The host behind the service (shared by every plugin). */
  readonly host: ToolHost;
  private readonly ownsHost: boolean;

  constructor(ctx: Context, config: ToolsServiceConfig = {}) {
    super(ctx, 'tools', true);
    const given = config?.host;
    if (given !== undefined && (typeof given !== 'object' || given === null || typeof given.register !== 'function' || typeof given.call !== 'function')) {
      throw new InvalidOptionError({ where: 'ToolsService', option: 'config.host', value: given, expected: 'a tool host made by createToolHost()' });
    }
    this.host = given ?? createToolHost(config?.hostOptions);
    this.ownsHost = given === undefined;
  }

  /** Called by cordis when the service is unloaded. */
  protected override stop(): void {
    if (this.ownsHost) this.host.close();
  }

  /** Registers a tool or tools for the calling plugin; unloading the plugin unregisters them. */
  register(tool: Tool | readonly Tool[]): ScopedDisposable {
    return scoped(this.ctx, () => this.host.register(tool));
  }

  /** Hook registration for the calling plugin; each hook is removed when the plugin unloads. */
  get hooks(): { readonly [K in keyof ToolHooks]: (fn: Parameters<ToolHooks[K]>[0]) => ScopedDisposable } {
    const ctx = this.ctx;
    const hooks = this.host.hooks;
    return Object.freeze({
      preExecute: (fn: PreExecuteListener) => scoped(ctx, () => hooks.preExecute(fn)),
      guard: (fn: ToolGuard) => scoped(ctx, () => hooks.guard(fn)),
      execute: (fn: ExecuteMiddleware) => scoped(ctx, () => hooks.execute(fn)),
      postExecute: (fn: PostExecuteListener) => scoped(ctx, () => hooks.postExecute(fn)),
    });
  }

  /** Adds an event sink for the calling plugin; removed when the plugin unloads. */
  onEvent(sink: EventSink): ScopedDisposable {
    return scoped(this.ctx, () => this.host.onEvent(sink));
  }

  /** Runs one call through the host's pipeline (see `ToolHost.call`). */
  call(...args: Parameters<ToolHost['call']>): ReturnType<ToolHost['call']> {
    return this.host.call(...args);
  }

  /** Runs a model turn (see `ToolHost.runTurn`). */
  runTurn(...args: Parameters<ToolHost['runTurn']>): ReturnType<ToolHost['runTurn']> {
    return this.host.runTurn(...args);
  }

  /** Model-facing schemas of the registered tools. */
  schemas(): ReturnType<ToolHost['schemas']> {
    return this.host.schemas();
  }

  /** The registered tools. */
  list(): Tool[] {
    return this.host.tools();
  }

  /** The tool registered under `name`. */
  get(name: string): Tool | undefined {
    return this.host.get(name);
  }
}
