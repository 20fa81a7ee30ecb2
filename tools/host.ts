/**
 * `createToolHost`: the registry, the hooks, the event sink and the two ways to run calls
 * (`call` for one, `runTurn` for a model turn). PTC runs, MCP adapters and the CLI all go
 * through the same host, so one set of listeners and guards governs every call shape.
 */
import { disposable } from './disposable.js';
import { errorText, InvalidOptionError } from './errors.js';
import type { EventSink } from './events.js';
import { executionModeOf } from './execution-mode.js';
import { HookLists } from './hooks.js';
import { createJobManager } from './jobs/job-manager.js';
import type { JobManagerOptions } from './jobs/job-types.js';
import { isJobStore, type JobStore } from './jobs/job-store.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS, type ApprovalChannel } from './approval.js';
import { runPipeline, type PipelineEnv } from './pipeline.js';
import { ToolRegistry } from './registry.js';
import { createEventDispatch } from './event-dispatch.js';
import { preflightCall } from './preflight.js';
import { runTurn } from './run-turn.js';
import type { Tool, ToolHost } from './tool-types.js';
import type { Disposable } from './types.js';

/**
 * A tool may carry a function under this key; `host.register` calls it with the host. Tools
 * that describe other tools (run_code lists the declarations of its siblings) use it to know
 * their host before their first call. It may return a {@link Disposable} (run_code registers
 * its companion `spill_read` this way): disposing the registration disposes it too.
 */
export const ON_REGISTER: unique symbol = Symbol.for('ptc-runtime.onRegister') as never;

/** Options of {@link createToolHost}. */
export interface ToolHostOptions {
  /** Answers `ask` decisions. Without one, every ask is denied as unavailable. */
  readonly approval?: ApprovalChannel;
  /** How long an approval may take before the call is denied (default 10 minutes). */
  readonly approvalTimeoutMs?: number;
  /** Size of the rolling pool for parallel calls in `runTurn` (default 8). */
  readonly maxConcurrency?: number;
  /** Receives every event, in order. A sink that throws is reported, never breaks a call. */
  readonly onEvent?: EventSink;
  /** Clock for event times and durations (default `Date.now`); inject it in tests. */
  readonly now?: () => number;
  /**
   * Background jobs: their limits (output ring size, running and retained jobs per owner) and,
   * past one machine, the store replicas share them through (`{ store, ...limits }`, or the
   * store alone: `createToolHost({ jobs: stores.jobs })`).
   */
  readonly jobs?: JobManagerOptions | JobStore;
}

/** The longest delay a Node timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Creates a tool host. */
export function createToolHost(options: ToolHostOptions = {}): ToolHost {
  const registry = new ToolRegistry();
  const hooks = new HookLists();
  const now = options.now ?? Date.now;
  const maxConcurrency = options.maxConcurrency ?? 8;
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new InvalidOptionError({ where: 'createToolHost', option: 'maxConcurrency', value: options.maxConcurrency, expected: 'a positive integer' });
  }
  const approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  // Node runs a longer timer at once (after 1 ms): every ask would time out.
  if (typeof approvalTimeoutMs !== 'number' || !(approvalTimeoutMs > 0 && approvalTimeoutMs <= MAX_TIMER_MS)) {
    throw new InvalidOptionError({ where: 'createToolHost', option: 'approvalTimeoutMs', value: options.approvalTimeoutMs, expected: `a number of ms above 0 and at most ${MAX_TIMER_MS} (about 24.8 days)` });
  }
  let sinks: readonly EventSink[] = options.onEvent ? [options.onEvent] : [];
  const { emit, emitDraft } = createEventDispatch(now, () => sinks);

  const jobs = createJobManager({ emit, now }, isJobStore(options.jobs) ? { store: options.jobs } : options.jobs);

  const host: ToolHost = {
    register(tool) {
      const registration = registry.register(tool);
      const bound: Disposable[] = [];
      for (const t of Array.isArray(tool) ? (tool as readonly Tool[]) : [tool as Tool]) {
        const bind = (t as { [ON_REGISTER]?: unknown })[ON_REGISTER];
        if (typeof bind !== 'function') continue;
        try {
          const returned = (bind as (host: ToolHost) => unknown)(host);
          if (typeof (returned as Disposable | undefined)?.dispose === 'function') bound.push(returned as Disposable);
        } catch (err) {
          process.emitWarning(`ptc-runtime: tool "${t.name}" failed to bind to its host: ${errorText(err)}`);
        }
      }
      if (bound.length === 0) return registration;
      return disposable(() => {
        registration.dispose();
        for (const d of bound) d.dispose();
      });
    },
    schemas: () => registry.schemas(),
    tools: () => registry.list(),
    get: (name) => registry.get(name),
    executionMode: (call) => executionModeOf(registry.get(call?.name), call?.args),
    hooks,
    call: (call, callOptions) => runPipeline(env, call, callOptions),
    preflight: (call, preflightOptions) => preflightCall(env, call, preflightOptions),
    runTurn: (calls, turnOptions) => runTurn(host, calls, { ...turnOptions, maxConcurrency }, (call, callOptions, reason) => runPipeline(env, call, callOptions, reason)),
    emit,
    onEvent(sink) {
      sinks = [...sinks, sink];
      return disposable(() => {
        sinks = sinks.filter((s) => s !== sink);
      });
    },
    maxConcurrency,
    jobs,
    close: () => jobs.close(),
  };
  const env: PipelineEnv = {
    host,
    lookup: (name) => registry.get(name),
    toolNames: () => registry.names(),
    hooks,
    approval: options.approval,
    approvalTimeoutMs,
    emit,
    emitDraft,
    now,
  };
  return Object.freeze(host);
}
