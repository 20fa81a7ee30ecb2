/**
 * Step 6: the tool body inside the `tools/execute` middleware, raced against the call's abort.
 *
 * - Middleware wraps the body, first registered outermost. Each `next` runs the inner step at
 *   most once, and not at all once the call's body step is over: a middleware that kept `next`
 *   would otherwise run the body outside the call, after its result, with no event recording it.
 * - The call is reported aborted as soon as the caller's signal fires, while the body may run on
 *   (a body is not obliged to stop); a tool that records its own wind-down sets `abortGraceMs`,
 *   and the step waits that long for the body to settle first.
 * - The tool gets a signal of its own ({@link CallContext}), made when it first reads it (most
 *   never do; an AbortSignal costs about 3 µs) and aborted with the caller's: a tool that adds an
 *   abort listener and never removes it leaves it on its call's signal, not on one every call of
 *   a turn or run shares.
 */
import { CallReports, type LogEntry, type ProgressUpdate } from './call-reports.js';
import { subscribeAbort } from './abort-subscription.js';
import type { HookLists } from './hooks.js';
import type { Tool, ToolExecContext, ToolHost } from './tool-types.js';
import type { JsonValue } from './json.js';
import type { AgentRef, ToolExecution, ToolOrigin } from './types.js';
import { DURABLE_CALL, type DurableCall } from './durable-call.js';

/** A signal that never aborts: the default of a call without one (and a fast path here). */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** Options of {@link executeBody}. */
export interface ExecuteBodyOptions {
  readonly tool: Tool;
  /** The frozen snapshot of step 2 (what the body receives). */
  readonly args: JsonValue;
  readonly execution: ToolExecution;
  readonly hooks: HookLists;
  readonly host: ToolHost;
  /** The caller's signal. */
  readonly signal: AbortSignal;
  /** A durable run's part: the idempotency key, and run_code's resume plan (durable-call.ts). */
  readonly durable?: DurableCall;
}

/** How the body step ended: with the raw value (before step 7), or aborted by the caller. */
export type BodyOutcome = { readonly aborted: false; readonly raw: unknown } | { readonly aborted: true };

/** Runs step 6. Rejects with what the body or a middleware threw. */
export async function executeBody(options: ExecuteBodyOptions): Promise<BodyOutcome> {
  const { tool, args, execution, hooks, signal } = options;
  const exec = new CallContext({ execution, host: options.host, caller: signal, durable: options.durable });
  let over = false;
  try {
    const chain = runMiddleware(hooks, execution, () => tool.execute(args, exec), () => over);
    const raw = await raceAbort({ promise: chain, signal, onAbort: () => exec.abort(), graceMs: tool.abortGraceMs ?? 0 });
    return raw === ABORTED ? { aborted: true } : { aborted: false, raw };
  } finally {
    over = true;
    exec.endReports();
  }
}

/**
 * What a tool's `execute` gets. `signal` is a getter on the prototype: the call's own signal is
 * made on first read (an own accessor on each context, or a signal per call, cost 5 µs of every
 * call), and follows the caller's. Frozen; spreading it leaves `signal` behind (pass it on
 * explicitly).
 */
class CallContext implements ToolExecContext {
  declare readonly agent?: AgentRef;
  readonly callId: string;
  readonly toolName: string;
  readonly origin: ToolOrigin;
  readonly host: ToolHost;
  declare readonly idempotencyKey?: string;
  declare readonly [DURABLE_CALL]?: unknown;
  #caller: AbortSignal;
  #own: AbortController | undefined;
  #reports: CallReports | undefined;

  constructor(options: { readonly execution: ToolExecution; readonly host: ToolHost; readonly caller: AbortSignal; readonly durable?: DurableCall | undefined }) {
    const { execution } = options;
    this.callId = execution.callId;
    this.toolName = execution.toolName;
    if (execution.agent) (this as { agent?: AgentRef }).agent = execution.agent;
    this.origin = execution.origin;
    this.host = options.host;
    const { durable } = options;
    if (durable?.idempotencyKey !== undefined) (this as { idempotencyKey?: string }).idempotencyKey = durable.idempotencyKey;
    if (durable?.resume !== undefined) Object.defineProperty(this, DURABLE_CALL, { value: durable.resume, enumerable: true });
    this.#caller = options.caller;
    Object.freeze(this);
  }

  get signal(): AbortSignal {
    if (this.#own === undefined) {
      this.#own = new AbortController();
      if (this.#caller.aborted) this.#own.abort(this.#caller.reason);
    }
    return this.#own.signal;
  }

  progress(update: ProgressUpdate): void {
    this.#reportsOf().progress(update);
  }

  log(entry: LogEntry): void {
    this.#reportsOf().log(entry);
  }

  /** The body step ended: a waiting progress report goes out, later ones are ignored. */
  endReports(): void {
    this.#reports?.end();
  }

  #reportsOf(): CallReports {
    return (this.#reports ??= new CallReports({ callId: this.callId, toolName: this.toolName }, (event) => this.host.emit(event)));
  }

  /** The caller aborted: so does the call's own signal, if the tool has it. */
  abort(): void {
    this.#own?.abort(this.#caller.reason);
  }
}

/**
 * Composes the execute middleware around the body; first registered is outermost. Each `next`
 * runs once, and not at all once `over()` (the call's body step has ended).
 */
function runMiddleware(hooks: HookLists, execution: ToolExecution, body: () => unknown, over: () => boolean): Promise<unknown> {
  let next: () => Promise<unknown> = async () => body();
  const chain = hooks.middleware;
  for (let i = chain.length - 1; i >= 0; i--) {
    const middleware = chain[i]!;
    const inner = next;
    next = () => {
      let called = false;
      const once = () => {
        if (called) return Promise.reject(new Error(`execute middleware #${i} called next() twice`));
        if (over()) return Promise.reject(new Error(`execute middleware #${i} called next() after the call had ended`));
        called = true;
        return inner();
      };
      return Promise.resolve(middleware(execution, once));
    };
  }
  return next();
}

const ABORTED = Symbol('aborted');

/**
 * Resolves with the promise, or with ABORTED once the signal fired (the body may still run on;
 * `onAbort` passes the abort on to it): at once, or when the body settles within `graceMs`.
 */
function raceAbort<T>(options: { promise: Promise<T>; signal: AbortSignal; onAbort: () => void; graceMs: number }): Promise<T | typeof ABORTED> {
  const { promise, signal, onAbort, graceMs } = options;
  if (signal === NEVER_ABORTED) return promise;
  const aborted = (): Promise<typeof ABORTED> => {
    onAbort();
    const settled = promise.then(
      (): typeof ABORTED => ABORTED,
      (): typeof ABORTED => ABORTED,
    );
    if (graceMs <= 0) return Promise.resolve(ABORTED);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<typeof ABORTED>((resolve) => {
      timer = setTimeout(() => resolve(ABORTED), graceMs);
    });
    return Promise.race([settled, waited]).finally(() => clearTimeout(timer));
  };
  if (signal.aborted) return aborted();
  return new Promise((resolve, reject) => {
    const unsubscribe = subscribeAbort(signal, () => {
      resolve(aborted());
    });
    promise.then(
      (v) => {
        unsubscribe();
        resolve(v);
      },
      (e: unknown) => {
        unsubscribe();
        reject(e);
      },
    );
  });
}
