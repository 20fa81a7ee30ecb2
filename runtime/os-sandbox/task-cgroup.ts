/**
 * A cgroup per sandbox process, where the host can create one: a task limit (`pids.max`) so code
 * that escaped its isolate cannot start hundreds of threads, and a memory bound that counts what
 * the process's RSS does not (shared and tmpfs pages are charged to the cgroup that touched them).
 *
 * cgroup v1 (a writable `pids` and `memory` hierarchy, as on a root host) and a delegated cgroup v2
 * subtree (the controllers enabled in this process's cgroup's `cgroup.subtree_control`) both work;
 * where neither is writable the process runs without them and {@link openTaskCgroup} says why.
 * The process enters its cgroups itself, before it execs bubblewrap (a shell line), so nothing it
 * starts can be outside them.
 */
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** At most this many tasks (threads and processes, bubblewrap's own included) per sandbox process. */
export const SANDBOX_TASK_LIMIT = 64;

/** Memory of one sandbox process past its isolate's heap limit: node, isolated-vm, code, buffers. */
export const SANDBOX_MEMORY_HEADROOM_MB = 512;

const ROOT = '/sys/fs/cgroup';
let counter = 0;

export interface TaskCgroup {
  /** The `cgroup.procs` files the process writes itself into. */
  readonly procs: readonly string[];
  readonly pidsMax: number;
  readonly memoryBytes: number | undefined;
  /** Wraps a command so that it enters the cgroups first (exit 125 when it cannot: fails closed). */
  wrap(file: string, args: readonly string[]): { file: string; args: string[] };
  /** Removes the cgroups (once the process is gone). */
  remove(): void;
}

/** Creates the cgroups of one sandbox process, owned by `user` when given; undefined when not writable here. */
export function openTaskCgroup(options: { memoryMb: number; user: { uid: number; gid: number } | undefined }): TaskCgroup | undefined {
  const name = `ptc-${process.pid}-${++counter}`;
  const memoryBytes = (options.memoryMb + SANDBOX_MEMORY_HEADROOM_MB) * 1024 * 1024;
  const made: string[] = [];
  try {
    const dirs = cgroupDirs(options.user !== undefined);
    if (dirs === undefined) return undefined;
    if (counter === 1) sweepDead(dirs.memory === undefined || dirs.memory === dirs.pids ? [dirs.pids] : [dirs.pids, dirs.memory]);
    const pidsDir = join(dirs.pids, name);
    mkdirSync(pidsDir);
    made.push(pidsDir);
    writeFileSync(join(pidsDir, 'pids.max'), String(SANDBOX_TASK_LIMIT));
    let memory: number | undefined;
    if (dirs.memory !== undefined) {
      const memDir = dirs.memory === dirs.pids ? pidsDir : join(dirs.memory, name);
      if (memDir !== pidsDir) {
        mkdirSync(memDir);
        made.push(memDir);
      }
      const limitFile = dirs.v2 ? 'memory.max' : 'memory.limit_in_bytes';
      writeFileSync(join(memDir, limitFile), String(memoryBytes));
      if (dirs.v2) writeFileSync(join(memDir, 'memory.swap.max'), '0');
      memory = memoryBytes;
    }
    const procs = made.map((d) => join(d, 'cgroup.procs'));
    if (options.user) for (const p of procs) chownSync(p, options.user.uid, options.user.gid);
    return {
      procs,
      pidsMax: SANDBOX_TASK_LIMIT,
      memoryBytes: memory,
      wrap(file, args) {
        // $1: the procs files (no spaces in their paths); the rest: the command.
        const line = 'for f in $1; do echo $$ > "$f" || exit 125; done; shift; exec "$@"';
        return { file: '/bin/sh', args: ['-c', line, 'sh', procs.join(' '), file, ...args] };
      },
      remove() {
        removeWhenEmpty([...made], 20);
      },
    };
  } catch {
    for (const d of made.reverse()) {
      try {
        rmdirSync(d);
      } catch {
        // nothing to undo
      }
    }
    return undefined;
  }
}

/** Where this process may create child cgroups: v1 hierarchies by controller, or one v2 subtree. */
function cgroupDirs(asOtherUser: boolean): { pids: string; memory: string | undefined; v2: boolean } | undefined {
  if (process.platform !== 'linux') return undefined;
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n').filter(Boolean);
  const pathOf = (controller: string) => {
    for (const l of lines) {
      const [, ctrls, path] = l.split(':', 3) as [string, string, string];
      if (ctrls.split(',').includes(controller)) return path;
    }
    return undefined;
  };
  if (existsSync(join(ROOT, 'pids', 'pids.max')) || existsSync(join(ROOT, 'pids', 'cgroup.procs'))) {
    const pidsPath = pathOf('pids');
    const memPath = pathOf('memory');
    if (pidsPath === undefined) return undefined;
    const memory = memPath !== undefined && existsSync(join(ROOT, 'memory', 'cgroup.procs')) ? join(ROOT, 'memory', memPath) : undefined;
    return { pids: join(ROOT, 'pids', pidsPath), memory, v2: false };
  }
  const unified = lines.find((l) => l.startsWith('0::'));
  if (unified === undefined || !existsSync(join(ROOT, 'cgroup.controllers'))) return undefined;
  const own = join(ROOT, unified.slice(3));
  const enabled = readFileSync(join(own, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
  if (!enabled.includes('pids')) return undefined;
  // Entering a v2 cgroup needs write access to the common ancestor's procs too: not as nobody.
  if (asOtherUser) return undefined;
  return { pids: own, memory: enabled.includes('memory') ? own : undefined, v2: true };
}

/** rmdir each cgroup; one that still holds a task being reaped is tried again shortly (a few times). */
function removeWhenEmpty(dirs: string[], tries: number): void {
  const left = dirs.filter((d) => {
    try {
      rmdirSync(d);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EBUSY';
    }
  });
  if (left.length > 0 && tries > 1) setTimeout(() => removeWhenEmpty(left, tries - 1), 100).unref();
}

/** Removes empty cgroups a host that has exited left (its last sandbox's exit came as it ended). */
function sweepDead(parents: readonly string[]): void {
  for (const parent of parents) {
    for (const entry of readdirSync(parent)) {
      const owner = /^ptc-(\d+)-\d+$/.exec(entry)?.[1];
      if (owner === undefined || existsSync(`/proc/${owner}`)) continue;
      try {
        rmdirSync(join(parent, entry));
      } catch {
        // still busy, or not ours to remove
      }
    }
  }
}
