/**
 * Many runs at once (issue 15): N programs started together, each making 20 sequential calls to
 * a tool that waits 2 ms, through run_code, against the same calls made directly by N concurrent
 * callers (each 20 sequential `host.call`s) in the same run. Reported per configuration:
 * - the whole batch's wall time (median of the rounds after the first) and its ratio to the
 *   baseline (target for N = 16: <= 1.5x);
 * - the first round alone, where the pool grows from its one warm process;
 * - p50 / p99 start latency: from `host.call` of run_code to the program's first tool call;
 * - runs/s per core: runs divided by the CPU seconds host and sandbox processes spent;
 * - memory per concurrent run: the sandbox processes' resident memory during the batch, divided
 *   by the runs (and the host's own growth).
 * Configurations: the default process runner (elastic pool), the old fixed cap of 4 processes,
 * and the in-process isolate runner (no process boundary; for comparison).
 * Run: `npm run build && node --no-node-snapshot --expose-gc dist/bench/many-runs.bench.js`.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createToolHost, defineTool, type ToolHost } from '../tools/index.js';
import { createIsolateRunner, createProcessRunner, createRunCodeTool, type ProgramRunner } from '../runtime/index.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 3 : 6;
const CALLS = 20;
const SIZES = QUICK ? [16] : [16, 40];

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

const pids = new Set<number>();
const onProcessEvent = (e: { kind: string; pid: number | undefined }) => {
  if (e.pid === undefined) return;
  if (e.kind === 'started') pids.add(e.pid);
  else pids.delete(e.pid);
};
const limits = { cpuMs: 60_000, wallMs: 600_000 };
// Process rows (issue 29): the default pool (slots of runsPerProcess 4 in processes that serve
// one agent) with every run from one agent, and with each run from an agent of its own (no
// sharing possible); and strict isolation (a process per run).
const runners: Record<string, ProgramRunner> = {
  'process, default (slots), one agent': createProcessRunner({ poolSize: 1, onProcessEvent }),
  'process, default (slots), an agent per run': createProcessRunner({ poolSize: 1, onProcessEvent }),
  'process, strict (a process per run)': createProcessRunner({ poolSize: 1, strict: true, onProcessEvent }),
  'isolate (in-process, no process boundary)': createIsolateRunner({ poolSize: 2 }),
};
/** The agent of run `run` in a configuration. */
const agentOf = (name: string, run: number): string => (name.includes('an agent per run') || name.startsWith('process, strict') ? `agent-${run}` : 'agent-0');
const toolOf = new Map<string, string>();
let k = 0;
for (const [name, runner] of Object.entries(runners)) {
  const tool = `rc_${++k}`;
  toolOf.set(name, tool);
  host.register(createRunCodeTool({ name: tool, runner, typecheck: 'off', limits }));
}

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
/** CPU of the host and every live sandbox process, ms (children that exited meanwhile are missed). */
function totalCpuMs(): number {
  let sum = procCpuMs('self');
  for (const pid of pids) sum += procCpuMs(pid);
  return sum;
}

let callId = 0;
async function direct(n: number): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async (_, run) => {
      for (let i = 0; i < CALLS; i++) await host.call({ id: `d${++callId}`, name: 'wait2', args: { run, i } });
    }),
  );
}
async function programs(tool: string, n: number, agent: (run: number) => string): Promise<number[]> {
  firstCall.clear();
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: n }, async (_, run) => {
      const t0 = performance.now();
      const r = await host.call({ id: `p${++callId}`, name: tool, args: { code: `for (let i = 0; i < ${CALLS}; i++) await tools.wait2({ run: ${run}, i });\nreturn ${run};` } }, { agent: { id: agent(run) } });
      if (r.isError || (r.value as { result?: unknown }).result !== run) throw new Error(`${tool}: ${JSON.stringify(r.error ?? r.value).slice(0, 300)}`);
      starts[run] = (firstCall.get(run) ?? Number.NaN) - t0;
    }),
  );
  return starts;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))]!;
};

for (const n of SIZES) {
  const rows: Record<string, string>[] = [];
  const baseMs: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const t0 = performance.now();
    await direct(n);
    if (round > 0) baseMs.push(performance.now() - t0);
  }
  const base = median(baseMs);
  rows.push({ task: `baseline: ${n} concurrent callers x ${CALLS} sequential host.call`, 'median ms': base.toFixed(1), ratio: '1.00x', 'first round ms': '', 'start p50 / p99 ms': '', 'runs/s per core': '', 'RSS per run MB': '' });
  for (const [name, runner] of Object.entries(runners)) {
    const tool = toolOf.get(name)!;
    await (runner as { warmUp?: () => Promise<void> }).warmUp?.();
    const wall: number[] = [];
    const starts: number[] = [];
    let first = 0;
    let cpuMs = 0;
    let runs = 0;
    let rssPerRun = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      (globalThis as { gc?: () => void }).gc?.();
      const cpu0 = totalCpuMs();
      const t0 = performance.now();
      let peakRss = 0;
      const sampler = setInterval(() => {
        let rss = 0;
        for (const pid of pids) rss += procRssMb(pid);
        peakRss = Math.max(peakRss, rss);
      }, 10);
      const s = await programs(tool, n, (run) => agentOf(name, run));
      const ms = performance.now() - t0;
      clearInterval(sampler);
      if (round === 0) {
        first = ms;
        continue;
      }
      wall.push(ms);
      starts.push(...s);
      cpuMs += totalCpuMs() - cpu0;
      runs += n;
      rssPerRun = Math.max(rssPerRun, peakRss / n);
    }
    const isProcess = name.startsWith('process');
    rows.push({
      task: `run_code ${name}`,
      'median ms': median(wall).toFixed(1),
      ratio: `${(median(wall) / base).toFixed(2)}x`,
      'first round ms': first.toFixed(0),
      'start p50 / p99 ms': `${pct(starts, 0.5).toFixed(1)} / ${pct(starts, 0.99).toFixed(1)}`,
      'runs/s per core': cpuMs > 0 ? (runs / (cpuMs / 1000)).toFixed(0) : 'n/a',
      'RSS per run MB': isProcess ? rssPerRun.toFixed(1) : 'in host',
    });
  }
  console.log(`\n### ${n} programs at once, each ${CALLS} sequential calls to a 2 ms tool (${ROUNDS} rounds after a first one that grows the pool)`);
  console.table(rows);
}
console.log('target: 16 programs <= 1.5x the baseline with the default (process) runner; runs/s per core counts host and sandbox CPU together');

for (const runner of Object.values(runners)) await runner.close();
console.log(`\nregime: ${process.env.BENCH_REGIME ?? 'unpinned'}; ${cpus().length} CPUs; node ${process.version}; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
process.exit(0);
