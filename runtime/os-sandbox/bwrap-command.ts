/**
 * The bubblewrap command line of one sandbox process. What it sets up, in bwrap's terms:
 * - new user, IPC, PID, network and UTS namespaces (and cgroup where the kernel has them): the
 *   process sees no other process, has only a loopback interface that is down, and cannot
 *   reach the host's abstract sockets or System V IPC;
 * - `--disable-userns` where bwrap has it (0.8+): no nested user namespace, so it cannot
 *   regain capabilities in one (the seccomp filter refuses `unshare`/`clone(CLONE_NEW*)` too);
 * - a root that is an empty tmpfs, remounted read-only, holding only the Node binary, its
 *   libraries, isolated-vm's package and the worker script (copied in from a pipe), plus an
 *   empty 1 MiB tmpfs at /tmp as the working directory; no /proc, no /dev: the worker needs
 *   neither, and the host supervises it through its own /proc;
 * - an empty environment (`--clearenv`; bwrap then sets only `PWD`), uid and gid 65534 inside,
 *   all capabilities dropped, `PR_SET_NO_NEW_PRIVS` (bwrap always sets it), and
 *   `--die-with-parent`;
 * - no `--new-session`: `setsid` would put the worker in a scheduler autogroup of its own, and on
 *   a busy 2-core machine that made each sequential call 3-5x slower (measured alternating, with
 *   and without it). What it guards against, pushing input into the host's terminal (TIOCSTI),
 *   needs an fd on a terminal, and the worker has none: stdin and stdout are /dev/null, stderr
 *   and the frame fds are pipes, and there is no /dev to open /dev/tty from; the seccomp filter
 *   refuses TIOCSTI and TIOCLINUX as well;
 * - not `--as-pid-1`: bwrap's own init is pid 1 and the worker pid 2, because the kernel drops
 *   signals a namespace's init sends itself (V8's abort() on out-of-memory, the worker's own
 *   SIGKILL when the host goes away). bwrap's info fd names that init; the worker is its only
 *   child, which the host finds once the worker said `ready` (sandbox-process.ts).
 * The stdio and the frame pipes (fds 3 and 4) pass through; bwrap closes its own fds (info,
 * seccomp, worker data) before the worker starts.
 */
import { SANDBOX_DIR, type SandboxRoot } from './sandbox-root.js';

/** bwrap flags this host's bubblewrap has, of those not every version has. */
export interface BwrapFeatures {
  readonly disableUserns: boolean;
  readonly unshareCgroupTry: boolean;
  readonly tmpfsSize: boolean;
}

/** Inputs of one command line. */
export interface BwrapCommandInput {
  readonly root: SandboxRoot;
  readonly features: BwrapFeatures;
  /** fd bwrap writes its info JSON (`child-pid`) to; absent for the probe. */
  readonly infoFd?: number;
  /** fd of the compiled seccomp filter, if one is used. */
  readonly seccompFd?: number;
  /** The worker script, copied from this fd to `workerPath`; absent for the probe. */
  readonly worker?: { readonly fd: number; readonly path: string };
  /** The command and its arguments inside the sandbox (starts with `root.node`). */
  readonly command: readonly string[];
}

/** Bytes of the writable /tmp (nothing in the worker writes files). */
const TMP_BYTES = 1 << 20;
/** The uid and gid the process has inside its user namespace (`nobody`). */
export const SANDBOX_UID = 65534;

/** Sandbox flags that every supported bubblewrap has (0.5+), checked by the probe. */
export const REQUIRED_FLAGS = ['--unshare-user', '--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--die-with-parent', '--cap-drop', '--clearenv', '--info-fd', '--ro-bind-data', '--remount-ro', '--chdir', '--seccomp'] as const;

/** The argument list for bwrap (without the bwrap binary itself). */
export function bwrapArgs(input: BwrapCommandInput): string[] {
  const { root, features } = input;
  const args = ['--unshare-user', '--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts'];
  if (features.unshareCgroupTry) args.push('--unshare-cgroup-try');
  if (features.disableUserns) args.push('--disable-userns');
  args.push('--die-with-parent', '--cap-drop', 'ALL', '--clearenv');
  args.push('--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID), '--hostname', 'ptc-sandbox');
  if (root.libraryPath.length > 0) args.push('--setenv', 'LD_LIBRARY_PATH', root.libraryPath.join(':'));
  args.push('--tmpfs', '/');
  args.push('--ro-bind', root.node, root.node);
  for (const library of root.libraries) args.push('--ro-bind', library, library);
  args.push('--ro-bind', root.isolatedVm, `${SANDBOX_DIR}/node_modules/isolated-vm`);
  if (input.worker) args.push('--ro-bind-data', String(input.worker.fd), input.worker.path);
  // A bubblewrap without --size would give /tmp half the host's memory: an empty read-only
  // directory then (the worker writes no files).
  if (features.tmpfsSize) args.push('--size', String(TMP_BYTES), '--tmpfs', '/tmp');
  else args.push('--dir', '/tmp');
  args.push('--remount-ro', '/', '--chdir', '/tmp');
  if (input.seccompFd !== undefined) args.push('--seccomp', String(input.seccompFd));
  if (input.infoFd !== undefined) args.push('--info-fd', String(input.infoFd));
  args.push('--', ...input.command);
  return args;
}

/** Which optional flags a bwrap `--help` text lists. */
export function bwrapFeatures(help: string): BwrapFeatures {
  return {
    disableUserns: /--disable-userns\b/.test(help),
    unshareCgroupTry: /--unshare-cgroup-try\b/.test(help),
    tmpfsSize: /--size\b/.test(help),
  };
}

/** Required flags a bwrap `--help` text does not list. */
export function missingFlags(help: string): string[] {
  return REQUIRED_FLAGS.filter((flag) => !new RegExp(`${flag}\\b`).test(help));
}
