/**
 * An elastic pool of sandbox processes, one program at a time in each (the fault boundary: a
 * program's crash or memory blow-up takes down its own process only). A run takes an idle
 * process; when none is idle it waits for whichever comes first, a process another run releases
 * or one the pool starts for it (up to `maxProcesses`, and only while the machine has memory to
 * spare), so a burst of runs grows the pool instead of queueing behind a few processes, and a
 * run never waits for a cold start when a warm process frees up sooner. Processes above `size`
 * that stay idle for `idleMs` are stopped, so the pool shrinks back after the burst. A process
 * that passed a limit, crashed, misbehaved or served `maxRunsPerProcess` runs is killed instead
 * of released, and the pool starts a replacement in the background so the next run finds a
 * warm one.
 *
 * A process that kept memory from its runs is not handed out either: the allocator keeps much
 * of what a heavy run freed (64 parallel 1 MB echoes left a worker at 166 MB, from 48 MB), and
 * the next run's `rssMb` counts the whole process, so the same program passed and failed on
 * alternate runs. A run takes a process only while it holds at most `maxGrowthMb` more than
 * it did when it started; one grown past that is replaced.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, freemem, tmpdir, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import type { BubblewrapSandbox, NoOsSandbox, OsSandboxKind } from '../os-sandbox/index.js';
import { SandboxProcess } from './sandbox-process.js';
import { resolveWorkerEntry, resolveWorkerSource } from './worker-entry.js';

/** Options for {@link ProcessPool}. */
export interface ProcessPoolOptions {
  /** Idle processes kept ready. */
  readonly size: number;
  /** Processes alive at once (idle, busy and starting). */
  readonly maxProcesses: number;
  /** Processes above `size` idle this long (ms) are stopped. */
  readonly idleMs: number;
  /**
   * A process beyond the first `size` (at least one) is started only while the machine has at
   * least this much memory available (MB); otherwise the run waits for a process to be released.
   */
  readonly minFreeMb: number;
  readonly memoryMb: number;
  /** Clean runs of its group one isolate serves in a process (1: a fresh isolate per run). */
  readonly isolateRuns: number;
  /** Runs a process holds at once (`runsPerProcess`; 1: one run per process). */
  readonly slots: number;
  readonly startTimeoutMs: number;
  readonly maxRunsPerProcess: number;
  /** Worker script; resolved automatically when absent. */
  readonly workerEntry?: string;
  /** Start processes under bubblewrap, or not. */
  readonly osSandbox: BubblewrapSandbox | NoOsSandbox;
  /** Observes process life: started, killed, exited. */
  readonly onProcessEvent?: (event: ProcessEvent) => void;
}

/** A process lifecycle event, for logs and tests. */
export interface ProcessEvent {
  readonly kind: 'started' | 'exited';
  readonly pid: number | undefined;
  /** For `started`: what confines it (`pid` is the sandboxed worker's, not bubblewrap's). */
  readonly osSandbox?: OsSandboxKind;
  /** For `exited`: why the host killed it, or how it ended. */
  readonly detail?: string;
}

interface Waiter {
  readonly maxGrowthMb: number;
  readonly resolve: (process: SandboxProcess) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Processes started at once at most: a start is 0.2-0.4 s of CPU, and more starts in parallel
 * than cores only slow each other down (24 at once on 2 loaded vCPUs passed their 15 s start
 * timeout); meanwhile runs take processes others release.
 */
const MAX_STARTING = Math.min(4, Math.max(1, availableParallelism()));

/** Per-process memory a default cap budgets for: run_code's default `rssMb`. */
const PROCESS_BUDGET_MB = 256;

/**
 * The default `maxProcesses`: as many sandbox processes as half the machine's memory holds at
 * {@link PROCESS_BUDGET_MB} each (the `rssMb` a run may reach before it is stopped), at least 4
 * and at most 64. An idle process takes about 50 MB; the cap is for the worst case.
 */
export function defaultMaxProcesses(totalMb = totalmem() / (1024 * 1024)): number {
  return Math.max(4, Math.min(64, Math.floor(totalMb / 2 / PROCESS_BUDGET_MB)));
}

/** The pool; `acquire` hands out one process per run. */
export class ProcessPool {
  private readonly idle: SandboxProcess[] = [];
  private readonly alive = new Set<SandboxProcess>();
  private starting = 0;
  private readonly waiters: Waiter[] = [];
  /** Timers that stop an idle process above `size`. */
  private readonly idleTimers = new Map<SandboxProcess, ReturnType<typeof setTimeout>>();
  private closed = false;
  private cwd: string | undefined;
  private sandboxWorker: Promise<{ name: string; source: Uint8Array }> | undefined;

  constructor(private readonly options: ProcessPoolOptions) {}

  /** Idle processes now. */
  get ready(): number {
    return this.idle.length;
  }

  /** Processes alive now. */
  get size(): number {
    return this.alive.size;
  }

  /**
   * An idle process, else the first one free: released by another run or started for this one,
   * holding at most `maxGrowthMb` more resident memory than when it started (see the file note).
   * Rejects when the pool is closed, when a start fails and no process is left to wait for, on
   * `signal`, and on `queueLimit` only while the run is queued: when the pool could start no
   * process for it (at `maxProcesses`, or short of memory). A run a process is being started
   * for is bounded by the start's own timeout instead, as a cold start always was.
   */
  async acquire(signal: AbortSignal, options: { readonly queueLimit?: AbortSignal; readonly maxGrowthMb?: number } = {}): Promise<SandboxProcess> {
    const { queueLimit, maxGrowthMb = Number.POSITIVE_INFINITY } = options;
    if (this.closed) throw new Error('the process runner is closed');
    let process: SandboxProcess | undefined;
    while ((process = this.idle.shift()) !== undefined && (process.dead || this.retireIfGrown(process, maxGrowthMb)));
    if (process !== undefined) {
      this.takeIdle(process);
      this.refill();
      return process;
    }
    const waiting = new Promise<SandboxProcess>((resolve, reject) => {
      const unlisten = () => {
        signal.removeEventListener('abort', onAbort);
        queueLimit?.removeEventListener('abort', onQueueLimit);
      };
      const waiter: Waiter = {
        maxGrowthMb,
        resolve: (p) => {
          unlisten();
          resolve(p);
        },
        reject: (err) => {
          unlisten();
          reject(err);
        },
      };
      const onAbort = () => {
        unlisten();
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal.reason ?? new Error('aborted'));
      };
      const onQueueLimit = () => {
        if (this.waiters.includes(waiter)) onAbort();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      const blocked = this.grow();
      // Queued only when no process can be started for it (the cap, or memory).
      if (queueLimit !== undefined && blocked && this.starting < this.waiters.length) {
        if (queueLimit.aborted) onQueueLimit();
        else queueLimit.addEventListener('abort', onQueueLimit, { once: true });
      }
    });
    return waiting;
  }

  /** Returns a process after a clean run; kills it instead when it is worn out or dead. */
  release(process: SandboxProcess): void {
    if (process.dead) return;
    if (this.closed || process.runs >= this.options.maxRunsPerProcess) {
      process.kill(this.closed ? 'the runner closed' : `it served ${process.runs} runs`);
      return;
    }
    process.onRunExit = undefined;
    const waiter = this.waiters[0];
    if (waiter !== undefined) {
      // Killed, it is replaced (onExit refills), and the replacement comes back here for the waiter.
      if (this.retireIfGrown(process, waiter.maxGrowthMb)) return;
      this.waiters.shift();
      process.setBusy(true);
      waiter.resolve(process);
      return;
    }
    process.setBusy(false);
    process.noteIdle();
    this.idle.push(process);
    this.armIdleTimer(process);
  }

  /** Kills a process that holds more than `maxGrowthMb` over its start; true if it did. */
  private retireIfGrown(process: SandboxProcess, maxGrowthMb: number): boolean {
    const grown = process.grownMb();
    if (grown <= maxGrowthMb) return false;
    process.kill(`it kept ${Math.round(grown)} MB of resident memory from its runs`);
    return true;
  }

  /** Resolves once `size` processes are idle (warm-up and benchmarks). */
  async fill(): Promise<void> {
    while (!this.closed && this.idle.length < this.options.size && this.alive.size + this.starting < this.options.maxProcesses) {
      const process = await this.start();
      process.setBusy(false);
      process.noteIdle();
      this.idle.push(process);
      this.armIdleTimer(process);
    }
  }

  /** Kills every process and fails waiting runs. */
  close(): void {
    this.closed = true;
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    for (const process of this.alive) process.kill('the runner closed');
    this.idle.length = 0;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('the process runner is closed'));
    if (this.cwd !== undefined) rmSync(this.cwd, { recursive: true, force: true });
  }

  /** Keeps `size` processes idle or starting, in the background. */
  private refill(): void {
    if (this.closed || this.idle.length + this.starting >= this.options.size + this.waiters.length) return;
    this.grow();
  }

  /**
   * Starts processes in the background while runs wait for more than are starting, up to
   * `maxProcesses`, and beyond the first `size` (at least one) only while memory allows. A
   * started process goes to the first waiting run (or idles); a start that fails fails the first
   * waiting run when nothing else alive could serve it. Returns whether more were needed than the
   * cap or memory allowed (the runs beyond those starting are then queued).
   */
  private grow(): boolean {
    const { maxProcesses, size, minFreeMb } = this.options;
    const needed = () => this.starting < this.waiters.length || this.idle.length + this.starting < size;
    while (!this.closed && this.starting < MAX_STARTING && this.alive.size + this.starting < maxProcesses && needed()) {
      if (this.alive.size + this.starting >= Math.max(1, size) && this.freeMb() < minFreeMb) return true;
      this.start().then(
        (process) => {
          this.release(process);
          this.grow();
        },
        (err: unknown) => {
          // Processes alive or starting will serve as many waiting runs; one more than that fails.
          // (No retry here: a start that fails for good would loop; a process's exit or the next run tries again.)
          if (this.alive.size + this.starting < this.waiters.length) this.waiters.shift()?.reject(err);
        },
      );
    }
    return this.alive.size + this.starting >= maxProcesses && needed();
  }

  private freeMb(): number {
    return freemem() / (1024 * 1024);
  }

  /** Takes an idle process for a run. */
  private takeIdle(process: SandboxProcess): void {
    const timer = this.idleTimers.get(process);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.idleTimers.delete(process);
    }
    process.setBusy(true);
  }

  /** Stops `process` after `idleMs` idle, if the pool then still has more than `size` idle. */
  private armIdleTimer(process: SandboxProcess): void {
    if (this.idleTimers.has(process)) return;
    const timer = setTimeout(() => {
      this.idleTimers.delete(process);
      const at = this.idle.indexOf(process);
      if (at < 0 || this.idle.length <= this.options.size) return;
      this.idle.splice(at, 1);
      process.kill(`it was idle for ${this.options.idleMs} ms beyond the pool's ${this.options.size}`);
    }, this.options.idleMs);
    timer.unref();
    this.idleTimers.set(process, timer);
  }

  private async start(): Promise<SandboxProcess> {
    this.starting++;
    try {
      const { osSandbox, workerEntry } = this.options;
      const entry = workerEntry ?? (osSandbox.kind === 'bubblewrap' ? '' : await resolveWorkerEntry());
      const worker = osSandbox.kind === 'bubblewrap' ? await this.workerForSandbox() : undefined;
      this.cwd ??= mkdtempSync(join(tmpdir(), 'ptc-sandbox-'));
      const process = await SandboxProcess.spawn({
        entry,
        cwd: this.cwd,
        memoryMb: this.options.memoryMb,
        isolateRuns: this.options.isolateRuns,
        slots: this.options.slots,
        startTimeoutMs: this.options.startTimeoutMs,
        ...(osSandbox.kind === 'bubblewrap' && worker ? { osSandbox: { sandbox: osSandbox, worker } } : {}),
      });
      if (this.closed) {
        process.kill('the runner closed');
        throw new Error('the process runner is closed');
      }
      this.alive.add(process);
      // Until a run takes it, a process has nothing to say: anything it sends is hostile.
      process.onMessage = () => process.kill('it sent a message before any run was assigned to it');
      this.options.onProcessEvent?.({ kind: 'started', pid: process.pid, osSandbox: process.osSandbox });
      process.onExit = (exit) => {
        this.alive.delete(process);
        const at = this.idle.indexOf(process);
        if (at >= 0) this.idle.splice(at, 1);
        const timer = this.idleTimers.get(process);
        if (timer !== undefined) clearTimeout(timer);
        this.idleTimers.delete(process);
        this.options.onProcessEvent?.({ kind: 'exited', pid: process.pid, detail: exit.killedFor ?? (exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`) });
        this.refill();
      };
      return process;
    } finally {
      this.starting--;
    }
  }

  /**
   * The script a process runs under bubblewrap, which holds no file of this package: the worker
   * bundled into one file, or a custom `workerEntry` as it is (it must then be self-contained).
   */
  private workerForSandbox(): Promise<{ name: string; source: Uint8Array }> {
    const { workerEntry } = this.options;
    this.sandboxWorker ??= (
      workerEntry === undefined ? resolveWorkerSource().then((source) => ({ name: 'worker.mjs', source })) : Promise.resolve({ name: basename(workerEntry), source: readFileSync(workerEntry) })
    ).catch((err: unknown) => {
      this.sandboxWorker = undefined;
      throw err;
    });
    return this.sandboxWorker;
  }
}
