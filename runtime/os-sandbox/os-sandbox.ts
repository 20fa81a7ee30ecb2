/**
 * Whether sandbox processes start under bubblewrap, decided once per process and bwrap path.
 *
 * The probe runs the real layout (every namespace, the read-only root with the Node binary and
 * its libraries, isolated-vm's package, the seccomp filter) on `node --version` and checks the
 * answer: that proves the kernel allows the namespaces and the root is complete, in ~10 ms,
 * once. On a root host it first tries bubblewrap as `nobody` (uid 65534), so that a process that
 * escaped every namespace would still not be root on the host; where nobody cannot read the
 * files to bind (a checkout under /root), it copies isolated-vm's package to a fresh directory
 * nobody can read and tries again; only where that fails too (the Node binary itself out of
 * nobody's reach) does bubblewrap run as root, its capabilities dropped.
 *
 * Modes: `require` throws {@link OsSandboxUnavailableError} when the probe fails; `auto` (the
 * default) runs processes without the OS sandbox and says so once per process on stderr (a
 * Node warning, `PTC_OS_SANDBOX_UNAVAILABLE`); `off` never probes.
 */
import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { accessSync, closeSync, constants, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { bwrapArgs, bwrapFeatures, missingFlags, type BwrapFeatures } from './bwrap-command.js';
import { describeValue, OsSandboxOptionError, OsSandboxUnavailableError } from './errors.js';
import { prepareSandboxRoot, SANDBOX_DIR, sandboxRoot, stagedForNobody, type SandboxRoot } from './sandbox-root.js';
import { compileSeccompFilter, seccompArch } from './seccomp-filter.js';

/** `auto`: bubblewrap where it works, else without (said once); `require`: never without; `off`: never. */
export type OsSandboxMode = 'auto' | 'require' | 'off';

/** What confines a sandbox process: bubblewrap's namespaces, or nothing beyond the process boundary. */
export type OsSandboxKind = 'bubblewrap' | 'none';

/** Options of {@link resolveOsSandbox}. */
export interface OsSandboxOptions {
  /** Default `auto`. */
  readonly mode?: OsSandboxMode;
  /** The bubblewrap binary (default: `PTC_BWRAP`, else `bwrap` on `PATH`, else /usr/bin/bwrap). */
  readonly bwrapPath?: string;
}

/** A working bubblewrap set-up: builds the command of each sandbox process. */
export interface BubblewrapSandbox {
  readonly kind: 'bubblewrap';
  readonly bwrapPath: string;
  /** `bwrap --version`, e.g. `bubblewrap 0.8.0`. */
  readonly version: string;
  /** Whether the seccomp filter is applied (x86_64 and aarch64). */
  readonly seccomp: boolean;
  /** The host uid/gid bubblewrap runs as, when not this process's (root hosts: nobody). */
  readonly user: { readonly uid: number; readonly gid: number } | undefined;
  /** The command line of one sandbox process running `worker`. */
  launch(worker: SandboxWorker): BubblewrapLaunch;
}

/** The script a sandbox process runs, as one self-contained file. */
export interface SandboxWorker {
  /** File name inside the sandbox (`worker.mjs`). */
  readonly name: string;
  readonly source: Uint8Array;
  /** Node's arguments, given the script's path inside the sandbox. */
  readonly nodeArgs: (scriptPath: string) => readonly string[];
}

/** How to spawn one sandbox process under bubblewrap. */
export interface BubblewrapLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly uid: number | undefined;
  readonly gid: number | undefined;
  /** Bytes to write to these child fds (then close them); bwrap reads them before the worker starts. */
  readonly feeds: ReadonlyMap<number, Uint8Array>;
  /** The fd bwrap writes `{ "child-pid": N }` to: the pid (on this host) of the sandbox's init, the worker's parent. */
  readonly infoFd: number;
}

/** Why the OS sandbox is not used. */
export interface NoOsSandbox {
  readonly kind: 'none';
  readonly reason: string;
}

/** Fds 0-4 are the worker's stdio and frame pipes; bwrap's own start here. */
const INFO_FD = 5;
const SECCOMP_FD = 6;
const WORKER_FD = 7;
const NOBODY = 65534;
const PROBE_TIMEOUT_MS = 10_000;

const probes = new Map<string, BubblewrapSandbox | NoOsSandbox>();
const pendingProbes = new Map<string, Promise<void>>();

/** A command the probe runs, and what it learns from it. */
interface ProbeCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly options: SpawnOptions & { readonly stdio: readonly ('ignore' | 'pipe' | number)[] };
}
interface ProbeAnswer {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly error: Error | undefined;
}
/** The probe as steps: it yields each command and is given its answer, so it can be driven without blocking. */
type ProbeSteps<T> = Generator<ProbeCommand, T, ProbeAnswer>;

function driveSync<T>(steps: ProbeSteps<T>): T {
  let next = steps.next();
  while (!next.done) {
    const { file, args, options } = next.value;
    const r = spawnSync(file, args, { ...options, stdio: [...options.stdio], encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
    next = steps.next({ status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error });
  }
  return next.value;
}

async function driveAsync<T>(steps: ProbeSteps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) next = steps.next(await runAsync(next.value));
  return next.value;
}

function runAsync({ file, args, options }: ProbeCommand): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let error: Error | undefined;
    const child = spawn(file, args, { ...options, stdio: [...options.stdio], timeout: PROBE_TIMEOUT_MS });
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(0, 64_000)));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(0, 64_000)));
    child.on('error', (err) => (error = err));
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr, error }));
  });
}
let warned = false;

/** Checks an `osSandbox` value, naming the option. */
export function parseOsSandboxMode(value: unknown, option = 'osSandbox'): OsSandboxMode {
  if (value === undefined) return 'auto';
  if (value === 'auto' || value === 'require' || value === 'off') return value;
  throw new OsSandboxOptionError(option, `must be "auto", "require" or "off", got ${describeValue(value)}`);
}

/**
 * Runs the probe for `options` without blocking this thread (child processes awaited, not
 * waited for), so that a later {@link resolveOsSandbox} finds its answer cached. run_code calls
 * it before it creates its process runner: the probe spawns bubblewrap a few times, and done
 * synchronously it held the host's event loop 140-212 ms at the first run (issue 24, finding 12).
 * Never throws: a mode or path error is left for `resolveOsSandbox` to report.
 */
export async function prepareOsSandbox(options: OsSandboxOptions = {}): Promise<void> {
  let mode: OsSandboxMode;
  try {
    mode = parseOsSandboxMode(options.mode);
  } catch {
    return;
  }
  if (mode === 'off' || (options.bwrapPath !== undefined && (typeof options.bwrapPath !== 'string' || !isAbsolute(options.bwrapPath)))) return;
  const bwrapPath = options.bwrapPath ?? findBwrap();
  if (probes.has(bwrapPath)) return;
  let pending = pendingProbes.get(bwrapPath);
  if (pending === undefined) {
    pending = prepareSandboxRoot()
      .then(() => driveAsync(probe(bwrapPath))).then((found) => {
      if (!probes.has(bwrapPath)) probes.set(bwrapPath, found);
    });
    pendingProbes.set(bwrapPath, pending);
  }
  await pending;
}

/**
 * The OS sandbox for new sandbox processes, per `options.mode`. Synchronous: the probe (the
 * first time for a bwrap path, unless {@link prepareOsSandbox} ran it) spawns bubblewrap and
 * waits for it. Throws
 * {@link OsSandboxUnavailableError} in `require` mode when bubblewrap cannot be used, and
 * {@link OsSandboxOptionError} for an invalid mode or path.
 */
export function resolveOsSandbox(options: OsSandboxOptions = {}): BubblewrapSandbox | NoOsSandbox {
  const mode = parseOsSandboxMode(options.mode);
  if (options.bwrapPath !== undefined && (typeof options.bwrapPath !== 'string' || !isAbsolute(options.bwrapPath))) {
    throw new OsSandboxOptionError('bwrapPath', `must be an absolute path, got ${describeValue(options.bwrapPath)}`);
  }
  if (mode === 'off') return { kind: 'none', reason: 'osSandbox is "off"' };
  const bwrapPath = options.bwrapPath ?? findBwrap();
  let found = probes.get(bwrapPath);
  if (found === undefined) {
    found = driveSync(probe(bwrapPath));
    probes.set(bwrapPath, found);
  }
  if (found.kind === 'none') {
    if (mode === 'require') throw new OsSandboxUnavailableError(found.reason);
    if (!warned) {
      warned = true;
      process.emitWarning(`sandbox processes run without the OS sandbox (osSandbox "auto"): ${found.reason}. Their isolation is the V8 isolate and the process boundary only; install bubblewrap to add namespaces, or set osSandbox "require" to refuse to run without it.`, {
        type: 'PtcOsSandboxWarning',
        code: 'PTC_OS_SANDBOX_UNAVAILABLE',
      });
    }
  }
  return found;
}

function findBwrap(): string {
  const fromEnv = process.env.PTC_BWRAP;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return '/usr/bin/bwrap';
}

function* probe(bwrapPath: string): ProbeSteps<BubblewrapSandbox | NoOsSandbox> {
  const none = (reason: string): NoOsSandbox => ({ kind: 'none', reason });
  if (process.platform !== 'linux') return none(`bubblewrap needs Linux (this is ${process.platform})`);
  if (!isAbsolute(bwrapPath)) return none(`PTC_BWRAP must be an absolute path, got ${JSON.stringify(bwrapPath)}`);
  try {
    accessSync(bwrapPath, constants.X_OK);
  } catch {
    return none(`bubblewrap is not installed (no executable ${bwrapPath})`);
  }
  const version = yield { file: bwrapPath, args: ['--version'], options: { env: {}, stdio: ['ignore', 'pipe', 'pipe'] } };
  const help = yield { file: bwrapPath, args: ['--help'], options: { env: {}, stdio: ['ignore', 'pipe', 'pipe'] } };
  if (version.status !== 0 || help.error !== undefined) return none(`${bwrapPath} --version failed (${firstLine(version.stderr) || `status ${version.status}`})`);
  const missing = missingFlags(help.stdout);
  if (missing.length > 0) return none(`${version.stdout.trim()} lacks ${missing.join(', ')} (0.8 or newer is needed)`);
  let root: SandboxRoot;
  try {
    root = sandboxRoot();
  } catch (err) {
    return none(`the files to bind into it were not found (${(err as Error).message})`);
  }
  const features = bwrapFeatures(help.stdout);
  const arch = seccompArch();
  const filter = arch === undefined ? undefined : compileSeccompFilter(arch);
  // On a root host: as nobody; then as nobody with isolated-vm copied where nobody can read it
  // (the checkout may be under /root); only then as root, its capabilities dropped.
  const nobody = { uid: NOBODY, gid: NOBODY };
  const attempts: { label: string; user: typeof nobody | undefined; root: () => SandboxRoot }[] =
    process.getuid?.() === 0
      ? [
          { label: 'as nobody', user: nobody, root: () => root },
          { label: 'as nobody with isolated-vm staged', user: nobody, root: () => stagedForNobody(root) },
          { label: 'as this user', user: undefined, root: () => root },
        ]
      : [{ label: 'as this user', user: undefined, root: () => root }];
  const failures: string[] = [];
  for (const attempt of attempts) {
    let layout: SandboxRoot;
    try {
      layout = attempt.root();
    } catch (err) {
      failures.push(`${attempt.label}: ${(err as Error).message}`);
      continue;
    }
    const failure = yield* tryLayout(bwrapPath, layout, features, filter, attempt.user);
    if (failure === undefined) return bubblewrap({ bwrapPath, version: version.stdout.trim(), root: layout, features, filter, user: attempt.user });
    failures.push(`${attempt.label}: ${failure}`);
  }
  return none(`bubblewrap could not start a sandbox here (${failures.join('; ')})`);
}

/** Runs `node --version` in the real layout; undefined when it answered as expected, else why not. */
function* tryLayout(bwrapPath: string, root: SandboxRoot, features: BwrapFeatures, filter: Buffer | undefined, user: { uid: number; gid: number } | undefined): ProbeSteps<string | undefined> {
  // The probe feeds only stdin, which node needs open: the filter goes in through a private file.
  const dir = filter ? mkdtempSync(join(tmpdir(), 'ptc-seccomp-')) : undefined;
  let fd: number | undefined;
  try {
    if (dir !== undefined && filter) {
      const file = join(dir, 'filter.bpf');
      writeFileSync(file, filter, { mode: 0o644 });
      fd = openSync(file, 'r');
    }
    const args = bwrapArgs({ root, features, ...(fd === undefined ? {} : { seccompFd: 3 }), command: [root.node, '--version'] });
    const result = yield {
      file: bwrapPath,
      args,
      options: { env: {}, stdio: ['ignore', 'pipe', 'pipe', ...(fd === undefined ? [] : [fd])], ...(user ?? {}) },
    };
    if (result.error) return result.error.message;
    if (result.status === 0 && result.stdout.trim() === process.version) return undefined;
    return firstLine(result.stderr) || `exit status ${result.status ?? result.signal}`;
  } finally {
    if (fd !== undefined) closeSync(fd);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

function bubblewrap(setup: { bwrapPath: string; version: string; root: SandboxRoot; features: BwrapFeatures; filter: Buffer | undefined; user: { uid: number; gid: number } | undefined }): BubblewrapSandbox {
  const { bwrapPath, root, features, filter, user } = setup;
  return {
    kind: 'bubblewrap',
    bwrapPath,
    version: setup.version,
    seccomp: filter !== undefined,
    user,
    launch(worker) {
      const path = `${SANDBOX_DIR}/${worker.name}`;
      const feeds = new Map<number, Uint8Array>([[WORKER_FD, worker.source]]);
      if (filter) feeds.set(SECCOMP_FD, filter);
      const args = bwrapArgs({
        root,
        features,
        infoFd: INFO_FD,
        ...(filter ? { seccompFd: SECCOMP_FD } : {}),
        worker: { fd: WORKER_FD, path },
        command: [root.node, ...worker.nodeArgs(path)],
      });
      return { file: bwrapPath, args, uid: user?.uid, gid: user?.gid, feeds, infoFd: INFO_FD };
    },
  };
}

function firstLine(text: unknown): string {
  return typeof text === 'string' ? (text.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 300) : '';
}
