/**
 * One isolate made ready for one run: a fresh context with the bootstrap already run, so a run
 * only has to send its program. The host capability is a single `ivm.Reference` to a dispatch
 * function per context; it forwards the guest's messages to whichever run currently owns this
 * context (`receiver`), and to `onStray` when none does. A context is given one program, never a
 * second; its isolate is disposed after the run, or (isolate-reuse.ts) given a fresh context for
 * the next clean run of the same group.
 */
import { createRequire } from 'node:module';
import type * as IvmTypes from 'isolated-vm';
import { BOOTSTRAP_URL, type EntryArgs, type EntryResult } from './guest/protocol.js';
import { bootstrapScript } from './guest-source.js';

type Ivm = typeof IvmTypes;
let ivmModule: Ivm | undefined;

/** Loads isolated-vm on first use (a CommonJS native addon), so importing this module is cheap. */
export function loadIsolatedVm(): Ivm {
  if (ivmModule === undefined) {
    const require = createRequire(import.meta.url);
    ivmModule = require('isolated-vm') as Ivm;
  }
  return ivmModule;
}

/** Receives one guest message: a kind and a list of strings and numbers (unchecked: see guest-message.ts). */
export type GuestMessageReceiver = (kind: unknown, items: unknown) => void;

/** An isolate with its context and bootstrap, waiting for its one run. */
export interface PreparedIsolate {
  readonly isolate: IvmTypes.Isolate;
  readonly context: IvmTypes.Context;
  /** The guest's `entry(op, ...data)` function (guest/program.js; arguments in guest/protocol.ts EntryArgs). */
  readonly entry: Entry;
  readonly memoryMb: number;
  /** The run that owns this isolate; messages go here. */
  receiver: GuestMessageReceiver | undefined;
  /** The host capability the context's bootstrap holds (released with the context). */
  readonly dispatch: IvmTypes.Reference;
  /** Runs this isolate had before this context (0 for a new isolate). */
  uses: number;
}

/** Options for {@link prepareIsolate}. */
export interface PrepareOptions {
  readonly memoryMb: number;
  /**
   * Create the context and run the bootstrap on this thread (about 0.7 ms faster: no thread
   * hand-offs) instead of on isolated-vm's threads. For a run that waits for its isolate; a
   * background refill leaves this off so the thread stays free meanwhile.
   */
  readonly blocking?: boolean;
  /**
   * A run is waiting for this isolate: skip the warm-ups that only move one-time costs off a
   * later run's path (that run would pay them sooner).
   */
  readonly forWaitingRun?: boolean;
  /** A message arrived while no run owned the isolate. */
  readonly onStray?: (kind: unknown, items: unknown) => void;
}

/** Lower bound isolated-vm accepts for `memoryLimit`. */
export const MIN_MEMORY_MB = 8;

/** Creates an isolate and context and runs the bootstrap in it. */
export async function prepareIsolate(options: PrepareOptions): Promise<PreparedIsolate> {
  const ivm = loadIsolatedVm();
  const memoryMb = Math.max(MIN_MEMORY_MB, Math.ceil(options.memoryMb));
  // No onCatastrophicError: isolated-vm would park the failing thread forever and report on the
  // host's thread, which is the same thread here (guest code runs in synchronous slices), so the
  // process would hang. Without it V8 ends the process on a fatal out-of-memory error, which the
  // sandbox process supervisor reports as the memory limit.
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  try {
    return await prepareContext(isolate, memoryMb, options);
  } catch (err) {
    disposeQuietly(isolate);
    throw err;
  }
}

/**
 * A fresh context with the bootstrap run in `isolate` (a new one, or one whose previous run of
 * the same group ended cleanly: see isolate-reuse.ts). Nothing of an earlier context is reachable
 * from it: its globals, builtins and their prototypes are its own.
 */
export async function prepareContext(isolate: IvmTypes.Isolate, memoryMb: number, options: Omit<PrepareOptions, 'memoryMb'>): Promise<PreparedIsolate> {
  const ivm = loadIsolatedVm();
  let prepared: PreparedIsolate | undefined;
  const context = options.blocking ? isolate.createContextSync() : await isolate.createContext();
  try {
    const dispatch = new ivm.Reference((kind: unknown, items: unknown, name?: unknown, argsJson?: unknown) => {
      // One call (every sequential call) crosses as three primitives: `call1`, id, name, args.
      if (kind === 'call1') {
        kind = 'calls';
        items = [items, name, argsJson];
      }
      // The bootstrap's own warm-up message, while this isolate is being prepared (no program
      // exists yet); afterwards 'warm' is an unknown kind like any other.
      if (prepared === undefined && kind === 'warm') return undefined;
      const receiver = prepared?.receiver;
      if (receiver !== undefined) return receiver(kind, items);
      options.onStray?.(kind, items);
      return undefined;
    });
    const entry = await runBootstrap(isolate, context, dispatch, options.blocking === true);
    // A spare runs what every run needs once (~0.3 ms, and the first entry from this thread ~50
    // µs), so its run does not; a run waiting for a new isolate would only pay it sooner.
    if (options.forWaitingRun !== true) entry.applySync(undefined, ['warm'], { timeout: 10_000 });
    prepared = { isolate, context, entry, memoryMb, receiver: undefined, dispatch, uses: 0 };
    return prepared;
  } catch (err) {
    releaseQuietly(context);
    throw err;
  }
}

/** Lets go of a used context, its entry and its capability, keeping the isolate. */
export function releaseContext(prepared: PreparedIsolate): void {
  prepared.receiver = undefined;
  releaseQuietly(prepared.entry);
  releaseQuietly(prepared.dispatch);
  releaseQuietly(prepared.context);
}

function releaseQuietly(handle: { release(): void } | undefined): void {
  try {
    handle?.release();
  } catch {
    // already released, or its isolate is gone
  }
}

/**
 * V8's code cache for the bootstrap, made by the first isolate this process prepares: compiling
 * the 35 KB from source took ~0.9 ms of every new isolate, reading the cache ~0.1 ms. It only
 * ever holds what V8 produced from our own source; V8 rejects it on any mismatch (version, flags,
 * source), and then the next compile makes a new one.
 */
let bootstrapCache: IvmTypes.ExternalCopy<ArrayBuffer> | undefined;

/** The guest's `entry` (guest/protocol.ts EntryArgs -> EntryResult). */
type Entry = IvmTypes.Reference<(...args: EntryArgs) => EntryResult>;

/** Compiles the bootstrap (from the cache when there is one) and runs it with `dispatch`. */
async function runBootstrap(isolate: IvmTypes.Isolate, context: IvmTypes.Context, dispatch: IvmTypes.Reference, blocking: boolean): Promise<Entry> {
  const cache = bootstrapCache;
  const info = cache === undefined ? { filename: BOOTSTRAP_URL, produceCachedData: true } : { filename: BOOTSTRAP_URL, cachedData: cache };
  // isolated-vm sets these on the script; its typings only name them on CachedDataResult.
  const script: IvmTypes.Script & IvmTypes.CachedDataResult & { readonly cachedDataRejected?: boolean } = blocking
    ? isolate.compileScriptSync(bootstrapScript(), info)
    : await isolate.compileScript(bootstrapScript(), info);
  if (cache === undefined) bootstrapCache ??= script.cachedData;
  else if (script.cachedDataRejected === true && bootstrapCache === cache) bootstrapCache = undefined;
  const options = { reference: true, timeout: 10_000 } as const;
  const factory = (blocking ? script.runSync(context, options) : await script.run(context, options)) as IvmTypes.Reference<(dispatch: IvmTypes.Reference) => unknown>;
  script.release();
  const applyOptions = { result: { reference: true }, timeout: 10_000 } as const;
  const entry = (blocking ? factory.applySync(undefined, [dispatch], applyOptions) : await factory.apply(undefined, [dispatch], applyOptions)) as Entry;
  factory.release();
  return entry;
}

/** Disposes an isolate, ignoring "already disposed". */
export function disposeQuietly(isolate: IvmTypes.Isolate): void {
  try {
    if (!isolate.isDisposed) isolate.dispose();
  } catch {
    // already gone
  }
}
