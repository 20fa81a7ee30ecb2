/**
 * `createProcessRunner`: the default isolation. Each program runs in a fresh isolate inside a
 * pre-started sandbox process (`node --no-node-snapshot`, empty environment, empty working
 * directory); tools, the pipeline and the run token stay in this process. The isolate is the
 * language boundary, the process the fault boundary: a program that makes V8 abort (a huge
 * `Array.fill` on Node 20), outgrows `rssMb`, or keeps burning CPU takes down only its sandbox
 * process, which the host SIGKILLs and replaces, and the run ends with a failure naming what
 * happened. The worker script is `worker.js` beside this module when built, or bundled on the
 * fly by esbuild when running from the TypeScript sources (see worker-entry.ts).
 *
 * On Linux each process starts under bubblewrap where it works (`osSandbox`, default `auto`; see
 * runtime/os-sandbox): a program that escaped its isolate would find itself in a process with no
 * network, no view of the host's files, processes or environment.
 */
import type { GuestBridge, ProgramRunner, RunRequest } from '../program-runner.js';
import { RunRequestError, validateRunRequest, type LateCallEvent } from '../isolate/index.js';
import { abortMessage, reportDroppedCalls, type StoppableRun } from '../run-checks.js';
import { limitFailure } from '../../bridge/index.js';
import { resolveOsSandbox, type OsSandboxKind, type OsSandboxMode } from '../os-sandbox/index.js';
import { defaultMaxProcesses, ProcessPool, type PooledProcess, type ProcessEvent } from './process-pool.js';
import { executeProcessRun, type ProcessRunOutcome } from './process-run.js';
import type { SandboxProcess } from './sandbox-process.js';
import { errorText } from '../../tools/index.js';
import { checkRunsPerProcess } from './runs-per-process.js';

/** Options for {@link createProcessRunner}. */
export interface ProcessRunnerOptions {
  /** Idle sandbox processes kept ready. Default 1. */
  readonly poolSize?: number;
  /**
   * Sandbox processes alive at once; further runs wait for one. Default: as many as half the
   * machine's memory holds at 256 MB each (run_code's default `rssMb`), 4 to 64 (`defaultMaxProcesses`).
   * The pool grows to it on demand, one program per process, and shrinks back (`idleMs`).
   */
  readonly maxProcesses?: number;
  /** Processes beyond `poolSize` idle this long are stopped, in ms. Default 10,000. */
  readonly idleMs?: number;
  /**
   * A process beyond `poolSize` (and the first) is started only while the machine has this much
   * memory available (`os.freemem()`), in MB; otherwise the run waits for a busy one. Default 512.
   */
  readonly minFreeMb?: number;
  /** `memoryLimit` (MB) of each worker's warm isolate until a run asks for another. Default 64. */
  readonly memoryMb?: number;
  /** How often a busy process's RSS and CPU time are read, in ms. Default 25. */
  readonly pollMs?: number;
  /** After an abort, how long a process may take to stop before it is killed, in ms. Default 250. */
  readonly abortGraceMs?: number;
  /** How long a process may take to start, in ms. Default 15000. */
  readonly startTimeoutMs?: number;
  /** Runs a process serves, per slot, before it is replaced. Default 100. */
  readonly maxRunsPerProcess?: number;
  /**
   * Runs of one group (`RunRequest.group`) a sandbox process holds at once, each in its own
   * slot: its own isolate (reused per `isolateRuns`), a fresh context per run, its slices on
   * its own thread. A process serves one group for its life; runs without a group share
   * processes one at a time. 1 to 8; default 4.
   */
  readonly runsPerProcess?: number;
  /**
   * One run in a sandbox process at a time, and a fresh isolate per run (`isolation: { strict:
   * true }`): no run shares a process with another while it runs, so a crash or OOM ends only
   * its own run. A process still serves one group, its runs one after another. Default false.
   */
  readonly strict?: boolean;
  /**
   * Clean runs of one group (`RunRequest.group`) an isolate serves in a process, each in a fresh
   * context, before it is disposed. Default 8; 1: a fresh isolate for every run.
   */
  readonly isolateRuns?: number;
  /**
   * The worker script (defaults to the one shipped beside this module). Under the OS sandbox it
   * is copied into the sandbox alone, so it must be self-contained (isolated-vm is resolvable).
   */
  readonly workerEntry?: string;
  /**
   * `auto` (default): start processes under bubblewrap where it works, else without it (said
   * once on stderr; see {@link ProcessRunner.osSandbox}); `require`: throw
   * `OsSandboxUnavailableError` from here when it cannot be used; `off`: never.
   */
  readonly osSandbox?: OsSandboxMode;
  /** The bubblewrap binary (default: `PTC_BWRAP`, else `bwrap` on `PATH`). */
  readonly bwrapPath?: string;
  /** A call arrived for no run this host assigned (a bridge's own `onLateCall` hears its run's late calls). */
  readonly onLateCall?: (event: LateCallEvent) => void;
  /** Process lifecycle events (started, exited with why). */
  readonly onProcessEvent?: (event: ProcessEvent) => void;
}

/** Counters of the process runner. */
export interface ProcessRunnerStats {
  /** Idle processes now. */
  readonly ready: number;
  /** Processes alive now. */
  readonly processes: number;
  readonly active: number;
}



/** The sandbox-process runner, with warm-up and counters on top of {@link ProgramRunner}. */
export interface ProcessRunner extends ProgramRunner {
  run(request: RunRequest, bridge: GuestBridge, signal: AbortSignal): Promise<ProcessRunOutcome>;
  /** Resolves once `poolSize` processes are started and idle. */
  warmUp(): Promise<void>;
  stats(): ProcessRunnerStats;
  /** The live sandbox processes: pid, group, runs in each now (tests, logs). */
  processes(): PooledProcess[];
  /** What confines this runner's processes: `bubblewrap`, or `none` (`off`, or `auto` where it is unavailable). */
  readonly osSandbox: OsSandboxKind;
}

function notifyQueued(bridge: GuestBridge, waiting: boolean): void {
  try {
    bridge.queued?.(waiting);
  } catch {
    // the bridge's problem; the run goes on
  }
}

/** Creates the sandbox-process runner. */
export function createProcessRunner(options: ProcessRunnerOptions = {}): ProcessRunner {
  const osSandbox = resolveOsSandbox({ mode: options.osSandbox, ...(options.bwrapPath !== undefined ? { bwrapPath: options.bwrapPath } : {}) });
  const maxProcesses = Math.max(1, Math.floor(options.maxProcesses ?? defaultMaxProcesses()));
  const strict = options.strict === true;
  const runsPerProcess = strict ? 1 : checkRunsPerProcess(options.runsPerProcess, 'createProcessRunner');
  const pool = new ProcessPool({
    size: Math.min(maxProcesses, Math.max(0, Math.floor(options.poolSize ?? 1))),
    maxProcesses,
    idleMs: Math.max(0, options.idleMs ?? 10_000),
    minFreeMb: Math.max(0, options.minFreeMb ?? 512),
    memoryMb: Math.max(8, options.memoryMb ?? 64),
    startTimeoutMs: options.startTimeoutMs ?? 15_000,
    maxRunsPerProcess: Math.max(1, options.maxRunsPerProcess ?? 100),
    isolateRuns: strict ? 1 : Math.max(1, Math.floor(options.isolateRuns ?? 8)),
    slots: runsPerProcess,
    strict,
    workerEntry: options.workerEntry,
    osSandbox,
    onProcessEvent: options.onProcessEvent,
    // A call for a run the process does not hold: dropped and reported, never dispatched.
    onForeignMessage: (message) => {
      if (message.t === 'calls') reportDroppedCalls('calls', message.items, 'not-assigned', options.onLateCall);
    },
  });
  /** Runs executing in a process (the runner's close stops them). */
  const runs = new Set<StoppableRun>();
  let active = 0;
  let closed = false;
  let nextRunId = 1;

  /**
   * Fairness while waiting for a person (docs/run-life.md "Waiting for a person"): a group may
   * hold at most its share of the pool's processes with runs that only wait for people, where
   * its share is `maxProcesses` over the groups using the pool (at least two, so one group never
   * holds them all); an ask that would take it past that is not put to anyone.
   */
  function giveGate(bridge: GuestBridge, process: SandboxProcess, group: string | undefined): () => void {
    const none = () => undefined;
    if (typeof bridge.personWaits !== 'function') return none;
    let waiting = false;
    let ended = false;
    const set = (now: boolean) => {
      if (ended || now === waiting) return;
      waiting = now;
      process.waitingRuns += now ? 1 : -1;
    };
    try {
      bridge.personWaits({
        admit: () => {
          if (ended) return undefined;
          const share = Math.max(1, Math.floor(maxProcesses / Math.max(2, pool.groupsInUse())));
          let held = 0;
          for (const p of pool.processesOf(group)) {
            const waitingRuns = p.waitingRuns + (p === process && !waiting ? 1 : 0);
            if (p.active > 0 && waitingRuns >= p.active) held++;
          }
          if (held <= share) return undefined;
          return `unavailable: this agent's runs would hold ${held} of the ${maxProcesses} sandbox processes only waiting for people, over its share (${share}); the call was not put to a person`;
        },
        waiting: set,
      });
    } catch {
      return none; // the bridge's problem; its asks go on unchecked
    }
    return () => {
      set(false);
      ended = true;
    };
  }

  async function run(request: RunRequest, bridge: GuestBridge, signal: AbortSignal): Promise<ProcessRunOutcome> {
    const startedAt = performance.now();
    if (closed) throw new RunRequestError('runner', 'is closed');
    validateRunRequest(request);
    active++;
    try {
      if (signal.aborted) return { ok: false, failure: { kind: 'aborted', message: 'The run was aborted before it started.' }, cpuMs: 0, wallMs: 0, pid: undefined };
      let process;
      // Waiting for a free (or new) process is not the program's time: the bridge may stop its
      // wall clock. The wait is bounded here instead, by the same wallMs.
      const { group } = request;
      const waits = !pool.hasRoomFor(group);
      const { wallMs: waitLimitMs } = request.limits;
      const gaveUp = new AbortController();
      const timer = waits ? setTimeout(() => gaveUp.abort(), waitLimitMs) : undefined;
      timer?.unref?.();
      if (waits) notifyQueued(bridge, true);
      try {
        // Memory an earlier run left in a process would count against this run's rssMb: it gets
        // one that holds at most a quarter of rssMb more than a fresh process.
        process = await pool.acquire(signal, { ...(group !== undefined ? { group } : {}), queueLimit: waits ? gaveUp.signal : undefined, maxGrowthMb: request.limits.rssMb / 4 });
      } catch (err) {
        const wallMs = performance.now() - startedAt;
        if (signal.aborted || closed) return { ok: false, failure: { kind: 'aborted', message: 'The run was aborted while waiting for a sandbox process.' }, cpuMs: 0, wallMs, pid: undefined };
        if (gaveUp.signal.aborted) {
          return { ok: false, failure: limitFailure('wallMs', waitLimitMs, { by: 'queue', processes: maxProcesses }), cpuMs: 0, wallMs, pid: undefined };
        }
        return { ok: false, failure: { kind: 'crash', message: `No sandbox process could be started: ${errorText(err)}` }, cpuMs: 0, wallMs, pid: undefined };
      } finally {
        clearTimeout(timer);
        if (waits) notifyQueued(bridge, false);
      }
      if (closed) {
        process.kill('the runner closed');
        return { ok: false, failure: { kind: 'aborted', message: abortMessage(new Error('the runner was closed')) }, cpuMs: 0, wallMs: performance.now() - startedAt, pid: undefined };
      }
      const endGate = giveGate(bridge, process, group);
      return await executeProcessRun({
        process,
        request,
        bridge,
        signal,
        runs,
        runId: nextRunId++,
        startedAt,
        pollMs: Math.max(5, options.pollMs ?? 25),
        abortGraceMs: Math.max(10, options.abortGraceMs ?? 250),
        onLateCall: options.onLateCall,
        onProcessFree: (p, reusable) => {
          endGate();
          pool.release(p, reusable);
        },
      });
    } finally {
      active--;
    }
  }

  return {
    run,
    warmUp: () => pool.fill(),
    stats: () => ({ ready: pool.ready, processes: pool.size, active }),
    processes: () => pool.processes(),
    osSandbox: osSandbox.kind,
    async close() {
      closed = true;
      for (const running of [...runs]) running.stop(new Error('the runner was closed'));
      pool.close();
    },
  };
}
