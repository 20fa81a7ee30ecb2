/**
 * The OS sandbox around sandbox processes, checked from outside: a program waits in a tool the
 * test holds, and meanwhile the test reads the sandboxed worker's /proc entries (its namespaces,
 * interfaces, root, environment, credentials) and compares them with this process's. Then a
 * stand-in worker plays a program that escaped its isolate and tries what such code would.
 * These tests need Linux with bubblewrap (`scripts/setup.sh` installs it): without it they fail,
 * saying so, rather than pass without checking anything.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, defineTool, type ToolHost, type ToolResult } from '../tools/index.js';
import { createProcessRunner, createRunCodeTool, OsSandboxOptionError, OsSandboxUnavailableError, type ProcessEvent, type RunCodeTool, type RunCodeValue } from '../runtime/index.js';
import { runProgram } from './isolate-harness.js';
import { SANDBOX_MEMORY_HEADROOM_MB, SANDBOX_TASK_LIMIT } from '../runtime/os-sandbox/index.js';
import { DEFAULT_RUNS_PER_PROCESS } from '../runtime/sandbox-process/index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CANARY = 'PTC_OS_SANDBOX_CANARY';
process.env[CANARY] = 'host-only-value-7f3a';

const proc = (pid: number | 'self', entry: string) => `/proc/${pid}/${entry}`;
const childrenOf = (pid: number): number[] =>
  readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
const comm = (pid: number) => readFileSync(proc(pid, 'comm'), 'utf8').trim();
const ppid = (pid: number) => Number(readFileSync(proc(pid, 'stat'), 'utf8').split(') ')[1]!.split(' ')[1]);
const statusField = (pid: number, field: string) => new RegExp(`^${field}:\\s*(.*)$`, 'm').exec(readFileSync(proc(pid, 'status'), 'utf8'))?.[1]?.trim();
const NAMESPACES = ['user', 'net', 'mnt', 'pid', 'ipc', 'uts', 'cgroup'] as const;

/** A host whose `hold` tool blocks until the test releases it. */
function holdingHost(): { host: ToolHost; entered: Promise<void>; release: () => void } {
  let entered!: () => void;
  let release!: () => void;
  const enteredP = new Promise<void>((r) => (entered = r));
  const released = new Promise<void>((r) => (release = r));
  const host = createToolHost();
  host.register(
    defineTool({
      name: 'hold',
      description: 'Wait until the test lets go.',
      parameters: {},
      output: { schema: { type: 'string' } },
      async execute() {
        entered();
        await released;
        return 'released';
      },
    }),
  );
  return { host, entered: enteredP, release };
}

describe.runIf(process.platform === 'linux')('when run_code runs a program in a sandbox process (default osSandbox "auto", bubblewrap installed)', () => {
  const { host, entered, release } = holdingHost();
  // One process: the one running the program is the only one there is.
  const runCode: RunCodeTool = createRunCodeTool({ host, typecheck: 'off', capacity: { poolSize: 0, maxProcesses: 1 } });
  host.register(runCode);
  let running: Promise<ToolResult>;
  let pid: number;
  let bwrap: number;

  beforeAll(async () => {
    running = host.call({ id: 'os-1', name: 'run_code', args: { code: 'return await tools.hold({});' } });
    await entered;
    const launchers = childrenOf(process.pid).filter((p) => comm(p) === 'bwrap');
    expect(launchers, 'a bubblewrap child of this process (is bubblewrap installed? scripts/setup.sh)').toHaveLength(1);
    bwrap = launchers[0]!;
    // bwrap (outside) -> bwrap's init (pid 1 inside) -> the worker (pid 2).
    const inits = childrenOf(bwrap);
    expect(inits).toHaveLength(1);
    const workers = childrenOf(inits[0]!);
    expect(workers).toHaveLength(1);
    pid = workers[0]!;
  }, 30_000);

  afterAll(async () => {
    release();
    await running;
    await runCode.close();
  });

  it('runs the worker under bubblewrap\'s init, under bubblewrap, a child of this process', () => {
    expect(comm(pid)).toBe('node');
    expect(comm(ppid(pid))).toBe('bwrap');
    expect(ppid(ppid(pid))).toBe(bwrap);
    expect(ppid(bwrap)).toBe(process.pid);
  });

  it('gives it its own user, network, mount, PID, IPC, UTS and cgroup namespaces', () => {
    for (const ns of NAMESPACES) {
      const theirs = readlinkSync(proc(pid, `ns/${ns}`));
      const ours = readlinkSync(proc('self', `ns/${ns}`));
      expect(theirs, ns).toMatch(new RegExp(`^${ns}:\\[\\d+\\]$`));
      expect(theirs, ns).not.toBe(ours);
    }
    // Its PID namespace holds only bwrap's init (pid 1) and itself.
    expect(statusField(pid, 'NSpid')?.split(/\s+/)).toEqual([String(pid), '2']);
  });

  it('leaves it no network interface but loopback', () => {
    const interfaces = readFileSync(proc(pid, 'net/dev'), 'utf8')
      .split('\n')
      .slice(2)
      .filter((l) => l.includes(':'))
      .map((l) => l.split(':')[0]!.trim());
    expect(interfaces).toEqual(['lo']);
  });

  it('shows it a read-only root with node, its libraries, isolated-vm and the worker only: no checkout, /home, /root, /etc, /proc', () => {
    const root = proc(pid, 'root');
    for (const path of [repoRoot, join(repoRoot, 'package.json'), '/home', '/root', '/etc', '/etc/shadow', '/etc/passwd', '/proc', '/dev', '/sys', '/var']) {
      expect(existsSync(join(root, path)), path).toBe(false);
    }
    expect(readdirSync(join(root, 'ptc')).sort()).toEqual(['node_modules', 'worker.mjs']);
    expect(readdirSync(join(root, 'ptc', 'node_modules'))).toEqual(['isolated-vm']);
    expect(readdirSync(join(root, 'tmp'))).toEqual([]);
    expect(existsSync(join(root, process.execPath))).toBe(true);
    const top = readdirSync(root);
    expect(top.filter((d) => !['usr', 'lib', 'lib64', 'lib32', 'libx32', 'ptc', 'tmp', 'bin', 'opt', 'nix'].includes(d))).toEqual([]);
    expect(() => writeFileSync(join(root, 'ptc', 'planted.js'), 'x')).toThrow(/EROFS|read-only/);
  });

  it('gives it no host environment: only the PWD bubblewrap sets', () => {
    const environ = readFileSync(proc(pid, 'environ'), 'utf8').split('\0').filter(Boolean);
    expect(environ).toEqual(['PWD=/tmp']);
    expect(process.env[CANARY]).toBeDefined();
  });

  it('runs it without capabilities, with no_new_privs, under the seccomp filter, as nobody on a root host', () => {
    for (const field of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(statusField(pid, field), field).toBe('0000000000000000');
    expect(statusField(pid, 'NoNewPrivs')).toBe('1');
    expect(statusField(pid, 'Seccomp')).toBe('2');
    const hostUid = process.getuid!() === 0 ? 65534 : process.getuid!();
    expect(statusField(pid, 'Uid')?.split(/\s+/)).toEqual([String(hostUid), String(hostUid), String(hostUid), String(hostUid)]);
  });

  // Where the host can make cgroups (cgroup v1 as root, as on this CI machine) (issue 24, finding 9);
  // the default memoryMb is 64, once per slot (runsPerProcess 4 by default; 1 in strict isolation).
  it.runIf(existsSync('/sys/fs/cgroup/pids/cgroup.procs') && process.getuid?.() === 0)('puts it in its own pids and memory cgroups: a task limit, and a memory bound that counts shared pages', () => {
    const cgroups = readFileSync(proc(pid, 'cgroup'), 'utf8').split('\n').filter(Boolean).map((l) => l.split(':', 3) as [string, string, string]);
    const pathOf = (ctrl: string) => cgroups.find(([, c]) => c.split(',').includes(ctrl))?.[2];
    const pids = pathOf('pids')!;
    expect(pids).toMatch(/\/ptc-\d+-\d+$/);
    expect(readFileSync(join('/sys/fs/cgroup/pids', pids, 'pids.max'), 'utf8').trim()).toBe(String(SANDBOX_TASK_LIMIT));
    // bubblewrap itself is in it too: nothing the sandbox starts is outside
    expect(readFileSync(join('/sys/fs/cgroup/pids', pids, 'cgroup.procs'), 'utf8').split('\n')).toContain(String(bwrap));
    const memory = pathOf('memory')!;
    expect(memory).toMatch(/\/ptc-\d+-\d+$/);
    expect(Number(readFileSync(join('/sys/fs/cgroup/memory', memory, 'memory.limit_in_bytes'), 'utf8'))).toBe((64 * (process.env.PTC_TEST_ISOLATION === 'strict' ? 1 : DEFAULT_RUNS_PER_PROCESS) + SANDBOX_MEMORY_HEADROOM_MB) * 1024 * 1024);
  });

  it('reports stats.osSandbox "bubblewrap" once the program returns', async () => {
    release();
    const result = await running;
    expect(result.isError).toBe(false);
    const value = result.value as unknown as RunCodeValue;
    expect(value.result).toBe('released');
    expect(value.stats.osSandbox).toBe('bubblewrap');
  });
});

/**
 * A stand-in worker: the code a program would run if it broke out of its isolate into the
 * sandbox process. It speaks the frame protocol just enough to report what it tried.
 */
const ESCAPED_WORKER = String.raw`
import net from 'node:net';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
const input = new net.Socket({ fd: 3, readable: true, writable: false });
const output = new net.Socket({ fd: 4, readable: false, writable: true });
const frame = (m) => { const b = Buffer.from(JSON.stringify(m)); const h = Buffer.alloc(4); h.writeUInt32LE(b.length); output.write(Buffer.concat([h, b])); };
const code = (fn) => { try { fn(); return 'ok'; } catch (e) { return e.code ?? e.message; } };
async function tryAll(target) {
  const tried = {};
  tried.connect = await new Promise((r) => {
    const s = net.connect({ host: '127.0.0.1', port: target.port });
    s.on('connect', () => { s.destroy(); r('connected'); });
    s.on('error', (e) => r(e.code));
  });
  tried.readCheckout = code(() => fs.readFileSync(target.packageJson));
  tried.readPasswd = code(() => fs.readFileSync('/etc/passwd'));
  tried.listProc = code(() => fs.readdirSync('/proc'));
  tried.signalHost = code(() => process.kill(target.hostPid, 0));
  tried.writeRoot = code(() => fs.writeFileSync('/ptc/planted.js', 'x'));
  tried.writeTmpBig = code(() => fs.writeFileSync('/tmp/fill', Buffer.alloc(4 << 20)));
  tried.shell = spawnSync('/bin/sh', ['-c', 'id']).error?.code ?? 'ran';
  tried.node = spawnSync(process.execPath, ['-e', '0']).error?.code ?? 'ran';
  tried.env = Object.keys(process.env);
  // Native code (a shared object whose constructor makes the calls), as an escape could load.
  if (target.nativeProbe) {
    fs.rmSync('/tmp/fill', { force: true }); // the 1 MiB /tmp is full of it
    const so = target.nativeOut + '.so';
    fs.writeFileSync(so, Buffer.from(target.nativeProbe, 'base64'));
    process.env.PROBE_OUT = target.nativeOut;
    let loadError = '';
    try { process.dlopen({ exports: {} }, so); } catch (e) { loadError = e.message; /* not an addon: its constructor has run */ }
    tried.native = fs.existsSync(target.nativeOut) ? JSON.parse(fs.readFileSync(target.nativeOut, 'utf8')) : { notLoaded: loadError };
  }
  return tried;
}
let buf = Buffer.alloc(0);
input.on('data', async (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  while (buf.length >= 4) {
    const n = buf.readUInt32LE(0); if (buf.length < 4 + n) return;
    const body = buf.subarray(4, 4 + n); buf = buf.subarray(4 + n);
    // A segmented body (frames.ts): 0, header length, header, then request.js as raw text.
    const m = body[0] === 0 ? JSON.parse(body.subarray(5, 5 + body.readUInt32LE(1)).toString()) : JSON.parse(body.toString());
    if (body[0] === 0) m.request.js = body.subarray(5 + body.readUInt32LE(1)).toString();
    if (m.t !== 'run') continue;
    const tried = await tryAll(JSON.parse(m.request.js));
    frame({ t: 'done', runId: m.runId, outcome: { ok: true, resultJson: JSON.stringify(tried), cpuMs: 0, wallMs: 0 } });
  }
});
input.on('end', () => process.exit(0));
frame({ t: 'ready', pid: process.pid });
`;

const NATIVE_PROBE = String.raw`
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>
static int gate[2];
static void *held(void *arg) { char c; (void)arg; while (read(gate[0], &c, 1) < 0 && errno == EINTR) {} return 0; }
/* Starts up to 500 threads held on a pipe, then lets them all go: how many could it start? */
static int threads(void) {
  static pthread_t t[500];
  pthread_attr_t attr;
  int n = 0;
  if (pipe(gate) != 0) return -1;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 65536);
  while (n < 500 && pthread_create(&t[n], &attr, held, 0) == 0) n++;
  close(gate[1]);
  for (int i = 0; i < n; i++) pthread_join(t[i], 0);
  close(gate[0]);
  return n;
}
__attribute__((constructor)) static void probe(void) {
  int fd = (int)syscall(SYS_memfd_create, "fill", 0);
  int memfd = fd < 0 ? errno : 0;
  int id = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
  int shm = id < 0 ? errno : 0;
  if (id >= 0) shmctl(id, IPC_RMID, 0);
  int started = threads();
  FILE *out = fopen(getenv("PROBE_OUT"), "w");
  if (out) { fprintf(out, "{\"memfd\":%d,\"shmget\":%d,\"threads\":%d}", memfd, shm, started); fclose(out); }
}
`;

describe.runIf(process.platform === 'linux')('when code escaped its isolate into a sandbox process (a stand-in worker)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-escaped-'));
  const entry = join(dir, 'escaped-worker.mjs');
  writeFileSync(entry, ESCAPED_WORKER);
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // What an escape could run as native code: memory no process's RSS shows (a memfd written and
  // never mapped, a System V segment), reported as errno values (0: allowed).
  const probeSource = join(dir, 'probe.c');
  writeFileSync(probeSource, NATIVE_PROBE);
  const compiled = spawnSync('cc', ['-shared', '-fPIC', '-O2', '-pthread', '-o', join(dir, 'probe.so'), probeSource], { encoding: 'utf8' });
  if (compiled.status !== 0) throw new Error(`cc could not build the native probe: ${compiled.stderr || compiled.error?.message}`);
  const nativeProbe = readFileSync(join(dir, 'probe.so')).toString('base64');

  const tryFrom = async (osSandbox: 'auto' | 'off') => {
    const runner = createProcessRunner({ poolSize: 0, workerEntry: entry, osSandbox });
    try {
      const nativeOut = osSandbox === 'off' ? join(dir, 'probe.out') : '/tmp/probe.out';
      const { value } = await runProgram(runner, JSON.stringify({ port, packageJson: join(repoRoot, 'package.json'), hostPid: process.pid, nativeProbe, nativeOut }));
      return { value: value as Record<string, unknown>, kind: runner.osSandbox };
    } finally {
      await runner.close();
    }
  };

  it('can reach nothing of the host and start nothing: no socket but AF_UNIX, no file, no process, no new process, nothing writable past 1 MiB of /tmp', async () => {
    const { value, kind } = await tryFrom('auto');
    expect(kind).toBe('bubblewrap');
    expect(value).toEqual({
      connect: 'EAFNOSUPPORT', // the seccomp filter refuses AF_INET; its network namespace has no route anyway
      readCheckout: 'ENOENT',
      readPasswd: 'ENOENT',
      listProc: 'ENOENT',
      signalHost: 'ESRCH',
      writeRoot: 'EROFS',
      writeTmpBig: 'ENOSPC',
      shell: 'EPERM', // the filter refuses a new process (and there is no /bin/sh)
      node: 'EPERM', // not even of the one binary there is
      env: ['PWD'],
      // memfd, shmget: EPERM from the seccomp filter; threads: fewer than the sandbox's task limit
      // (a pids cgroup; bubblewrap, its init and node's own threads count too) (issue 24, finding 9)
      native: { memfd: 1, shmget: 1, threads: expect.any(Number) },
    });
    const started = (value.native as { threads: number }).threads;
    expect(started).toBeGreaterThan(0);
    expect(started).toBeLessThan(SANDBOX_TASK_LIMIT);
    expect(connections).toBe(0);
  });

  it('without the OS sandbox (osSandbox "off") the same code reaches all of it: what the sandbox takes away', async () => {
    const { value, kind } = await tryFrom('off');
    expect(kind).toBe('none');
    expect(value).toMatchObject({ connect: 'connected', readCheckout: 'ok', readPasswd: 'ok', listProc: 'ok', signalHost: 'ok', shell: 'ran', node: 'ran', native: { memfd: 0, shmget: 0, threads: 500 } });
    expect(connections).toBe(1);
  });
});

describe.runIf(process.platform === 'linux')('when one sandboxed process serves many runs', () => {
  it('adds no listener per run to the pipes bubblewrap has closed (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const runner = createProcessRunner({ poolSize: 1, maxProcesses: 1, osSandbox: 'require' });
    try {
      for (let i = 0; i < 15; i++) expect((await runProgram(runner, `return ${i};`)).value).toBe(i);
      await new Promise((r) => setImmediate(r));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await runner.close();
    }
  });
});

describe.runIf(process.platform === 'linux')('when a sandboxed worker aborts', () => {
  it('dies of its own SIGABRT (V8 out of memory), as outside the sandbox: the worker is not the namespace\'s init', async () => {
    const events: ProcessEvent[] = [];
    const runner = createProcessRunner({ poolSize: 0, osSandbox: 'require', onProcessEvent: (e) => events.push(e) });
    try {
      const { outcome } = await runProgram(runner, 'new Array(1e9).fill(0); return 1;', { limits: { memoryMb: 32 } });
      expect(outcome).toMatchObject({ ok: false, failure: { kind: 'limit', limit: 'memoryMb' } });
      await new Promise((r) => setTimeout(r, 100));
      expect(events.filter((e) => e.kind === 'exited').map((e) => e.detail)).toEqual(['signal SIGABRT']);
    } finally {
      await runner.close();
    }
  });
});

describe('when bubblewrap is not there', () => {
  const missing = '/nonexistent/ptc-test/bwrap';

  it('"require" refuses to create a runner, with OsSandboxUnavailableError naming why', () => {
    let thrown: unknown;
    try {
      createProcessRunner({ osSandbox: 'require', bwrapPath: missing });
    } catch (err) {
      thrown = err;
    }
    expect(OsSandboxUnavailableError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toContain(`no executable ${missing}`);
  });

  it('"require" refuses to create run_code (PTC_BWRAP names the binary)', () => {
    const saved = process.env.PTC_BWRAP;
    process.env.PTC_BWRAP = missing;
    try {
      expect(() => createRunCodeTool({ osSandbox: 'require' })).toThrow(OsSandboxUnavailableError);
    } finally {
      if (saved === undefined) delete process.env.PTC_BWRAP;
      else process.env.PTC_BWRAP = saved;
    }
  });

  it('"auto" runs programs without it, says so once on stderr and in stats.osSandbox', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => {
      if ((w as { code?: string }).code === 'PTC_OS_SANDBOX_UNAVAILABLE') warnings.push(w);
    };
    process.on('warning', onWarning);
    const events: ProcessEvent[] = [];
    const runner = createProcessRunner({ poolSize: 0, bwrapPath: missing, onProcessEvent: (e) => events.push(e) });
    const again = createProcessRunner({ poolSize: 0, bwrapPath: missing });
    const host = createToolHost();
    const runCode = createRunCodeTool({ host, typecheck: 'off', runner });
    host.register(runCode);
    try {
      const result = await host.call({ id: 'fallback-1', name: 'run_code', args: { code: 'return 1 + 1;' } });
      expect(result.isError).toBe(false);
      expect((result.value as unknown as RunCodeValue).stats.osSandbox).toBe('none');
      expect(runner.osSandbox).toBe('none');
      expect(events.find((e) => e.kind === 'started')).toMatchObject({ osSandbox: 'none' });
      await new Promise((r) => setImmediate(r));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toContain(`no executable ${missing}`);
    } finally {
      process.off('warning', onWarning);
      await runner.close();
      await again.close();
    }
  });
});

describe('when the osSandbox option is wrong', () => {
  it('names the option for a value it cannot have', () => {
    expect(() => createRunCodeTool({ osSandbox: 'yes' as never })).toThrow(OsSandboxOptionError);
    expect(() => createRunCodeTool({ osSandbox: 'yes' as never })).toThrow(/^osSandbox must be "auto", "require" or "off", got "yes"$/);
    expect(() => createProcessRunner({ osSandbox: 1 as never })).toThrow(/osSandbox must be/);
    expect(() => createProcessRunner({ bwrapPath: 'bwrap' })).toThrow(/^bwrapPath must be an absolute path, got "bwrap"$/);
  });

  it('refuses "require" with isolation "isolate", where programs run in this process', () => {
    expect(() => createRunCodeTool({ isolation: 'isolate', osSandbox: 'require' })).toThrow(/"require" does not apply to isolation "isolate"/);
  });

  it('refuses "require" with a runner that does not report the OS sandbox', () => {
    const runner = createProcessRunner({ poolSize: 0, osSandbox: 'off' });
    expect(() => createRunCodeTool({ runner, osSandbox: 'require' })).toThrow(OsSandboxUnavailableError);
    void runner.close();
  });
});
