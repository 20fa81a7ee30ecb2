/**
 * What the read-only root of a sandbox process holds: the Node binary, the shared libraries it
 * and isolated-vm's addon link (with the dynamic loader), and isolated-vm's package directory.
 * The worker script itself is not here: it is copied in by bubblewrap from a pipe
 * (`--ro-bind-data`), so the sandbox never sees the host path it came from, nor anything beside
 * it (the project checkout, its other dependencies).
 *
 * The libraries are what `ldd` reports for both binaries (the loader's own resolution); where
 * `ldd` is missing, the shared objects this process has mapped (it runs the same Node binary).
 * Everything is bound at its host path, so the loader's search (RUNPATH, default directories)
 * finds them as on the host; directories outside the usual library directories are passed in
 * `LD_LIBRARY_PATH`.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, cpSync, existsSync, lstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The files a sandbox process needs, by host path. */
export interface SandboxRoot {
  /** The Node binary (`process.execPath`). */
  readonly node: string;
  /** Shared libraries and the dynamic loader, bound read-only at these paths. */
  readonly libraries: readonly string[];
  /** isolated-vm's package directory (its `package.json`, main file and `.node` addon). */
  readonly isolatedVm: string;
  /** Library directories the loader would not search by default (empty for a usual system). */
  readonly libraryPath: readonly string[];
}

/** Where the worker finds isolated-vm inside the sandbox: beside the worker script. */
export const SANDBOX_DIR = '/ptc';

const STANDARD_LIBRARY_DIR = /^\/(usr\/)?lib(32|64|x32)?(\/[a-z0-9_]+-linux-[a-z0-9_]+)?$/;

let cached: SandboxRoot | undefined;

/** The sandbox root's content for this process (computed once). Throws when isolated-vm cannot be found. */
export function sandboxRoot(): SandboxRoot {
  cached ??= findRoot(linkedLibraries);
  return cached;
}

/**
 * Computes {@link sandboxRoot} with `ldd` awaited rather than waited for, so the host's loop keeps
 * turning (the probe's async path). Never throws: a failure is left for `sandboxRoot` to report.
 */
export async function prepareSandboxRoot(): Promise<void> {
  if (cached !== undefined) return;
  let found: string[] | undefined;
  try {
    const { addons } = packageFiles();
    const ldd = await new Promise<string | undefined>((resolve) => {
      execFile('ldd', [process.execPath, ...addons], { encoding: 'utf8', timeout: 10_000 }, (err, stdout) => resolve(err ? undefined : stdout));
    });
    found = ldd === undefined ? undefined : parseLdd(ldd);
  } catch {
    return;
  }
  cached ??= findRoot(found !== undefined && found.length > 0 ? () => found : linkedLibraries);
}

function packageFiles(): { isolatedVm: string; addons: string[] } {
  const require = createRequire(import.meta.url);
  const isolatedVm = dirname(require.resolve('isolated-vm/package.json'));
  return { isolatedVm, addons: findAddons(isolatedVm) };
}

function findRoot(linked: (binaries: readonly string[]) => string[]): SandboxRoot {
  const { isolatedVm, addons } = packageFiles();
  const interpreter = elfInterpreter(process.execPath);
  const libraries = [...new Set([...(interpreter ? [interpreter] : []), ...linked([process.execPath, ...addons])])].sort();
  const libraryPath = [...new Set(libraries.map((l) => dirname(l)))].filter((d) => !STANDARD_LIBRARY_DIR.test(d));
  return { node: process.execPath, libraries, isolatedVm, libraryPath };
}

/**
 * The same root with isolated-vm's package copied where `nobody` can read it, for a root host
 * whose checkout `nobody` cannot read (under /root, or a 0700 directory): bubblewrap can then
 * still run the worker as `nobody` instead of as root.
 *
 * The copy is made once per package version under the system temp dir, in a directory named by
 * this user and a hash of the package, readable by all and writable by its owner only, and
 * reused by later processes only when every entry in it is still ours, no link, and writable by
 * nobody else: another user could create that name first (the temp dir is shared), and then a
 * fresh random directory (removed at exit) is used instead.
 */
export function stagedForNobody(root: SandboxRoot): SandboxRoot {
  const addon = statSync(join(root.isolatedVm, 'out', 'isolated_vm.node'), { throwIfNoEntry: false });
  const key = createHash('sha256').update(`${realpathSync(root.isolatedVm)}\0${addon?.size}\0${addon?.mtimeMs}`).digest('hex').slice(0, 16);
  const shared = join(tmpdir(), `ptc-sandbox-root-${process.getuid?.() ?? 'u'}-${key}`);
  const at = (dir: string): SandboxRoot => ({ ...root, isolatedVm: join(dir, 'isolated-vm') });
  if (existsSync(shared) && ownedTree(shared)) return at(shared);
  const fresh = mkdtempSync(join(tmpdir(), 'ptc-sandbox-root-'));
  cpSync(root.isolatedVm, join(fresh, 'isolated-vm'), { recursive: true, dereference: true });
  chmodTree(fresh);
  try {
    renameSync(fresh, shared); // atomic: a process racing us keeps its own copy or finds ours whole
    return at(shared);
  } catch {
    if (existsSync(shared) && ownedTree(shared)) {
      rmSync(fresh, { recursive: true, force: true });
      return at(shared);
    }
    process.once('exit', () => rmSync(fresh, { recursive: true, force: true }));
    return at(fresh);
  }
}

/** Directories 0755, files 0644 (0755 where executable): readable by all, writable by the owner. */
function chmodTree(path: string): void {
  chmodSync(path, 0o755);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chmodTree(child);
    else chmodSync(child, (statSync(child).mode & 0o111) !== 0 ? 0o755 : 0o644);
  }
}

/** Every entry under `path` is this user's, a plain file or directory, and writable by no one else. */
function ownedTree(path: string): boolean {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink() || stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0) return false;
  if (!stat.isDirectory()) return stat.isFile();
  return readdirSync(path).every((name) => ownedTree(join(path, name)));
}

/** The `.node` addons isolated-vm ships (its build output). */
function findAddons(dir: string): string[] {
  const built = join(dir, 'out', 'isolated_vm.node');
  return existsSync(built) ? [built] : [];
}

/** Absolute paths of the shared objects `binaries` link, the dynamic loader included. */
function linkedLibraries(binaries: readonly string[]): string[] {
  const ldd = spawnSync('ldd', [...binaries], { encoding: 'utf8', timeout: 10_000 });
  if (ldd.status === 0 && typeof ldd.stdout === 'string') {
    const found = parseLdd(ldd.stdout);
    if (found.length > 0) return found;
  }
  return mappedLibraries(readFileSync('/proc/self/maps', 'utf8'));
}

/** Paths in `ldd` output: `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)` and `/lib64/ld-linux-x86-64.so.2 (0x…)`. */
export function parseLdd(output: string): string[] {
  const paths: string[] = [];
  for (const line of output.split('\n')) {
    const m = /^\s*(?:\S+\s+=>\s+)?(\/\S+)\s+\(0x[0-9a-f]+\)\s*$/.exec(line);
    if (m) paths.push(m[1]!);
  }
  return paths;
}

/** Shared objects in `/proc/<pid>/maps` (this process runs the same Node binary). */
export function mappedLibraries(maps: string): string[] {
  const paths = new Set<string>();
  for (const line of maps.split('\n')) {
    const path = line.split(/\s+/)[5];
    if (path?.startsWith('/') && /\.so(\.|$)/.test(path)) paths.add(path);
  }
  return [...paths];
}

/**
 * The program interpreter (`PT_INTERP`, the dynamic loader path the kernel opens) of a 64-bit
 * little-endian ELF file, or undefined (a static binary, another format).
 */
export function elfInterpreter(file: string): string | undefined {
  const fd = openSync(file, 'r');
  try {
    const read = (offset: number, length: number) => {
      const buf = Buffer.alloc(length);
      return buf.subarray(0, readSync(fd, buf, 0, length, offset));
    };
    const header = read(0, 64);
    // \x7fELF, ELFCLASS64, ELFDATA2LSB
    if (header.length < 64 || header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined;
    const phoff = Number(header.readBigUInt64LE(32));
    const phentsize = header.readUInt16LE(54);
    const phnum = header.readUInt16LE(56);
    for (let i = 0; i < phnum; i++) {
      const ph = read(phoff + i * phentsize, 56);
      if (ph.length < 56 || ph.readUInt32LE(0) !== 3 /* PT_INTERP */) continue;
      const path = read(Number(ph.readBigUInt64LE(8)), Math.min(4096, Number(ph.readBigUInt64LE(32)))).toString('latin1');
      const end = path.indexOf('\0');
      return end > 0 ? path.slice(0, end) : undefined;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
