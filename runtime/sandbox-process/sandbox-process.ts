/**
 * One supervised sandbox process: spawned with an empty environment in an empty directory,
 * spoken to over two pipes of length-prefixed frames (fd 3 host -> child, fd 4 child -> host),
 * measured from `/proc` (resident memory and CPU time, never trusting what the child says about
 * itself), and killed with SIGKILL. Everything it sends is untrusted: a frame over the cap or
 * not JSON kills it.
 *
 * Under the OS sandbox the child is bubblewrap, which starts the worker in its namespaces (see
 * runtime/os-sandbox): bwrap (outside) -> bwrap's init (pid 1 inside) -> the worker (pid 2).
 * bwrap reports its init's pid on an info fd, and the worker is that init's only child; the
 * worker's pid is what {@link SandboxProcess.pid} names and what /proc is read by. Killing bwrap
 * kills the rest (`--die-with-parent`, and a PID namespace ends with its init), and bwrap exits
 * with the worker's status (128 + n for a signal n, translated back here).
 */
import { spawn, type ChildProcess, type StdioPipe } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readSync, writeSync } from 'node:fs';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { openTaskCgroup, type BubblewrapSandbox, type OsSandboxKind } from '../os-sandbox/index.js';
import { encodeFrame, FrameReader } from './frames.js';
import { readWorkerMessage, type HostToWorker, type WorkerToHost } from './wire.js';
import { errorText } from '../../tools/index.js';

/** How a sandbox process ended. */
export interface SandboxExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Why the host killed it, if it did. */
  readonly killedFor: string | undefined;
  /** The last lines the process wrote to stderr (V8 prints fatal errors there). */
  readonly stderrTail: string;
}

/** Options for {@link SandboxProcess.spawn}. */
export interface SandboxSpawnOptions {
  readonly entry: string;
  readonly cwd: string;
  /** `memoryLimit` of the worker's warm isolate. */
  readonly memoryMb: number;
  /** Clean runs of its group one isolate of the worker serves (the worker's `isolateRuns`). */
  readonly isolateRuns?: number;
  /** Runs the worker holds at once, each in its own context (`runsPerProcess`). Default 1. */
  readonly slots?: number;
  readonly startTimeoutMs: number;
  /** Start it under bubblewrap, running this self-contained copy of the worker script instead of `entry`. */
  readonly osSandbox?: { readonly sandbox: BubblewrapSandbox; readonly worker: { readonly name: string; readonly source: Uint8Array } };
}

const STDERR_TAIL_BYTES = 4096;
/** Longest wait, after a process exited, for the rest of its stderr. */
const STDERR_DRAIN_MS = 250;
const PAGE_BYTES = 4096;
const CLOCK_TICK_MS = 10;
/** `/proc/<pid>/stat` is one line of ~300 bytes; its fields past the name are what is read. */
const STAT_BYTES = 1024;
const statBuffer = Buffer.allocUnsafe(STAT_BYTES);

/** What one read of `/proc/<pid>/stat` says (see {@link SandboxProcess.usage}). */
export interface ProcessUsage {
  /** Resident memory, MB. */
  readonly rssMb: number;
  /** User + system CPU time, ms. */
  readonly cpuMs: number;
}

/** One run's hooks in a process (process-run.ts): its messages, and the process's exit. */
export interface RunRoute {
  message(message: WorkerToHost): void;
  exit(exit: SandboxExit): void;
}

/** `results` frames up to this size wait for the end of the event loop's turn and share a write (see {@link SandboxProcess.send}). */
const COALESCE_MAX_BYTES = 16 * 1024;

/** A child process running the sandbox worker. */
export class SandboxProcess {
  /**
   * Receives each checked message from the child that is for no run attached here ({@link attach}):
   * `ready` while starting, then anything else (the runner's stray handler).
   */
  onMessage: ((message: WorkerToHost) => void) | undefined;
  /** Called once when the process has exited or been killed (the pool's hook), after the runs' own. */
  onExit: ((exit: SandboxExit) => void) | undefined;
  /** Runs started in this process. */
  runs = 0;
  /** The group this process serves, set by the pool as its first run takes it; never changed after. */
  group: string | undefined;
  /** Runs in it now: its slots in use (the pool's count). */
  active = 0;
  /** Runs in it whose children wait for a person now (the runner's fairness count). */
  waitingRuns = 0;
  /** Set when it takes no new run: it is killed as its last run ends (the reason). */
  retiring: string | undefined;
  /**
   * Runs that were sent outcomes and have sent nothing since: each may be computing in a slice.
   * A run alone in its process computes its outcome slices on the process's own thread (see
   * worker.ts), so while it does, a run that joined it would not even be read: the pool gives
   * such a process no new run ({@link soloSlice}) until the slice's end shows (any message of
   * the run: its calls, a log line, `idle`, its end).
   */
  private readonly slicing = new Set<number>();
  /** The pool's hook: a run of this process ended its slice (a waiting run of the group may join now). */
  onSliceEnd: (() => void) | undefined;
  /** The runs attached, by run id; a finished run stays a while to hear what comes late. */
  private readonly routes = new Map<number, RunRoute>();
  /** Resident memory (MB) when the process said `ready`: what a fresh process holds. */
  startRssMb: number | undefined;
  private exited: SandboxExit | undefined;
  private killedFor: string | undefined;
  private stderrTail = '';
  private frameCapBytes = 64 * 1024;
  /** CPU time read when the process last went idle; see {@link takeStartCpuMs}. */
  private idleCpuMs: number | undefined;
  private readonly input: Writable;
  /**
   * The host end of the frame pipe to the child, written directly (see {@link send}); undefined
   * where the stream exposes no descriptor (then every frame goes through the stream).
   */
  private readonly inputFd: number | undefined;
  /** Small `results` frames of this turn of the event loop, written together at its end (see {@link send}). */
  private pendingFrames: Buffer[] = [];
  private flushScheduled = false;
  /** Writes to the pipe so far (for tests and benchmarks: frames coalesce). */
  writes = 0;
  /**
   * `/proc/<pid>/stat`, opened once and re-read from offset 0 (see {@link usage}); null once it
   * could not be opened (no /proc) or the process exited.
   */
  private statFd: number | null | undefined;
  /** The worker's pid when bubblewrap started it (bwrap's own pid is `child.pid`). */
  private sandboxedPid: number | undefined;
  /** The pid of bwrap's init in the sandbox (the worker's parent), from bwrap's info fd. */
  private sandboxInitPid: number | undefined;

  private constructor(
    private readonly child: ChildProcess,
    /** What confines the worker. */
    readonly osSandbox: OsSandboxKind,
  ) {
    const stdio = child.stdio as unknown as [null, null, Readable, Writable, Readable];
    this.input = stdio[3];
    this.input.on('error', () => undefined);
    // A libuv pipe's descriptor (non-blocking); Node documents no accessor, so it is read where
    // it is and checked (absent or negative on Windows, then the stream is used).
    const fd = (stdio[3] as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
    this.inputFd = typeof fd === 'number' && Number.isSafeInteger(fd) && fd >= 0 ? fd : undefined;
    stdio[2].on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    // One read may hold several frames (the worker writes a turn's frames together): once the
    // process is killed, the rest of them are dropped like any later read.
    const reader = new FrameReader(
      () => this.frameCapBytes,
      (message) => {
        if (this.dead) return;
        const checked = readWorkerMessage(message);
        const route = checked.t === 'ready' ? undefined : this.routes.get(checked.runId);
        if (route === undefined) return this.onMessage?.(checked);
        if (checked.t !== 'ready' && this.slicing.delete(checked.runId)) this.onSliceEnd?.();
        // (`idle` says only that: the run itself has nothing to hear.)
        if (checked.t !== 'idle') route.message(checked);
      },
    );
    stdio[4].on('data', (chunk: Buffer) => {
      if (this.exited !== undefined || this.killedFor !== undefined) return;
      try {
        reader.push(chunk);
      } catch (err) {
        this.kill(`it sent a malformed message (${errorText(err)})`);
      }
    });
    stdio[4].on('error', () => undefined);
    child.on('exit', (exitCode, exitSignal) => {
      let [code, signal] = [exitCode, exitSignal];
      // bwrap reports a worker killed by signal n as exit code 128 + n.
      const bySignal = osSandbox === 'bubblewrap' && code !== null && code > 128 ? signalName(code - 128) : undefined;
      if (bySignal !== undefined) [code, signal] = [null, bySignal];
      this.exited = { code, signal, killedFor: this.killedFor, stderrTail: this.stderrTail };
      this.closeStat();
      // 'exit' can come before the last of stderr is read, and V8's fatal-error lines (which tell
      // an out-of-memory death from a crash) are the last thing a dying worker writes: report the
      // exit once stderr ended, or after STDERR_DRAIN_MS should something still hold the pipe.
      let reported = false;
      const report = () => {
        if (reported) return;
        reported = true;
        clearTimeout(timer);
        const exit: SandboxExit = { code, signal, killedFor: this.killedFor, stderrTail: this.stderrTail };
        this.exited = exit;
        const routes = [...this.routes.values()];
        this.routes.clear();
        for (const route of routes) route.exit(exit);
        this.onExit?.(exit);
      };
      const stderr = stdio[2];
      const timer = setTimeout(report, STDERR_DRAIN_MS);
      if (stderr.readableEnded || stderr.destroyed) report();
      else {
        stderr.once('end', report);
        stderr.once('close', report);
      }
    });
  }

  /** Starts a sandbox process and waits for its `ready` message (and, under bubblewrap, the worker's pid). */
  static spawn(options: SandboxSpawnOptions): Promise<SandboxProcess> {
    // A 1 MB young generation for the worker's own heap (frames, call batches): it otherwise grows
    // to several MB per process under a run's traffic. Measured (bench/README.md): ~1 MB less
    // resident memory per run with four slots, no change in the runs' CPU; programs' isolates
    // size their own heaps.
    const nodeArgs = (script: string) => ['--no-node-snapshot', '--max-semi-space-size=1', script, String(options.memoryMb), String(options.isolateRuns ?? 1), String(options.slots ?? 1)];
    const stdio: ('ignore' | StdioPipe)[] = ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'];
    if (options.osSandbox === undefined) {
      const child = spawn(process.execPath, nodeArgs(options.entry), { cwd: options.cwd, env: {}, stdio, windowsHide: true });
      return SandboxProcess.started(new SandboxProcess(child, 'none'), child, options, Promise.resolve());
    }
    const { sandbox, worker } = options.osSandbox;
    const launch = sandbox.launch({ ...worker, nodeArgs });
    for (const fd of [launch.infoFd, ...launch.feeds.keys()]) {
      while (stdio.length <= fd) stdio.push('ignore');
      stdio[fd] = 'pipe';
    }
    // A task limit and a memory bound that counts shared pages, where a cgroup can be made here.
    // Each slot holds an isolate of its own: the bound grows with them.
    const cgroup = openTaskCgroup({ memoryMb: options.memoryMb * Math.max(1, options.slots ?? 1), user: launch.uid !== undefined && launch.gid !== undefined ? { uid: launch.uid, gid: launch.gid } : undefined });
    const command = cgroup ? cgroup.wrap(launch.file, launch.args) : { file: launch.file, args: [...launch.args] };
    const child = spawn(command.file, command.args, {
      cwd: options.cwd,
      env: {},
      stdio,
      windowsHide: true,
      ...(launch.uid !== undefined && launch.gid !== undefined ? { uid: launch.uid, gid: launch.gid } : {}),
    });
    if (cgroup) {
      // bwrap's exit ends its init and the worker (--die-with-parent); remove() retries while they go
      child.once('exit', () => cgroup.remove());
      child.once('error', () => cgroup.remove());
    }
    const sandboxed = new SandboxProcess(child, 'bubblewrap');
    for (const [fd, bytes] of launch.feeds) {
      const feed = child.stdio[fd] as Writable | null;
      feed?.on('error', () => undefined);
      feed?.end(bytes);
    }
    return SandboxProcess.started(sandboxed, child, options, sandboxed.readSandboxedPid(child, child.stdio[launch.infoFd] as Readable | null));
  }

  /**
   * Resolves once bwrap wrote `{ "child-pid": N, ... }` to its info fd; rejects when the process
   * exits first (a start that is still waiting for `ready` fails with the exit's own account,
   * which names bwrap's error). A process that does not report its pid is killed.
   */
  private readSandboxedPid(child: ChildProcess, info: Readable | null): Promise<void> {
    return new Promise((resolve, reject) => {
      child.once('exit', () => reject(new Error('bubblewrap did not report the pid of the sandboxed worker')));
      const fail = () => {
        const timer = setTimeout(() => this.kill('bubblewrap did not report the pid of the sandboxed worker'), 1000);
        timer.unref?.();
      };
      if (info === null) return fail();
      let text = '';
      info.setEncoding('utf8');
      info.on('data', (chunk: string) => {
        text = (text + chunk).slice(0, 4096);
      });
      info.on('error', () => undefined);
      info.on('end', () => {
        let pid: unknown;
        try {
          pid = (JSON.parse(text) as Record<string, unknown>)['child-pid'];
        } catch {
          // handled below
        }
        if (typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 1) {
          this.sandboxInitPid = pid;
          resolve();
        } else fail();
      });
    });
  }

  private static started(sandbox: SandboxProcess, child: ChildProcess, options: SandboxSpawnOptions, pidKnown: Promise<void>): Promise<SandboxProcess> {
    const ready = new Promise<SandboxProcess>((resolve, reject) => {
      const timer = setTimeout(() => {
        sandbox.kill(`it did not start within ${options.startTimeoutMs} ms`);
        reject(new Error(`the sandbox process did not start within ${options.startTimeoutMs} ms`));
      }, options.startTimeoutMs);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      sandbox.onExit = (exit) => {
        clearTimeout(timer);
        reject(new Error(`the sandbox process exited while starting (${exit.killedFor ?? describeExit(exit)})`));
      };
      sandbox.onMessage = (message) => {
        clearTimeout(timer);
        sandbox.onMessage = undefined;
        sandbox.onExit = undefined;
        if (message.t === 'ready') resolve(sandbox);
        else {
          sandbox.kill('its first message was not "ready"');
          reject(new Error('the sandbox process sent an unexpected first message'));
        }
      };
    });
    return Promise.all([ready, pidKnown]).then(
      () => {
        if (sandbox.osSandbox === 'bubblewrap') {
          // The worker said `ready`, so it exists: bwrap's init has forked it.
          sandbox.sandboxedPid = sandbox.sandboxInitPid === undefined ? undefined : onlyChildOf(sandbox.sandboxInitPid);
          if (sandbox.sandboxedPid === undefined) {
            sandbox.kill('the sandboxed worker was not found under bubblewrap');
            throw new Error('the sandboxed worker was not found under bubblewrap\'s init');
          }
        }
        sandbox.startRssMb = sandbox.rssMb();
        return sandbox;
      },
      (err: unknown) => {
        sandbox.kill('it did not start');
        throw err;
      },
    );
  }

  /** Routes the messages of run `runId` to `route`, and tells it of the process's exit. */
  attach(runId: number, route: RunRoute): void {
    this.routes.set(runId, route);
  }

  /** Stops routing to run `runId` (its later messages go to {@link onMessage}). */
  detach(runId: number): void {
    this.routes.delete(runId);
    if (this.slicing.delete(runId)) this.onSliceEnd?.();
  }

  /**
   * Whether the one run in this process may be computing on the process's own thread now (it
   * was sent outcomes and has answered nothing since), so that a run sent here would wait for
   * that slice to end. False with no run or several (their slices run on threads of their own).
   */
  get soloSlice(): boolean {
    return this.active === 1 && this.slicing.size > 0;
  }

  /** Process id of the worker (under bubblewrap: the sandboxed worker's, not bwrap's). */
  get pid(): number | undefined {
    return this.osSandbox === 'bubblewrap' ? this.sandboxedPid : this.child.pid;
  }

  /** True once the process exited or was killed. */
  get dead(): boolean {
    return this.exited !== undefined || this.killedFor !== undefined;
  }

  /**
   * Whether this process keeps the host's event loop alive: yes while it runs a program, no
   * while idle in the pool (a host that is done exits, and its idle processes then see their
   * input close and end themselves).
   */
  setBusy(busy: boolean): void {
    // stderr and the frame pipes only: bwrap's info and data pipes are closed by now, and
    // `unref` of a closed socket waits for a 'connect' that never comes (a listener per call).
    const stdio = this.child.stdio as unknown as (({ ref?: () => void; unref?: () => void; destroyed?: boolean }) | null)[];
    for (const stream of stdio.slice(0, 5)) {
      if (stream === null || stream.destroyed) continue;
      if (busy) stream.ref?.();
      else stream.unref?.();
    }
    if (busy) this.child.ref();
    else this.child.unref();
  }

  /** Largest frame the child may send now. */
  get frameCap(): number {
    return this.frameCapBytes;
  }

  /** Sets the largest frame the child may send (per run from its limits). */
  setFrameCap(bytes: number): void {
    this.frameCapBytes = bytes;
  }

  /**
   * Sends one message (dropped if the process is gone). Small `results` frames (outcomes of
   * calls) wait for the end of this turn of the event loop and go out in one write with those
   * of the other runs in this process: each write wakes the worker, and a wake-up costs both
   * processes ~50 µs of CPU on a VM whose other vCPU idles (measured: 16 runs of one agent in
   * four processes, 65-81 runs per CPU-second without, 76-95 with). Any other message, or a large
   * frame, first writes what waits, so frames stay in order.
   */
  send(message: HostToWorker): void {
    if (this.dead) return;
    if (message.t === 'results' && this.routes.has(message.runId)) this.slicing.add(message.runId);
    const frame = encodeFrame(message);
    if (message.t === 'results' && frame.length <= COALESCE_MAX_BYTES) {
      this.pendingFrames.push(frame);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flushPending);
      }
      return;
    }
    this.flushPending();
    this.write(frame);
  }

  private readonly flushPending = (): void => {
    this.flushScheduled = false;
    const frames = this.pendingFrames;
    if (frames.length === 0) return;
    this.pendingFrames = [];
    if (!this.dead) this.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
  };

  /**
   * Straight to the pipe when nothing is queued before it: a stream write costs the host several
   * µs more per frame (a write request, its callback, the Writable's bookkeeping) for the same one
   * syscall. What the pipe does not take now (it is non-blocking: a full pipe takes part or
   * nothing) goes through the stream, and so does everything after it until the stream has
   * drained, so frames stay in order.
   */
  private write(frame: Buffer): void {
    this.writes++;
    if (this.inputFd === undefined || this.input.writableLength > 0) {
      this.input.write(frame);
      return;
    }
    let written = 0;
    try {
      written = writeSync(this.inputFd, frame);
    } catch (err) {
      // EAGAIN: the pipe is full, the stream waits for room. Anything else (EPIPE: the process is
      // gone) is what the stream's write would have met too: its 'exit' follows.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
    if (written < frame.length) this.input.write(written === 0 ? frame : frame.subarray(written));
  }

  /**
   * While more than `bytes` of frames wait for the pipe, a promise of whether they were all
   * written within `maxWaitMs` (false: time ran out, or the pipe closed); otherwise undefined.
   * A large result's walk waits on it between slices (result-text-stream.ts): the pipe takes only
   * its capacity (~64-200 KB) per turn of a busy event loop, so without it the text piles up here
   * while the worker, which would parse it meanwhile, waits for it.
   */
  writeBacklog(bytes: number, maxWaitMs: number): Promise<boolean> | undefined {
    const { input } = this;
    if (this.dead || input.destroyed || input.writableLength <= bytes) return undefined;
    return new Promise<boolean>((resolve) => {
      const done = (drained: boolean) => {
        clearTimeout(timer);
        input.off('drain', onDrain);
        input.off('close', onClose);
        resolve(drained);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(onClose, maxWaitMs);
      input.once('drain', onDrain);
      input.once('close', onClose);
    });
  }

  /** SIGKILLs the process, recording why. */
  kill(reason: string): void {
    if (this.exited !== undefined) return;
    this.killedFor ??= reason;
    try {
      this.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }

  /**
   * Reads the CPU time once the caller's turn is over: the pool calls this as the process goes
   * idle, so that a run's start does not wait for /proc (0.1-0.2 ms).
   */
  noteIdle(): void {
    this.idleCpuMs = undefined;
    setImmediate(() => {
      if (!this.dead) this.idleCpuMs = this.cpuMs();
    }).unref();
  }

  /**
   * CPU time to count a new run's use from: the reading taken when the process went idle (it
   * then also counts the worker's clean-up of its previous run, a few ms), else one read now.
   */
  takeStartCpuMs(): number | undefined {
    const reading = this.idleCpuMs ?? this.cpuMs();
    this.idleCpuMs = undefined;
    return reading;
  }

  /**
   * Resident memory and CPU time from one read of `/proc/<pid>/stat` (never from what the child
   * says), or undefined where /proc is not available or the process is gone. The file is opened
   * once and re-read from offset 0 (the kernel writes it anew on each read): a supervision tick
   * of a busy process used to open, read and close both `stat` and `statm` (36 µs of the host's
   * time, measured), this is one `pread` (6 µs).
   */
  usage(): ProcessUsage | undefined {
    const fd = this.openStat();
    if (fd === undefined) return undefined;
    let text: string;
    try {
      text = statBuffer.toString('latin1', 0, readSync(fd, statBuffer, 0, STAT_BYTES, 0));
    } catch {
      return undefined;
    }
    // The name (field 2) is in parentheses and may hold anything: count from the last ')'.
    // fields[0] is the state (field 3); utime, stime are fields 14, 15; rss (pages) field 24.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ', 22);
    const rssPages = Number(fields[21]);
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (!Number.isFinite(rssPages) || !Number.isFinite(ticks)) return undefined;
    return { rssMb: (rssPages * PAGE_BYTES) / (1024 * 1024), cpuMs: ticks * CLOCK_TICK_MS };
  }

  /** Resident memory in MB from /proc, or undefined where /proc is not available. */
  rssMb(): number | undefined {
    return this.usage()?.rssMb;
  }

  /** How much more resident memory (MB) the process holds than when it started; 0 where /proc is not available. */
  grownMb(): number {
    const now = this.rssMb();
    return now === undefined || this.startRssMb === undefined ? 0 : now - this.startRssMb;
  }

  /** User + system CPU time in ms from /proc, or undefined. */
  cpuMs(): number | undefined {
    return this.usage()?.cpuMs;
  }

  /** The descriptor of `/proc/<pid>/stat`, opened on first use once the pid is known. */
  private openStat(): number | undefined {
    if (this.statFd === undefined) {
      const pid = this.pid;
      if (pid === undefined || this.exited !== undefined) return undefined;
      try {
        this.statFd = openSync(`/proc/${pid}/stat`, 'r');
      } catch {
        this.statFd = null;
      }
    }
    return this.statFd ?? undefined;
  }

  private closeStat(): void {
    if (typeof this.statFd === 'number') {
      try {
        closeSync(this.statFd);
      } catch {
        // already closed
      }
    }
    this.statFd = null;
  }
}

/** The one child process of `pid`, from /proc (`task/<pid>/children`, else a scan of parent pids). */
function onlyChildOf(pid: number): number | undefined {
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    // a kernel without CONFIG_PROC_CHILDREN
    children = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((entry) => {
        try {
          return Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]) === pid;
        } catch {
          return false;
        }
      })
      .map(Number);
  }
  return children.length === 1 && Number.isSafeInteger(children[0]) ? children[0] : undefined;
}

// By number, the first name of each (SIGABRT, not its alias SIGIOT).
const SIGNAL_NAMES = new Map<number, NodeJS.Signals>();
for (const [name, n] of Object.entries(constants.signals)) if (!SIGNAL_NAMES.has(n)) SIGNAL_NAMES.set(n, name as NodeJS.Signals);

function signalName(n: number): NodeJS.Signals | undefined {
  return SIGNAL_NAMES.get(n);
}

/** A readable account of how a process ended. */
export function describeExit(exit: SandboxExit): string {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  const line = exit.stderrTail
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at ') && !/^\d+: 0x/.test(l) && !l.startsWith('----') && !l.startsWith('<---'))
    .slice(-2)
    .join(' | ')
    .slice(0, 300);
  return line ? `${how}: ${line}` : how;
}
