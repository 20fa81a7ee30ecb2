/**
 * Many runs at once (issues 15 and 29): N programs started together, each making 20 sequential
 * calls to a tool that waits 2 ms, through run_code, against the same calls made directly by N
 * concurrent callers (each 20 sequential `host.call`s) in the same run. Reported per configuration:
 * - the whole batch's wall time (median of the timed rounds, after untimed warm-up ones) and its ratio to the
 *   baseline (issue 29's target for N = 16: <= 2.5x);
 * - the first round alone, where the pool grows from its one warm process;
 * - p50 / p99 start latency: from `host.call` of run_code to the program's first tool call
 *   (issue 29: p99 <= 300 ms at N = 64);
 * - runs per CPU-second: runs divided by the CPU seconds the host and its sandbox processes spent
 *   (issue 29: >= 85), and that CPU per run split: the host (the pipeline and run_code), esbuild
 *   (the transpiler's own process), and the sandbox processes' main threads and their other
 *   threads (isolated-vm's: slices run off the main thread, contexts prepared in the background;
 *   V8's: GC, compilation). The baseline row gives the host CPU of one caller's 20 direct calls;
 * - memory per concurrent run: the peak resident memory of each sandbox process that computed
 *   during one more batch, summed and divided by the runs (issue 29: <= 20 MB); sampled in a
 *   round of its own, since reading every process's /proc files every 10 ms costs the host CPU
 *   the timed rounds must not carry, and only of processes that worked in it, so the idle
 *   processes other rows' runners keep are not counted.
 * Configurations: the default process runner with every run from one agent (the runs may share
 * processes and isolates: docs/run-life.md), the same with `typecheck: 'reject'` (the default the
 * others turn off), the same runs from N different agents (no sharing possible), the strict mode
 * (`isolation: { strict: true }`: one run in a process at a time, a fresh isolate per run) when this build
 * has it (the row says so when it has not), the old fixed cap of 4 processes, and the in-process
 * isolate runner (no process boundary; for comparison). Sandbox processes are found as the
 * host's descendants in /proc, so a runner run_code made itself is counted too.
 * Run: `npm run build && node --no-node-snapshot --expose-gc dist/bench/many-runs.bench.js`
 * (`BENCH_QUICK=1`: fewer rounds, N = 16 only; `BENCH_SIZES=16,64` to choose N).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createToolHost, defineTool, type ToolHost } from '../tools/index.js';
import { createIsolateRunner, createProcessRunner, createRunCodeTool, type ProgramRunner } from '../runtime/index.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 3 : 6;
/**
 * Untimed rounds after the first, before the timed ones, for the baseline and every
 * configuration alike: a server runs for hours, and the first dozen batches still run the host's
 * pipeline and the sandbox processes' code before V8 has optimized it (16 programs: ~215 ms a
 * batch over rounds 2-7, ~146 ms after 20, on a quiet machine). The first round is reported on
 * its own as the cold figure.
 */
const WARM_ROUNDS = QUICK ? 10 : 20;
const CALLS = 20;
const SIZES = process.env.BENCH_SIZES ? process.env.BENCH_SIZES.split(',').map(Number) : QUICK ? [16] : [16, 64];

/** When each run's first call arrived (run index -> performance.now()). */
const firstCall = new Map<number, number>();
const host: ToolHost = createToolHost();
host.register(
  defineTool({
    name: 'wait2',
    description: 'Waits 2 ms.',
    parameters: { run: { type: 'number', required: true }, i: { type: 'number', required: true } },
    isConcurrencySafe: true,
    execute: async (args) => {
      if (args.i === 0 && !firstCall.has(args.run)) firstCall.set(args.run, performance.now());
      await new Promise((r) => setTimeout(r, 2));
      return { run: args.run, i: args.i };
    },
  }),
);

const limits = { cpuMs: 60_000, wallMs: 600_000 };
/** A configuration: its run_code tool, and whether each run comes from an agent of its own. */
interface Config {
  readonly tool: string;
  readonly agents: 'one' | 'each';
  readonly process: boolean;
  /** Why the row could not run in this build, if it could not. */
  missing?: string;
}
const closers: (() => Promise<void>)[] = [];
const configs = new Map<string, Config>();
let k = 0;
function add(name: string, options: Parameters<typeof createRunCodeTool>[0], agents: 'one' | 'each', isProcess: boolean): void {
  const tool = `rc_${++k}`;
  try {
    host.register(createRunCodeTool({ typecheck: 'off', limits, ...options, name: tool }));
    configs.set(name, { tool, agents, process: isProcess });
  } catch (err) {
    // Only the strict row may be missing (a build before issue 29's pool work refuses the option).
    if (!name.includes('strict')) throw err;
    configs.set(name, { tool, agents, process: isProcess, missing: `not in this build (${(err as Error).message.slice(0, 120)})` });
  }
}
const processRunner = createProcessRunner({ poolSize: 1 });
const capped = createProcessRunner({ poolSize: 1, maxProcesses: 4 });
const isolateRunner = createIsolateRunner({ poolSize: 2 });
closers.push(() => processRunner.close(), () => capped.close(), () => isolateRunner.close());
add('process, one agent (default pool)', { runner: processRunner }, 'one', true);
add("process, one agent, typecheck: 'reject'", { runner: processRunner, typecheck: 'reject' }, 'one', true);
add('process, a different agent per run', { runner: processRunner }, 'each', true);
// `isolation: { strict: true }` (issue 29) may not be in this build: feature-detected below.
add('process, strict (isolation: { strict: true })', { isolation: { strict: true } }, 'one', true);
add('process, fixed cap of 4 (the issue-15 default)', { runner: capped }, 'one', true);
add('isolate (in-process, no process boundary)', { runner: isolateRunner }, 'one', false);

function procCpuMs(pid: number | 'self'): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}
function procRssMb(pid: number): number {
  try {
    return (Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096) / (1024 * 1024);
  } catch {
    return 0;
  }
}
function procName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}
/** The host's descendants (its sandbox processes, and bubblewrap's children under the OS sandbox). */
function descendants(pid: number | 'self' = 'self', out: number[] = []): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const task of tasks) {
    let children: string;
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const child of children.split(' ').filter(Boolean).map(Number)) {
      out.push(child);
      descendants(child, out);
    }
  }
  return out;
}
/** CPU so far of one process: all of its threads, and its main thread alone (ms). */
interface ProcCpu {
  readonly total: number;
  readonly main: number;
}
/** Where a process's CPU is counted in the split: the host, esbuild (the host's transpiler), or a sandbox process. */
type CpuPart = 'host' | 'transpiler' | 'sandbox';
/**
 * CPU so far of the host and of each live descendant, by pid (0: the host). The host is read
 * last on the way in and first on the way out, so the reading of the other processes' /proc
 * files is not counted in its share.
 */
function cpuSnapshot(out: 'in' | 'out'): Map<number, ProcCpu & { readonly part: CpuPart }> {
  const snapshot = new Map<number, ProcCpu & { readonly part: CpuPart }>();
  const self = () => snapshot.set(0, { total: procCpuMs('self'), main: 0, part: 'host' });
  if (out === 'out') self();
  for (const pid of descendants()) {
    snapshot.set(pid, { total: procCpuMs(pid), main: threadCpuMs(pid, pid), part: procName(pid) === 'esbuild' ? 'transpiler' : 'sandbox' });
  }
  if (out === 'in') self();
  return snapshot;
}
function threadCpuMs(pid: number, tid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}
/** CPU spent between two snapshots, split: the host, the transpiler, and the sandbox processes' main threads and other threads. */
interface CpuSpent {
  total: number;
  host: number;
  transpiler: number;
  sandboxMain: number;
  sandboxOther: number;
}
/**
 * CPU spent between two snapshots: per process, so a process that exits meanwhile (another
 * row's, idle past its time) takes its earlier CPU with it instead of making the sum negative.
 * (CPU a process spent in the round before it exited is missed.) A sandbox process's threads
 * other than its main one are isolated-vm's (a program's slices off the main thread, contexts
 * prepared in the background) and V8's (GC, compilation).
 */
function cpuSpent(before: ReturnType<typeof cpuSnapshot>, after: ReturnType<typeof cpuSnapshot>, into: CpuSpent): void {
  for (const [pid, now] of after) {
    const then = before.get(pid);
    const total = now.total - (then?.total ?? 0);
    into.total += total;
    if (now.part === 'host') into.host += total;
    else if (now.part === 'transpiler') into.transpiler += total;
    else {
      const main = now.main - (then?.main ?? 0);
      into.sandboxMain += main;
      into.sandboxOther += total - main;
    }
  }
}

let callId = 0;
async function direct(n: number): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async (_, run) => {
      for (let i = 0; i < CALLS; i++) await host.call({ id: `d${++callId}`, name: 'wait2', args: { run, i } });
    }),
  );
}
async function programs(config: Config, n: number): Promise<number[]> {
  const { tool } = config;
  firstCall.clear();
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: n }, async (_, run) => {
      const t0 = performance.now();
      const agent = { id: config.agents === 'one' ? 'bench-agent' : `bench-agent-${run}` };
      const code = `for (let i = 0; i < ${CALLS}; i++) await tools.wait2({ run: ${run}, i });\nreturn ${run};`;
      const r = await host.call({ id: `p${++callId}`, name: tool, args: { code } }, { agent });
      if (r.isError || (r.value as { result?: unknown }).result !== run) throw new Error(`${tool}: ${JSON.stringify(r.error ?? r.value).slice(0, 300)}`);
      starts[run] = (firstCall.get(run) ?? Number.NaN) - t0;
    }),
  );
  return starts;
}

/** One row's CPU per run, split (the in-process runner's slices are the host's). */
function cpuSplit(cpu: CpuSpent, runs: number, isProcess: boolean): string {
  const per = (ms: number) => (ms / runs).toFixed(1);
  const parts = `${per(cpu.host)} / ${per(cpu.transpiler)}`;
  return isProcess ? `${parts} / ${per(cpu.sandboxMain)} + ${per(cpu.sandboxOther)}` : `${parts} / in host`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))]!;
};

// Each configuration runs once before the rounds; a strict mode this build lacks is reported, not run.
for (const [name, config] of configs) {
  if (config.missing !== undefined) continue;
  const r = await host.call({ id: `w${++callId}`, name: config.tool, args: { code: 'return 1;' } }, { agent: { id: 'bench-agent' } });
  if (r.isError || (r.value as { result?: unknown }).result !== 1) {
    if (!name.includes('strict')) throw new Error(`${name}: ${JSON.stringify(r.error ?? r.value).slice(0, 300)}`);
    config.missing = `not in this build (${(r.error?.message ?? 'no result').slice(0, 120)})`;
  }
}

for (const n of SIZES) {
  const rows: Record<string, string>[] = [];
  const baseMs: number[] = [];
  const baseCpu: CpuSpent = { total: 0, host: 0, transpiler: 0, sandboxMain: 0, sandboxOther: 0 };
  for (let round = 0; round <= WARM_ROUNDS + ROUNDS; round++) {
    const cpu0 = cpuSnapshot('in');
    const t0 = performance.now();
    await direct(n);
    if (round <= WARM_ROUNDS) continue;
    baseMs.push(performance.now() - t0);
    cpuSpent(cpu0, cpuSnapshot('out'), baseCpu);
  }
  const base = median(baseMs);
  // Its CPU "per run" is that of one caller's 20 calls: what the pipeline alone costs a run.
  const baseHostMs = baseCpu.host / (n * ROUNDS);
  rows.push({ task: `baseline: ${n} concurrent callers x ${CALLS} sequential host.call`, 'median ms': base.toFixed(1), ratio: '1.00x', 'first round ms': '', 'start p50 / p99 ms': '', 'runs per CPU-s': '', 'CPU ms per run: host / esbuild / sandbox main + other threads': `${baseHostMs.toFixed(1)} (20 calls)`, 'RSS per run MB': '' });
  for (const [name, config] of configs) {
    if (config.missing !== undefined) {
      rows.push({ task: `run_code ${name}`, 'median ms': config.missing });
      continue;
    }
    const wall: number[] = [];
    const starts: number[] = [];
    let first = 0;
    const cpu: CpuSpent = { total: 0, host: 0, transpiler: 0, sandboxMain: 0, sandboxOther: 0 };
    let runs = 0;
    let rssPerRun = 0;
    // No forced full GC between rounds: the batch after one ran ~30% slower (V8 drops compiled
    // code and feedback), which is not how a server that runs for hours spends its time.
    for (let round = 0; round <= WARM_ROUNDS + ROUNDS; round++) {
      const cpu0 = cpuSnapshot('in');
      const t0 = performance.now();
      const s = await programs(config, n);
      const ms = performance.now() - t0;
      if (round === 0) first = ms;
      if (round <= WARM_ROUNDS) continue;
      wall.push(ms);
      starts.push(...s);
      cpuSpent(cpu0, cpuSnapshot('out'), cpu);
      runs += n;
    }
    // Memory in a round of its own: sampling every process's /proc files every 10 ms costs the
    // host real CPU (more, the more processes), which the timed rounds above must not carry.
    // Counted: the processes that computed during the round, so the idle processes other rows'
    // runners keep are not (esbuild, the host's transpiler shared by every row, is not either).
    if (config.process) {
      const peakByPid = new Map<number, number>();
      const sampler = setInterval(() => {
        for (const pid of descendants()) peakByPid.set(pid, Math.max(peakByPid.get(pid) ?? 0, procRssMb(pid)));
      }, 10);
      const before = cpuSnapshot('in');
      await programs(config, n);
      const after = cpuSnapshot('out');
      clearInterval(sampler);
      let rss = 0;
      for (const [pid, peak] of peakByPid) if (pid !== 0 && (after.get(pid)?.total ?? 0) > (before.get(pid)?.total ?? 0) && after.get(pid)?.part === 'sandbox') rss += peak;
      rssPerRun = rss / n;
    }
    const isProcess = config.process;
    rows.push({
      task: `run_code ${name}`,
      'median ms': median(wall).toFixed(1),
      ratio: `${(median(wall) / base).toFixed(2)}x`,
      'first round ms': first.toFixed(0),
      'start p50 / p99 ms': `${pct(starts, 0.5).toFixed(1)} / ${pct(starts, 0.99).toFixed(1)}`,
      'runs per CPU-s': cpu.total > 0 ? (runs / (cpu.total / 1000)).toFixed(0) : 'n/a',
      'CPU ms per run: host / esbuild / sandbox main + other threads': cpu.total > 0 ? cpuSplit(cpu, runs, isProcess) : 'n/a',
      'RSS per run MB': isProcess ? rssPerRun.toFixed(1) : 'in host',
    });
  }
  console.log(`\n### ${n} programs at once, each ${CALLS} sequential calls to a 2 ms tool (${ROUNDS} timed rounds after a first one that grows the pool and ${WARM_ROUNDS} more untimed ones)`);
  console.table(rows);
}
console.log(
  'targets (issue 29): 16 programs of one agent <= 2.5x the baseline (stretch 2.0x); >= 85 runs per CPU-s (host and sandbox CPU together); p99 start <= 300 ms at 64 at once; <= 20 MB per run; different agents and strict: no slower than the issue-15 figures (4.1-4.2x)',
);

for (const close of closers) await close();
console.log(`\nregime: ${process.env.BENCH_REGIME ?? 'unpinned'}; ${cpus().length} CPUs; node ${process.version}; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
process.exit(0);
