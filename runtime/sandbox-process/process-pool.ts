/**
 * An elastic pool of agent-affine sandbox processes (docs/run-life.md "Groups, slots and
 * isolates"). A process serves one group for its life (run_code's tool instance plus the run's
 * agent: `RunRequest.group`), and holds up to `slots` of its runs at once; runs without a group
 * share processes among themselves, one at a time, as before groups existed. A run takes, in
 * this order: a free slot of a live process of its group (the fullest first, so the rest can go
 * idle), an idle spare (which becomes its group's), or waits for whichever comes first, a slot
 * its group frees or a process the pool starts for it (up to `maxProcesses`, and only while the
 * machine has memory to spare). A process is started only when every slot of the group's
 * processes is taken; at the cap, an idle process of another group is stopped to make room.
 * `size` spares (no group yet) are kept warm; a group's process idle for `idleMs` is stopped.
 * A process that passed a limit, crashed, misbehaved or served `maxRunsPerProcess` runs per
 * slot is killed (once its other runs ended, for the last), and the pool starts a replacement
 * in the background. A process's fault fails only its own runs, all of one group.
 *
 * `strict` (`isolation: { strict: true }`): one run in a process at a time and a fresh isolate
 * per run, as before slots existed; a process still serves one group and runs its runs one
 * after another (a process per run would cost ~0.2 s of CPU each: 46x the direct calls for 16
 * short programs on two cores, where this is ~4x).
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
import type { WorkerToHost } from './wire.js';
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
  /** Runs of its group a process holds at once (`runsPerProcess`; 1: one at a time). */
  readonly slots: number;
  /** One run in a process at a time (`isolation: { strict: true }`; the runner also makes every isolate fresh). */
  readonly strict?: boolean;
  readonly startTimeoutMs: number;
  /** Runs a process serves, per slot, before it is replaced. */
  readonly maxRunsPerProcess: number;
  /** Worker script; resolved automatically when absent. */
  readonly workerEntry?: string;
  /** Start processes under bubblewrap, or not. */
  readonly osSandbox: BubblewrapSandbox | NoOsSandbox;
  /** Observes process life: started, killed, exited. */
  readonly onProcessEvent?: (event: ProcessEvent) => void;
  /**
   * A process that holds runs sent a message for none of them (a call for another run id, say):
   * for the runner to report. (One that holds no run and sends anything is killed.)
   */
  readonly onForeignMessage?: (message: WorkerToHost) => void;
}

/** The group of runs without one: they share processes, one run at a time. */
const SHARED = '\u0000shared';

/** A process as the pool's introspection shows it (tests, logs). */
export interface PooledProcess {
  readonly pid: number | undefined;
  /** The group it serves; undefined for a spare. */
  readonly group: string | undefined;
  /** Runs in it now. */
  readonly active: number;
  /** Runs it served. */
  readonly runs: number;
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
  /** The run's group (SHARED for a run without one). */
  readonly group: string;
  /** Waiting a moment for a slot whose process's lone run is in a slice: no process is started for it meanwhile. */
  deferred: boolean;
  /** Its queue bound is armed (it was queued: no process could be started for it then). */
  armed: boolean;
  /** Lets go of the queue bound: a process is being started for it (its start timeout bounds it). */
  disarm(): void;
  readonly maxGrowthMb: number;
  readonly resolve: (process: SandboxProcess) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Processes started at once at most: a start is 0.2-0.4 s of CPU, and more starts in parallel
 * than cores only slow each other down (24 at once on 2 loaded vCPUs passed their 15 s start
 * timeout); meanwhile runs take slots others release.
 */
const MAX_STARTING = Math.min(4, Math.max(1, availableParallelism()));

/** How long a run waits for a slot whose process's lone run is in a slice before it takes a spare or has a process started (ms). */
const SOLO_SLICE_WAIT_MS = 20;

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

/** The pool; `acquire` hands out a slot of a process per run, `release` gives it back. */
export class ProcessPool {
  /** Started processes without a group yet, ready for any. */
  private readonly spares: SandboxProcess[] = [];
  private readonly alive = new Set<SandboxProcess>();
  private starting = 0;
  private readonly waiters: Waiter[] = [];
  /** Timers that stop an idle process (a spare above `size`, or a group's process). */
  private readonly idleTimers = new Map<SandboxProcess, ReturnType<typeof setTimeout>>();
  /** When each process last went idle (for stopping the longest idle first). */
  private readonly idleSince = new Map<SandboxProcess, number>();
  private closed = false;
  private cwd: string | undefined;
  private sandboxWorker: Promise<{ name: string; source: Uint8Array }> | undefined;

  constructor(private readonly options: ProcessPoolOptions) {}

  /** Spares (processes without a group) ready now. */
  get ready(): number {
    return this.spares.length;
  }

  /** Processes alive now. */
  get size(): number {
    return this.alive.size;
  }

  /** Runs one process of `group` holds at once. */
  slotsOf(group: string | undefined): number {
    return this.options.strict === true || group === undefined || group === SHARED ? 1 : Math.max(1, this.options.slots);
  }

  /** Every live process: its pid, group and runs (tests, logs). */
  processes(): PooledProcess[] {
    return [...this.alive].filter((p) => !p.dead).map((p) => ({ pid: p.pid, group: p.group === undefined || p.group === SHARED ? undefined : p.group.slice(2), active: p.active, runs: p.runs }));
  }

  /** Whether a run of `group` would get a slot at once (a free slot of its group's, or a spare). */
  hasRoomFor(group: string | undefined): boolean {
    return this.freeSlotOf(keyOf(group)) !== undefined || this.spares.some((p) => !p.dead);
  }

  /** Live processes of `group` and whether each has runs, for the runner's fairness checks. */
  processesOf(group: string | undefined): SandboxProcess[] {
    const key = keyOf(group);
    return [...this.alive].filter((p) => !p.dead && p.group === key);
  }

  /** Distinct groups with a live process or a waiting run. */
  groupsInUse(): number {
    const groups = new Set<string>();
    for (const p of this.alive) if (!p.dead && p.group !== undefined && p.active > 0) groups.add(p.group);
    for (const w of this.waiters) groups.add(w.group);
    return groups.size;
  }

  get maxProcesses(): number {
    return this.options.maxProcesses;
  }

  /**
   * A slot for a run of `group`: a free one of a live process of the group, else a spare, else
   * the first free one (released by a run of the group, or of a process started for it),
   * holding at most `maxGrowthMb` more resident memory than when it started if it has no run
   * in it (see the file note). Rejects when the pool is closed, when a start fails and no
   * process is left to wait for, on `signal`, and on `queueLimit` only while the run is queued:
   * when the pool could start no process for it (at `maxProcesses`, or short of memory). A run
   * a process is being started for is bounded by the start's own timeout instead, as a cold
   * start always was.
   */
  async acquire(signal: AbortSignal, options: { readonly group?: string; readonly queueLimit?: AbortSignal; readonly maxGrowthMb?: number } = {}): Promise<SandboxProcess> {
    const { queueLimit, maxGrowthMb = Number.POSITIVE_INFINITY } = options;
    const group = keyOf(options.group);
    if (this.closed) throw new Error('the process runner is closed');
    const slot = this.freeSlotOf(group, maxGrowthMb);
    if (slot !== undefined) {
      this.take(slot, group);
      return slot;
    }
    // A process of the group with a free slot whose lone run is in a slice on its thread: that
    // slice is usually over in well under a millisecond, so wait for it a little before taking
    // a spare or starting a process (a CPU-bound slice is then passed by).
    const slicing = this.slicingSlotOf(group);
    if (!slicing) {
      const spare = this.takeSpare(maxGrowthMb);
      if (spare !== undefined) {
        this.take(spare, group);
        this.refill();
        return spare;
      }
    }
    return new Promise<SandboxProcess>((resolve, reject) => {
      const unlisten = () => {
        signal.removeEventListener('abort', onAbort);
        queueLimit?.removeEventListener('abort', onQueueLimit);
      };
      const waiter: Waiter = {
        group,
        deferred: slicing,
        armed: false,
        disarm: () => {
          waiter.armed = false;
          queueLimit?.removeEventListener('abort', onQueueLimit);
        },
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
      const queue = () => {
        const blocked = this.grow();
        // Queued only when no process can be started for it (the cap, or memory).
        if (queueLimit !== undefined && blocked) {
          if (queueLimit.aborted) onQueueLimit();
          else {
            waiter.armed = true;
            queueLimit.addEventListener('abort', onQueueLimit, { once: true });
          }
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      if (!waiter.deferred) return queue();
      setTimeout(() => {
        waiter.deferred = false;
        const at = this.waiters.indexOf(waiter);
        if (at < 0 || this.closed) return;
        const spare = this.takeSpare(maxGrowthMb);
        if (spare === undefined) return queue();
        this.waiters.splice(at, 1);
        this.take(spare, group);
        this.refill();
        waiter.resolve(spare);
      }, SOLO_SLICE_WAIT_MS).unref();
    });
  }

  /**
   * A run in `process` ended. `reusable`: cleanly, so its slot may serve its group again;
   * otherwise the process was killed (or is being killed) and the slot goes with it.
   */
  release(process: SandboxProcess, reusable = true): void {
    process.active = Math.max(0, process.active - 1);
    if (process.dead) return;
    if (!reusable) {
      process.kill('its run ended badly');
      return;
    }
    if (this.closed) return process.kill('the runner closed');
    const slots = this.slotsOf(process.group);
    if (process.retiring === undefined && process.runs >= this.options.maxRunsPerProcess * slots) process.retiring = `it served ${process.runs} runs`;
    if (process.retiring !== undefined) {
      if (process.active === 0) process.kill(process.retiring);
      return;
    }
    this.offer(process);
  }

  /**
   * A process with a free slot (a started one, or one a run left): to the first waiting run of
   * its group (more, while slots are free), a spare to the first waiting run of any group;
   * otherwise it idles. A process of a group nobody waits for is stopped at once when another
   * group's run waits for room the cap denies it.
   */
  private offer(process: SandboxProcess): void {
    // (A spare has no group until the first waiter takes it: its slots are counted after.)
    // (A lone run computing on the process's thread would hold a run sent now: see SandboxProcess.soloSlice.)
    for (let i = 0; i < this.waiters.length && !process.dead && !process.soloSlice && (process.group === undefined || process.active < this.slotsOf(process.group)); ) {
      const waiter = this.waiters[i]!;
      if (process.group !== undefined && waiter.group !== process.group) {
        i++;
        continue;
      }
      // Memory an earlier run left counts against the next run's rssMb (see the file note).
      if (process.active === 0 && this.retireIfGrown(process, waiter.maxGrowthMb)) return;
      this.waiters.splice(i, 1);
      this.take(process, waiter.group);
      waiter.resolve(process);
    }
    if (process.dead || process.active > 0) return;
    if (process.group === undefined) {
      process.setBusy(false);
      process.noteIdle();
      this.spares.push(process);
      this.idleSince.set(process, performance.now());
      this.armIdleTimer(process);
      return;
    }
    process.setBusy(false);
    process.noteIdle();
    this.idleSince.set(process, performance.now());
    this.armIdleTimer(process);
    if (this.waiters.length > 0) this.grow();
  }

  /** A live spare within `maxGrowthMb` (others found on the way are dropped or retired), taken off the list. */
  private takeSpare(maxGrowthMb: number): SandboxProcess | undefined {
    let spare: SandboxProcess | undefined;
    while ((spare = this.spares.shift()) !== undefined && (spare.dead || this.retireIfGrown(spare, maxGrowthMb)));
    return spare;
  }

  /** Whether a process of `group` has a slot free but its lone run is in a slice on its thread. */
  private slicingSlotOf(group: string): boolean {
    const slots = this.slotsOf(group);
    for (const p of this.alive) if (!p.dead && p.group === group && p.retiring === undefined && p.active < slots && p.soloSlice) return true;
    return false;
  }

  /** A process of `group` with a slot free, the fullest first (a process with no run: only within `maxGrowthMb`). */
  private freeSlotOf(group: string, maxGrowthMb = Number.POSITIVE_INFINITY): SandboxProcess | undefined {
    const slots = this.slotsOf(group);
    let best: SandboxProcess | undefined;
    for (const p of this.alive) {
      if (p.dead || p.group !== group || p.retiring !== undefined || p.active >= slots || p.soloSlice) continue;
      if (best === undefined || p.active > best.active) best = p;
    }
    if (best !== undefined && best.active === 0 && this.retireIfGrown(best, maxGrowthMb)) return this.freeSlotOf(group, maxGrowthMb);
    return best;
  }

  /** Gives a slot of `process` to a run of `group` (the process becomes the group's if it was a spare). */
  private take(process: SandboxProcess, group: string): void {
    const timer = this.idleTimers.get(process);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.idleTimers.delete(process);
    }
    this.idleSince.delete(process);
    const at = this.spares.indexOf(process);
    if (at >= 0) this.spares.splice(at, 1);
    process.group ??= group;
    process.active++;
    process.setBusy(true);
  }

  /** Kills a process that holds more than `maxGrowthMb` over its start; true if it did. */
  private retireIfGrown(process: SandboxProcess, maxGrowthMb: number): boolean {
    const grown = process.grownMb();
    if (grown <= maxGrowthMb) return false;
    process.kill(`it kept ${Math.round(grown)} MB of resident memory from its runs`);
    return true;
  }

  /** Resolves once `size` spares are idle (warm-up and benchmarks). */
  async fill(): Promise<void> {
    while (!this.closed && this.spares.length < this.options.size && this.liveCount() + this.starting < this.options.maxProcesses) {
      const process = await this.start();
      this.offer(process);
    }
  }

  /** Kills every process and fails waiting runs. */
  close(): void {
    this.closed = true;
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    for (const process of this.alive) process.kill('the runner closed');
    this.spares.length = 0;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('the process runner is closed'));
    if (this.cwd !== undefined) rmSync(this.cwd, { recursive: true, force: true });
  }

  /** Keeps `size` spares idle or starting, in the background. */
  private refill(): void {
    if (this.closed || this.spares.length + this.starting >= this.options.size + this.demand()) return;
    this.grow();
  }

  /** Processes alive and not being killed. */
  private liveCount(): number {
    let n = 0;
    for (const p of this.alive) if (!p.dead) n++;
    return n;
  }

  /** Processes the waiting runs need started: per group, its waiters over the slots of a process. */
  private demand(): number {
    const byGroup = new Map<string, number>();
    for (const w of this.waiters) if (!w.deferred) byGroup.set(w.group, (byGroup.get(w.group) ?? 0) + 1);
    let needed = 0;
    for (const [group, waiting] of byGroup) needed += Math.ceil(waiting / this.slotsOf(group));
    return needed;
  }

  /**
   * Starts processes in the background while waiting runs need more than are starting, up to
   * `maxProcesses` (stopping idle processes of groups nobody waits for to make room), and
   * beyond the first `size` (at least one) only while memory allows. A started process goes to
   * the first waiting run (and more of its group, while slots are free) or idles as a spare; a
   * start that fails fails the first waiting run when nothing else alive could serve it.
   * Returns whether more were needed than the cap or memory allowed (the runs beyond those
   * starting are then queued).
   */
  private grow(): boolean {
    const { maxProcesses, size, minFreeMb } = this.options;
    const needed = () => this.starting < this.demand() || this.spares.length + this.starting < size;
    while (!this.closed && this.starting < MAX_STARTING && needed()) {
      if (this.liveCount() + this.starting >= maxProcesses && !this.stopIdleOfOtherGroup()) break;
      if (this.liveCount() + this.starting >= Math.max(1, size) && this.freeMb() < minFreeMb) {
        this.stopIdleOfOtherGroup();
        return true;
      }
      this.disarmForStart();
      this.start().then(
        (process) => {
          this.offer(process);
          this.grow();
        },
        (err: unknown) => {
          // Processes alive or starting will serve as many waiting runs; one more than that fails.
          // (No retry here: a start that fails for good would loop; a process's exit or the next run tries again.)
          if (this.liveCount() + this.starting < this.waiters.length) this.waiters.shift()?.reject(err);
        },
      );
    }
    return this.liveCount() + this.starting >= maxProcesses && needed();
  }

  /**
   * A process is being started: the queued runs it will serve (the first queued run's group, up
   * to a process's slots) are bounded by its start from now on, not by their queue bound.
   */
  private disarmForStart(): void {
    const first = this.waiters.find((w) => w.armed);
    if (first === undefined) return;
    let left = this.slotsOf(first.group);
    for (const w of this.waiters) {
      if (left === 0) break;
      if (w.group === first.group && w.armed) {
        w.disarm();
        left--;
      }
    }
  }

  /**
   * Stops the longest-idle process (no run in it) of a group no run waits for, or a spare
   * beyond what waiting runs can use, to make room for another group's run; false if none.
   */
  private stopIdleOfOtherGroup(): boolean {
    const waiting = new Set(this.waiters.map((w) => w.group));
    let victim: SandboxProcess | undefined;
    let since = Number.POSITIVE_INFINITY;
    for (const p of this.alive) {
      if (p.dead || p.active > 0 || p.group === undefined || waiting.has(p.group)) continue;
      const t = this.idleSince.get(p) ?? 0;
      if (t < since) [victim, since] = [p, t];
    }
    if (victim === undefined) return false;
    victim.kill('another group needed its room');
    return true;
  }

  private freeMb(): number {
    return freemem() / (1024 * 1024);
  }

  /** Stops `process` after `idleMs` idle: a group's always, a spare if the pool then still has more than `size`. */
  private armIdleTimer(process: SandboxProcess): void {
    if (this.idleTimers.has(process)) return;
    const timer = setTimeout(() => {
      this.idleTimers.delete(process);
      if (process.active > 0 || process.dead) return;
      if (process.group !== undefined && process.group !== SHARED) return process.kill(`it was idle for ${this.options.idleMs} ms`);
      // Spares, and the processes runs without a group share, are kept up to `size` idle.
      let idle = this.spares.length;
      for (const p of this.alive) if (!p.dead && p.group === SHARED && p.active === 0) idle++;
      if (idle <= this.options.size) return;
      const at = this.spares.indexOf(process);
      if (at >= 0) this.spares.splice(at, 1);
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
      // Its lone run's slice ended: a run of its group that waits may join it now.
      process.onSliceEnd = () => {
        if (!process.dead && process.active > 0 && this.waiters.length > 0) this.offer(process);
      };
      // Messages for no run of its own: while it holds none, anything it sends is hostile.
      process.onMessage = (message) => {
        if (message.t !== 'ready' && process.active > 0) return this.options.onForeignMessage?.(message);
        process.kill(message.t === 'ready' ? 'it sent a second "ready"' : 'it sent a message while it held no run');
      };
      this.options.onProcessEvent?.({ kind: 'started', pid: process.pid, osSandbox: process.osSandbox });
      process.onExit = (exit) => {
        this.alive.delete(process);
        this.idleSince.delete(process);
        const at = this.spares.indexOf(process);
        if (at >= 0) this.spares.splice(at, 1);
        const timer = this.idleTimers.get(process);
        if (timer !== undefined) clearTimeout(timer);
        this.idleTimers.delete(process);
        this.options.onProcessEvent?.({ kind: 'exited', pid: process.pid, detail: exit.killedFor ?? (exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`) });
        this.refill();
        if (this.waiters.length > 0) this.grow();
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

function keyOf(group: string | undefined): string {
  return group === undefined ? SHARED : `g:${group}`;
}
