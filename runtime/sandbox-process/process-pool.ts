/**
 * A small pool of pre-started sandbox processes. A run takes an idle process (or starts one, up
 * to `maxProcesses`, or waits its turn), and gives it back when its run ended cleanly; a process
 * that passed a limit, crashed, misbehaved or served `maxRunsPerProcess` runs is killed instead,
 * and the pool starts a replacement in the background so the next run finds a warm one.
 *
 * A process that kept memory from its runs is not handed out either: the allocator keeps much
 * of what a heavy run freed (64 parallel 1 MB echoes left a worker at 166 MB, from 48 MB), and
 * the next run's `rssMb` counts the whole process, so the same program passed and failed on
 * alternate runs. A run takes a process only while it holds at most `maxGrowthMb` more than
 * it did when it started; one grown past that is replaced.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  readonly memoryMb: number;
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

/** The pool; `acquire` hands out one process per run. */
export class ProcessPool {
  private readonly idle: SandboxProcess[] = [];
  private readonly alive = new Set<SandboxProcess>();
  private starting = 0;
  private readonly waiters: Waiter[] = [];
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
   * An idle process, a new one, or the next one released, holding at most `maxGrowthMb` more
   * resident memory than when it started (see the file note). Rejects when the pool is closed or
   * a start fails.
   */
  async acquire(signal: AbortSignal, maxGrowthMb = Number.POSITIVE_INFINITY): Promise<SandboxProcess> {
    if (this.closed) throw new Error('the process runner is closed');
    let process: SandboxProcess | undefined;
    while ((process = this.idle.shift()) !== undefined && (process.dead || this.retireIfGrown(process, maxGrowthMb)));
    if (process !== undefined) {
      process.setBusy(true);
      this.refill();
      return process;
    }
    if (this.alive.size + this.starting < this.options.maxProcesses) {
      const started = await this.start();
      this.refill();
      return started;
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        maxGrowthMb,
        resolve: (p) => {
          signal.removeEventListener('abort', onAbort);
          resolve(p);
        },
        reject,
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal.reason ?? new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
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
      waiter.resolve(process);
    } else {
      process.setBusy(false);
      process.noteIdle();
      this.idle.push(process);
    }
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
    }
  }

  /** Kills every process and fails waiting runs. */
  close(): void {
    this.closed = true;
    for (const process of this.alive) process.kill('the runner closed');
    this.idle.length = 0;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('the process runner is closed'));
    if (this.cwd !== undefined) rmSync(this.cwd, { recursive: true, force: true });
  }

  private refill(): void {
    if (this.closed || this.idle.length + this.starting >= this.options.size + this.waiters.length) return;
    if (this.alive.size + this.starting >= this.options.maxProcesses) return;
    this.start().then(
      (process) => this.release(process),
      () => undefined,
    );
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
