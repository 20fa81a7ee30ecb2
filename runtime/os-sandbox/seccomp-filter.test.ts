import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileSeccompFilter, SECCOMP_RULES, seccompProgram, SYSCALL_NUMBERS, type SeccompArch } from './seccomp-filter.js';

const ARCH = { x64: 0xc000003e, arm64: 0xc00000b7, i386: 0x40000003 };
const ALLOW = 0x7fff0000;
const KILL = 0x80000000;
const errno = (n: number) => (0x00050000 | n) >>> 0;

/** Runs a compiled filter the way the kernel does, on one `struct seccomp_data`. */
function evaluate(filter: Buffer, data: { nr: number; arch: number; args?: number[] }): number {
  const seccompData = Buffer.alloc(64);
  seccompData.writeInt32LE(data.nr, 0);
  seccompData.writeUInt32LE(data.arch, 4);
  (data.args ?? []).forEach((a, i) => seccompData.writeBigUInt64LE(BigInt(a), 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc < filter.length / 8; ) {
    const code = filter.readUInt16LE(pc * 8);
    const jt = filter.readUInt8(pc * 8 + 2);
    const jf = filter.readUInt8(pc * 8 + 3);
    const k = filter.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20: // ld [k]
        acc = seccompData.readUInt32LE(k);
        pc++;
        break;
      case 0x15: // jeq #k
        pc += 1 + (acc === k ? jt : jf);
        break;
      case 0x45: // jset #k
        pc += 1 + ((acc & k) !== 0 ? jt : jf);
        break;
      case 0x06: // ret #k
        return k;
      default:
        throw new Error(`unexpected opcode ${code} at ${pc}`);
    }
  }
  throw new Error('the filter fell off its end');
}

describe.each(['x64', 'arm64'] as SeccompArch[])('the seccomp filter for %s', (arch) => {
  const filter = compileSeccompFilter(arch);
  const nr = SYSCALL_NUMBERS[arch];
  const run = (name: string, args?: number[]) => evaluate(filter, { nr: nr[name]!, arch: ARCH[arch], args });

  it('compiles to whole 8-byte instructions, every jump inside the program', () => {
    expect(filter.length % 8).toBe(0);
    const program = seccompProgram(arch);
    program.forEach((insn, pc) => {
      if (insn.code === 0x15 || insn.code === 0x45) expect(pc + 1 + Math.max(insn.jt, insn.jf)).toBeLessThan(program.length);
    });
  });

  it('allows the calls Node and isolated-vm live on', () => {
    // read, write, mmap, futex, epoll_pwait, openat: numbers differ per architecture.
    const common = arch === 'x64' ? [0, 1, 9, 202, 281, 257] : [63, 64, 222, 98, 22, 56];
    for (const n of common) expect(evaluate(filter, { nr: n, arch: ARCH[arch] })).toBe(ALLOW);
  });

  it('refuses ptrace, namespaces, mounts, keyrings, BPF and module loading with EPERM', () => {
    for (const name of ['ptrace', 'unshare', 'setns', 'mount', 'pivot_root', 'keyctl', 'bpf', 'init_module', 'perf_event_open', 'userfaultfd', 'process_vm_writev']) {
      expect(run(name), name).toBe(errno(1));
    }
  });

  it('answers ENOSYS for clone3 and io_uring, so libc and libuv fall back', () => {
    for (const name of ['clone3', 'io_uring_setup', 'io_uring_enter']) expect(run(name), name).toBe(errno(38));
  });

  it('lets clone make threads, but neither processes nor new namespaces', () => {
    const thread = 0x3d0f00; // CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID
    expect(run('clone', [thread])).toBe(ALLOW);
    expect(run('clone', [0x11])).toBe(errno(1)); // fork: SIGCHLD
    expect(run('clone', [0x4111])).toBe(errno(1)); // posix_spawn: CLONE_VM | CLONE_VFORK | SIGCHLD
    for (const flag of [0x10000000, 0x20000000, 0x40000000, 0x00020000, 0x08000000]) expect(run('clone', [thread | flag])).toBe(errno(1));
    if (arch === 'x64') for (const name of ['fork', 'vfork']) expect(run(name), name).toBe(errno(1));
  });

  it('allows AF_UNIX sockets only', () => {
    expect(run('socket', [1, 1, 0])).toBe(ALLOW);
    for (const family of [2, 10, 16, 17, 38, 40]) expect(run('socket', [family, 1, 0]), `family ${family}`).toBe(errno(97));
  });

  it('allows personality to query and keep the default only', () => {
    expect(run('personality', [0xffffffff])).toBe(ALLOW);
    expect(run('personality', [0])).toBe(ALLOW);
    expect(run('personality', [0x0040000])).toBe(errno(1)); // ADDR_NO_RANDOMIZE
  });

  it('refuses the ioctls that push input into a terminal, and allows the others', () => {
    expect(run('ioctl', [2, 0x5412])).toBe(errno(1)); // TIOCSTI
    expect(run('ioctl', [2, 0x541c])).toBe(errno(1)); // TIOCLINUX
    for (const request of [0x5421 /* FIONBIO */, 0x5413 /* TIOCGWINSZ */, 0x5401 /* TCGETS */]) expect(run('ioctl', [2, request])).toBe(ALLOW);
  });

  it('kills the process for a call of another architecture', () => {
    expect(evaluate(filter, { nr: 1, arch: ARCH.i386 })).toBe(KILL);
  });

  if (arch === 'x64') {
    it('refuses the x32 ABI', () => {
      expect(evaluate(filter, { nr: 0x40000000 | 1, arch: ARCH.x64 })).toBe(errno(1));
    });
  }
});

describe('the syscall numbers', () => {
  const headers: Record<SeccompArch, string> = { x64: '/usr/include/x86_64-linux-gnu/asm/unistd_64.h', arm64: '/usr/include/asm-generic/unistd.h' };
  it.each(['x64', 'arm64'] as SeccompArch[])('match the kernel headers for %s (where installed)', (arch) => {
    if (!existsSync(headers[arch])) return;
    const text = readFileSync(headers[arch], 'utf8');
    for (const [name, n] of Object.entries(SYSCALL_NUMBERS[arch])) {
      const m = new RegExp(`#define __NR(?:3264)?_${name}\\s+(\\d+)`).exec(text);
      expect(m?.[1], name).toBe(String(n));
    }
    // Every rule has a number where the architecture has the call.
    for (const name of Object.keys(SECCOMP_RULES)) {
      const defined = new RegExp(`#define __NR(?:3264)?_${name}\\s+\\d+`).test(text);
      expect(SYSCALL_NUMBERS[arch][name] !== undefined, name).toBe(defined);
    }
  });
});
