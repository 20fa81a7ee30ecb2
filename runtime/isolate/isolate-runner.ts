/**
 * `createIsolateRunner`: a {@link ProgramRunner} that runs each program in a fresh isolated-vm
 * context inside this process (a fresh isolate, or one kept from a clean run of the same group:
 * isolate-reuse.ts) (`isolation: 'isolate'`, and the engine inside each sandbox
 * process). Candidly: the isolate is a language boundary, not a fault boundary. On Node 20 a
 * huge allocation inside an isolate can abort the whole process, and WebAssembly memory (removed
 * from the guest here) is not covered by `memoryLimit`; use the process runner for untrusted code.
 *
 * Uses only isolated-vm API that 6.x also has: `Isolate` (memoryLimit,
 * cpuTime, isDisposed, dispose, compileScript with cachedData, createContext), `Script.run`,
 * `Reference.applySync` and `Reference.apply` with `{ arguments: { copy: true }, timeout }`.
 */
// The sandbox worker loads this module: import the error base class, not the tools package (zod and all).
import { errorText, InvalidOptionError, PtcError } from '../../tools/errors.js';
import { LIMIT_NAMES } from '../../bridge/limit-failure.js';
import type { GuestBridge, ProgramRunner, RunRequest } from '../program-runner.js';
import { abortMessage, reportDroppedCalls, type StoppableRun } from '../run-checks.js';
import { DisposalQueue } from './disposal-queue.js';
import { IsolatePool } from './isolate-pool.js';
import { executeRun, type OffThreadSlices } from './isolate-run.js';
import type { IsolateRunOutcome, LateCallEvent, RunStartup } from './run-types.js';
import { DEFAULT_ISOLATE_RUNS, ReusedIsolates } from './isolate-reuse.js';
import { disposeQuietly, MIN_MEMORY_MB, type PreparedIsolate } from './prepared-isolate.js';

/** Options for {@link createIsolateRunner}. */
export interface IsolateRunnerOptions {
  /** Warm spare isolates kept ready (each used for one run, then disposed). 0 disables the pool. Default 2. */
  readonly poolSize?: number;
  /** `memoryLimit` (MB) of the spares until a run asks for another. Default 64. */
  readonly memoryMb?: number;
  /** Called for each call that arrives after its run settled (it is dropped, never dispatched). */
  readonly onLateCall?: (event: LateCallEvent) => void;
  /**
   * How long after a run ends its isolate is disposed and a spare created, in ms (about 2 ms of
   * this thread's time). Default 0: the next turn of the event loop, after the outcome's
   * handlers. A sandbox process waits longer, so that where it shares a core with the host, the
   * host reads the outcome before this work takes the core.
   */
  readonly cleanupDelayMs?: number;
  /**
   * Prepare spares on this thread instead of on isolated-vm's threads: ~0.5 ms less CPU per
   * isolate (no thread hand-offs), but this thread is busy for the ~2.5 ms it takes. For a
   * process that does nothing else between runs (the sandbox worker). Default false.
   */
  readonly blockingRefill?: boolean;
  /**
   * Outcomes carrying more than this many characters of JSON are pushed into the isolate on
   * isolated-vm's own thread, so that parsing them there (10 MB of JSON: ~0.1 s) does not hold
   * this thread and its event loop. Default 1 MiB; `Infinity`: always on this thread.
   */
  readonly offThreadChars?: number;
  /**
   * Clean runs of one group (`RunRequest.group`) an isolate serves, each in a fresh context,
   * before it is disposed (isolate-reuse.ts). Default 8; 1: a fresh isolate for every run.
   */
  readonly isolateRuns?: number;
  /**
   * Run slices on isolated-vm's thread instead of this one, so that a program computing does
   * not hold this thread (and the other runs it serves: a sandbox process's slots): all of them
   * (`true`), or those a function picks as each begins ({@link OffThreadSlices}). Costs a
   * thread hand-off per slice. Default false.
   */
  readonly offThreadSlices?: OffThreadSlices;
  /**
   * Run each run's slices on this thread, each stopped after this many ms; a program that
   * computes longer in one slice is replayed in a fresh context, its slices then on isolated-vm's
   * thread as `offThreadSlices` picks (docs/run-life.md "Bounded slices"). Such runs read a
   * durable run's clock (the time a slice began, plus 1 ms per reading in it) and a seeded
   * `Math.random`. For a process whose thread serves several runs (a sandbox process's slots).
   * Default: unbounded.
   */
  readonly sliceBoundMs?: number;
  /** Isolates kept for their groups' next runs at most (at least 2, and 4 per spare). A sandbox process keeps one per slot. */
  readonly keptIsolates?: number;
}

/** Default of {@link IsolateRunnerOptions.offThreadChars}. */
export const OFF_THREAD_CHARS = 1 << 20;

/** Counters of how runs got their isolates. */
export interface IsolateRunnerStats {
  readonly pooledStarts: number;
  readonly coldStarts: number;
  /** Spares ready now. */
  readonly ready: number;
  /** Runs in progress. */
  readonly active: number;
  /** Runs that got a fresh context in an isolate kept from their group's earlier run. */
  readonly reusedStarts: number;
  /**
   * Of `reusedStarts`, runs that arrived while that isolate's fresh context was still to be made
   * and had it made at once rather than get a new isolate.
   */
  readonly claimedStarts: number;
  /** Runs replayed off this thread after a slice reached `sliceBoundMs`. */
  readonly replays: number;
  /** Isolates kept for their group's next run now. */
  readonly kept: number;
}

/** The in-process runner, with warm-up and counters on top of {@link ProgramRunner}. */
export interface IsolateRunner extends ProgramRunner {
  run(request: RunRequest, bridge: GuestBridge, signal: AbortSignal): Promise<IsolateRunOutcome>;
  /** Resolves once the pool holds `poolSize` spares. */
  warmUp(): Promise<void>;
  stats(): IsolateRunnerStats;
}

/** A run request or the runner's state is invalid (a host programming error, not a program's). */
export class RunRequestError extends PtcError {
  override readonly name = 'RunRequestError';
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`Invalid run request: ${field} ${problem}`);
  }
}

/** Checks the shape of a request (it comes from the host, but a wrong one must fail clearly). */
export function validateRunRequest(request: RunRequest): void {
  if (request === null || typeof request !== 'object') throw new RunRequestError('request', 'is not an object');
  if (typeof request.js !== 'string') throw new RunRequestError('js', 'is not a string');
  if (!Array.isArray(request.toolNames) || !request.toolNames.every((n) => typeof n === 'string')) {
    throw new RunRequestError('toolNames', 'is not a list of strings');
  }
  if (new Set(request.toolNames).size !== request.toolNames.length) throw new RunRequestError('toolNames', 'has duplicates');
  if (request.lineOffset !== undefined && !Number.isSafeInteger(request.lineOffset)) throw new RunRequestError('lineOffset', 'is not an integer');
  const limits = request.limits as unknown as Record<string, unknown> | undefined;
  if (limits === null || typeof limits !== 'object') throw new RunRequestError('limits', 'is not an object');
  for (const field of LIMIT_NAMES) {
    const value = limits[field];
    if (typeof value !== 'number' || !(value > 0)) throw new RunRequestError(`limits.${field}`, `must be a positive number (got ${String(value)})`);
  }
  if (request.group !== undefined && (typeof request.group !== 'string' || request.group.length === 0 || request.group.length > 512)) throw new RunRequestError('group', 'is not a string of 1 to 512 characters');
  if ((limits.memoryMb as number) < MIN_MEMORY_MB) throw new RunRequestError('limits.memoryMb', `must be at least ${MIN_MEMORY_MB}`);
  const determinism = request.determinism as unknown as Record<string, unknown> | undefined;
  if (determinism !== undefined) {
    if (determinism === null || typeof determinism !== 'object') throw new RunRequestError('determinism', 'is not an object');
    if (typeof determinism.seed !== 'string' || !/^[0-9a-f]{32}$/.test(determinism.seed)) throw new RunRequestError('determinism.seed', 'is not 32 lowercase hex characters');
    if (typeof determinism.clockMs !== 'number' || !Number.isFinite(determinism.clockMs) || determinism.clockMs < 0) throw new RunRequestError('determinism.clockMs', 'is not a time');
  }
}

/** Creates the in-process isolate runner. */
export function createIsolateRunner(options: IsolateRunnerOptions = {}): IsolateRunner {
  const { sliceBoundMs } = options;
  if (sliceBoundMs !== undefined && !(typeof sliceBoundMs === 'number' && Number.isFinite(sliceBoundMs) && sliceBoundMs >= 1)) {
    throw new InvalidOptionError({ where: 'createIsolateRunner', option: 'sliceBoundMs', value: sliceBoundMs, expected: 'a number of milliseconds, at least 1' });
  }
  const poolSize = Math.max(0, Math.floor(options.poolSize ?? 2));
  const delayMs = Math.max(0, options.cleanupDelayMs ?? 0);
  const later = delayMs > 0 ? (work: () => void) => void setTimeout(work, delayMs).unref() : (work: () => void) => void setImmediate(work);
  const pool = new IsolatePool({
    later,
    size: poolSize,
    blocking: options.blockingRefill === true,
    memoryMb: Math.max(MIN_MEMORY_MB, options.memoryMb ?? 64),
    onStray: (kind, items) => reportDroppedCalls(kind, items, 'not-assigned', options.onLateCall),
  });
  const disposal = new DisposalQueue(later);
  const reuse = new ReusedIsolates({
    later,
    isolateRuns: Math.max(1, Math.floor(options.isolateRuns ?? DEFAULT_ISOLATE_RUNS)),
    maxKept: Math.max(2, poolSize * 4, Math.floor(options.keptIsolates ?? 0)),
    blocking: options.blockingRefill === true,
    onStray: (kind, items) => reportDroppedCalls(kind, items, 'not-assigned', options.onLateCall),
  });
  const offThreadChars = options.offThreadChars ?? OFF_THREAD_CHARS;
  /** Runs executing in an isolate (the runner's close stops them). */
  const runs = new Set<StoppableRun>();
  let active = 0;
  let closed = false;
  let pooledStarts = 0;
  let coldStarts = 0;
  let replays = 0;

  async function run(request: RunRequest, bridge: GuestBridge, signal: AbortSignal): Promise<IsolateRunOutcome> {
    const startedAt = performance.now();
    if (closed) throw new RunRequestError('runner', 'is closed');
    validateRunRequest(request);
    const memoryMb = Math.ceil(request.limits.memoryMb);
    active++;
    try {
      const { group } = request;
      let prepared: PreparedIsolate | undefined = group === undefined ? undefined : reuse.take(group, memoryMb);
      // The group's last run may have just ended: its isolate beats a new one (reuse.claim).
      if (prepared === undefined && group !== undefined) prepared = await reuse.claim(group, memoryMb);
      let source: RunStartup['source'] = 'reused';
      if (prepared === undefined) {
        prepared = pool.take(memoryMb);
        source = prepared === undefined ? 'cold' : 'pool';
      }
      if (prepared === undefined) {
        try {
          prepared = await pool.cold(memoryMb);
        } catch (err) {
          const message = errorText(err);
          return { ok: false, failure: { kind: 'crash', message: `Could not create an isolate: ${message}` }, cpuMs: 0, wallMs: performance.now() - startedAt, startup: { source, ms: 0 } };
        }
      }
      if (source === 'pool') pooledStarts++;
      else if (source === 'cold') coldStarts++;
      if (closed) {
        disposeQuietly(prepared.isolate);
        return { ok: false, failure: { kind: 'aborted', message: abortMessage(new Error('the runner was closed')) }, cpuMs: 0, wallMs: performance.now() - startedAt, startup: { source, ms: 0 } };
      }
      return await executeRun({ prepared, request, bridge, signal, onLateCall: options.onLateCall, startedAt, source, disposal, runs, offThreadChars, offThreadSlices: options.offThreadSlices ?? false, sliceBoundMs, onReplay: () => void replays++, keep: (used) => reuse.offer(used, group) });
    } finally {
      active--;
      pool.refill();
    }
  }

  return {
    run,
    warmUp: () => pool.fill(),
    stats: () => ({ pooledStarts, coldStarts, ready: pool.ready, active, reusedStarts: reuse.stats().reused, claimedStarts: reuse.stats().claimed, kept: reuse.stats().kept, replays }),
    async close() {
      closed = true;
      pool.close();
      reuse.close();
      for (const running of [...runs]) running.stop(new Error('the runner was closed'));
      disposal.flush();
    },
  };
}
