/**
 * The seccomp filter of a sandbox process, compiled here to classic BPF (the `struct
 * sock_filter` array bubblewrap's `--seccomp FD` loads), so no native dependency (libseccomp) is
 * needed. It is a deny list in the spirit of Docker's and Flatpak's defaults, for what a
 * process that escaped its isolate could use to attack the kernel or leave its namespaces:
 * ptrace and cross-process memory access, kernel keyrings, BPF, perf events, userfaultfd,
 * io_uring, new processes (`fork`, `vfork`, a `clone` that is not a thread: the worker only ever
 * makes threads, and a process it started would hold memory outside the RSS the host watches),
 * mounts and namespace changes (`unshare`, `setns`, `clone` with a `CLONE_NEW*` flag),
 * module loading, kexec, reboot, swap, clock setting, file handles, x86 I/O ports and LDT,
 * memory no process's RSS shows (`memfd_create`, `memfd_secret`, System V `shmget`), any
 * socket family but AF_UNIX, `personality` other than the default, the terminal ioctls that
 * push input into a terminal (TIOCSTI, TIOCLINUX: bwrap's `--new-session` guards against those
 * too, but costs a scheduler autogroup; see bwrap-command.ts), and the x32 ABI. A call of
 * another architecture (i386 `int 0x80` on x86_64) kills the process. Everything else is
 * allowed: Node and isolated-vm use a broad, changing set of system calls, and the namespaces,
 * the read-only root and the dropped capabilities are the primary walls; this filter narrows
 * the kernel surface behind them. `clone3` and io_uring answer ENOSYS, so glibc and libuv fall
 * back to `clone` and epoll as they do on older kernels.
 *
 * Syscall numbers come from the kernel's `asm/unistd_64.h` (x86_64) and `asm-generic/unistd.h`
 * (aarch64); the test checks them against the headers when installed. Other architectures get
 * no filter (the probe says so).
 */

/** Architectures the filter is built for (Node's `process.arch` names). */
export type SeccompArch = 'x64' | 'arm64';

const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

// BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const retErrno = (errno: number) => (0x00050000 | errno) >>> 0;

/** Offsets in `struct seccomp_data`: nr, arch, then args[i] at 16 + 8i (low half first, little-endian). */
const NR = 0;
const ARCH = 4;
const argLow = (i: number) => 16 + 8 * i;

const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;
const AF_UNIX = 1;
const PER_LINUX = 0;
const PERSONALITY_QUERY = 0xffffffff;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
const CLONE_NEW_ANY = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
const CLONE_THREAD = 0x00010000;
const X32_SYSCALL_BIT = 0x40000000;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;

type Rule =
  | { readonly kind: 'deny'; readonly errno: number }
  /** Denied when the first argument has any of these bits. */
  | { readonly kind: 'deny-flags'; readonly mask: number; readonly errno: number }
  /** Denied unless the first argument is one of these. */
  | { readonly kind: 'allow-arg0'; readonly values: readonly number[]; readonly errno: number }
  /** Denied when argument `arg` is one of these. */
  | { readonly kind: 'deny-arg'; readonly arg: number; readonly values: readonly number[]; readonly errno: number }
  /** `clone`: allowed only for a thread (`CLONE_THREAD`) with none of the `mask` bits. */
  | { readonly kind: 'threads-only'; readonly mask: number; readonly errno: number };

const DENY: Rule = { kind: 'deny', errno: EPERM };
const UNAVAILABLE: Rule = { kind: 'deny', errno: ENOSYS };

/** What the filter refuses, by system call name. */
export const SECCOMP_RULES: Readonly<Record<string, Rule>> = {
  ptrace: DENY,
  process_vm_readv: DENY,
  process_vm_writev: DENY,
  personality: { kind: 'allow-arg0', values: [PER_LINUX, PERSONALITY_QUERY], errno: EPERM },
  keyctl: DENY,
  add_key: DENY,
  request_key: DENY,
  bpf: DENY,
  perf_event_open: DENY,
  userfaultfd: DENY,
  mount: DENY,
  umount2: DENY,
  pivot_root: DENY,
  chroot: DENY,
  move_mount: DENY,
  open_tree: DENY,
  fsopen: DENY,
  fsconfig: DENY,
  fsmount: DENY,
  fspick: DENY,
  mount_setattr: DENY,
  unshare: DENY,
  setns: DENY,
  clone: { kind: 'threads-only', mask: CLONE_NEW_ANY, errno: EPERM },
  fork: DENY,
  vfork: DENY,
  clone3: UNAVAILABLE,
  kexec_load: DENY,
  kexec_file_load: DENY,
  init_module: DENY,
  finit_module: DENY,
  delete_module: DENY,
  reboot: DENY,
  swapon: DENY,
  swapoff: DENY,
  acct: DENY,
  syslog: DENY,
  quotactl: DENY,
  quotactl_fd: DENY,
  lookup_dcookie: DENY,
  vhangup: DENY,
  nfsservctl: DENY,
  uselib: DENY,
  ustat: DENY,
  sysfs: DENY,
  _sysctl: DENY,
  io_uring_setup: UNAVAILABLE,
  io_uring_enter: UNAVAILABLE,
  io_uring_register: UNAVAILABLE,
  open_by_handle_at: DENY,
  name_to_handle_at: DENY,
  settimeofday: DENY,
  clock_settime: DENY,
  clock_adjtime: DENY,
  adjtimex: DENY,
  iopl: DENY,
  ioperm: DENY,
  modify_ldt: DENY,
  // Memory the host's rssMb watch would not see: a memfd's pages (written, never mapped) and a
  // System V segment (detached) are charged to no process's RSS. Node and isolated-vm use neither.
  memfd_create: DENY,
  memfd_secret: DENY,
  shmget: DENY,
  socket: { kind: 'allow-arg0', values: [AF_UNIX], errno: EAFNOSUPPORT },
  ioctl: { kind: 'deny-arg', arg: 1, values: [TIOCSTI, TIOCLINUX], errno: EPERM },
};

/** System call numbers of the names above, per architecture (absent: no such call there). */
export const SYSCALL_NUMBERS: Readonly<Record<SeccompArch, Readonly<Record<string, number>>>> = {
  x64: {
    ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, personality: 135, keyctl: 250, add_key: 248,
    request_key: 249, bpf: 321, perf_event_open: 298, userfaultfd: 323, mount: 165, umount2: 166, pivot_root: 155,
    chroot: 161, move_mount: 429, open_tree: 428, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433,
    mount_setattr: 442, unshare: 272, setns: 308, clone: 56, fork: 57, vfork: 58, clone3: 435, kexec_load: 246, kexec_file_load: 320,
    init_module: 175, finit_module: 313, delete_module: 176, reboot: 169, swapon: 167, swapoff: 168, acct: 163,
    syslog: 103, quotactl: 179, quotactl_fd: 443, lookup_dcookie: 212, vhangup: 153, nfsservctl: 180, uselib: 134,
    ustat: 136, sysfs: 139, _sysctl: 156, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
    open_by_handle_at: 304, name_to_handle_at: 303, settimeofday: 164, clock_settime: 227, clock_adjtime: 305,
    adjtimex: 159, iopl: 172, ioperm: 173, modify_ldt: 154, memfd_create: 319, memfd_secret: 447, shmget: 29, socket: 41, ioctl: 16,
  },
  arm64: {
    ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, personality: 92, keyctl: 219, add_key: 217,
    request_key: 218, bpf: 280, perf_event_open: 241, userfaultfd: 282, mount: 40, umount2: 39, pivot_root: 41,
    chroot: 51, move_mount: 429, open_tree: 428, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433,
    mount_setattr: 442, unshare: 97, setns: 268, clone: 220, clone3: 435, kexec_load: 104, kexec_file_load: 294,
    init_module: 105, finit_module: 273, delete_module: 106, reboot: 142, swapon: 224, swapoff: 225, acct: 89,
    syslog: 116, quotactl: 60, quotactl_fd: 443, lookup_dcookie: 18, vhangup: 58, nfsservctl: 42,
    io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, open_by_handle_at: 265, name_to_handle_at: 264,
    settimeofday: 170, clock_settime: 112, clock_adjtime: 266, adjtimex: 171, memfd_create: 279, memfd_secret: 447, shmget: 194,
    socket: 198, ioctl: 29,
  },
};

/** One BPF instruction. */
interface Insn {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

const stmt = (code: number, k: number): Insn => ({ code, jt: 0, jf: 0, k: k >>> 0 });
const jump = (code: number, k: number, jt: number, jf: number): Insn => ({ code, jt, jf, k: k >>> 0 });

/** The instructions of one rule, run with the syscall number matched; each path ends in a return. */
function ruleBody(rule: Rule): Insn[] {
  switch (rule.kind) {
    case 'deny':
      return [stmt(RET_K, retErrno(rule.errno))];
    case 'deny-flags':
      return [stmt(LD_W_ABS, argLow(0)), jump(JSET_K, rule.mask, 0, 1), stmt(RET_K, retErrno(rule.errno)), stmt(RET_K, RET_ALLOW)];
    case 'allow-arg0': {
      const n = rule.values.length;
      // jeq value_i: jump to the allow at the end (n - i skips), else test the next value.
      const tests = rule.values.map((value, i) => jump(JEQ_K, value, n - i, 0));
      return [stmt(LD_W_ABS, argLow(0)), ...tests, stmt(RET_K, retErrno(rule.errno)), stmt(RET_K, RET_ALLOW)];
    }
    case 'threads-only':
      // ld flags; a CLONE_NEW* bit: deny; CLONE_THREAD: allow; else (a process): deny.
      return [stmt(LD_W_ABS, argLow(0)), jump(JSET_K, rule.mask, 2, 0), jump(JSET_K, CLONE_THREAD, 0, 1), stmt(RET_K, RET_ALLOW), stmt(RET_K, retErrno(rule.errno))];
    case 'deny-arg': {
      const n = rule.values.length;
      // jeq value_i: jump over the rest and the allow to the denial (n - i skips), else test the next value.
      const tests = rule.values.map((value, i) => jump(JEQ_K, value, n - i, 0));
      return [stmt(LD_W_ABS, argLow(rule.arg)), ...tests, stmt(RET_K, RET_ALLOW), stmt(RET_K, retErrno(rule.errno))];
    }
  }
}

/** The filter for `arch` as BPF instructions. */
export function seccompProgram(arch: SeccompArch): readonly Insn[] {
  const numbers = SYSCALL_NUMBERS[arch];
  const program: Insn[] = [stmt(LD_W_ABS, ARCH), jump(JEQ_K, AUDIT_ARCH[arch], 1, 0), stmt(RET_K, RET_KILL_PROCESS), stmt(LD_W_ABS, NR)];
  if (arch === 'x64') program.push(jump(JSET_K, X32_SYSCALL_BIT, 0, 1), stmt(RET_K, retErrno(EPERM)));
  for (const [name, rule] of Object.entries(SECCOMP_RULES)) {
    const nr = numbers[name];
    if (nr === undefined) continue;
    const body = ruleBody(rule);
    program.push(jump(JEQ_K, nr, 0, body.length), ...body);
  }
  program.push(stmt(RET_K, RET_ALLOW));
  return program;
}

/** The filter for `arch` in the binary form `bwrap --seccomp` reads (8 bytes per instruction, host byte order). */
export function compileSeccompFilter(arch: SeccompArch): Buffer {
  const program = seccompProgram(arch);
  const out = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(insn.jt, i * 8 + 2);
    out.writeUInt8(insn.jf, i * 8 + 3);
    out.writeUInt32LE(insn.k, i * 8 + 4);
  });
  return out;
}

/** The architecture of this process if the filter supports it. */
export function seccompArch(arch: string = process.arch): SeccompArch | undefined {
  return arch === 'x64' || arch === 'arm64' ? arch : undefined;
}
