/**
 * What the OS sandbox (bubblewrap) costs a sandbox process, side by side with the same runner
 * without it, in one run: the one-time probe, a new process's start-up and first run, a warm
 * process's start of `return 1`, the per-call cost of sequential and concurrent calls, and
 * the memory of an idle process (the worker's RSS, and bubblewrap's own two processes).
 * Samples of the two modes alternate round by round, so a load swing hits both alike.
 * Run: `npm run build && node --no-node-snapshot --expose-gc dist/bench/os-sandbox.bench.js`
 * (`npm run bench -- os-sandbox`). `OS_SANDBOX_BENCH_ROUNDS` scales the sample counts.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { BENCH_RUN_LIMITS } from './runner-limits.js';
import type { GuestBridge, RunLimits } from '../runtime/program-runner.js';
import { createProcessRunner, type ProcessRunner } from '../runtime/sandbox-process/index.js';

const limits: RunLimits = BENCH_RUN_LIMITS;
const bridge: GuestBridge = { call: async (_name, argsJson) => ({ ok: true, json: argsJson }), log: () => undefined };
const never = new AbortController().signal;
const scale = Math.max(1, Number(process.env.OS_SANDBOX_BENCH_ROUNDS ?? 1));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timeRun(runner: ProcessRunner, js: string): Promise<number> {
  const t0 = performance.now();
  const outcome = await runner.run({ js, toolNames: ['noop'], limits }, bridge, never);
  if (!outcome.ok) throw new Error(`bench program failed: ${JSON.stringify(outcome.failure)}`);
  return performance.now() - t0;
}

const quantile = (samples: number[], q: number) => {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))] ?? Number.NaN;
};

type Mode = 'bubblewrap' | 'none';
const modes: Mode[] = ['bubblewrap', 'none'];
const rows: { task: string; bubblewrap: string; none: string; added: string; ratio: string }[] = [];
function report(task: string, samples: Record<Mode, number[]>, unit: 'ms' | 'µs', perOp = 1): void {
  const f = unit === 'µs' ? 1000 : 1;
  const med = (m: Mode) => (quantile(samples[m], 0.5) * f) / perOp;
  const p95 = (m: Mode) => (quantile(samples[m], 0.95) * f) / perOp;
  const digits = unit === 'µs' ? 1 : 2;
  const cell = (m: Mode) => `${med(m).toFixed(digits)} ${unit} (p95 ${p95(m).toFixed(digits)})`;
  rows.push({ task, bubblewrap: cell('bubblewrap'), none: cell('none'), added: `${(med('bubblewrap') - med('none')).toFixed(digits)} ${unit}`, ratio: `${(med('bubblewrap') / med('none')).toFixed(2)}x` });
}

const loadBefore = loadavg();

// ---- the probe (first runner of the process; cached after) -------------------------------------
const p0 = performance.now();
const probeRunner = createProcessRunner({ poolSize: 0, osSandbox: 'require' });
const probeMs = performance.now() - p0;
await probeRunner.close();

// ---- a new process: spawn, ready, first run of `return 1` --------------------------------------
const fresh: Record<Mode, ProcessRunner> = {
  bubblewrap: createProcessRunner({ poolSize: 0, maxProcesses: 1, maxRunsPerProcess: 1, osSandbox: 'require' }),
  none: createProcessRunner({ poolSize: 0, maxProcesses: 1, maxRunsPerProcess: 1, osSandbox: 'off' }),
};
const coldSamples: Record<Mode, number[]> = { bubblewrap: [], none: [] };
for (let round = 0; round < 2 + 20 * scale; round++) {
  for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
    const ms = await timeRun(fresh[mode], 'return 1;');
    if (round >= 2) coldSamples[mode].push(ms);
    await pause(50); // the killed process exits; its replacement is not started (poolSize 0)
  }
}
await Promise.all(modes.map((m) => fresh[m].close()));
report('new process: spawn + first run of `return 1`', coldSamples, 'ms');

// ---- warm processes -------------------------------------------------------------------------------
const warm: Record<Mode, ProcessRunner> = {
  bubblewrap: createProcessRunner({ poolSize: 1, maxProcesses: 1, maxRunsPerProcess: 1_000_000, osSandbox: 'require' }),
  none: createProcessRunner({ poolSize: 1, maxProcesses: 1, maxRunsPerProcess: 1_000_000, osSandbox: 'off' }),
};
await Promise.all(modes.map((m) => warm[m].warmUp()));

const startSamples: Record<Mode, number[]> = { bubblewrap: [], none: [] };
for (let round = 0; round < 5 + 60 * scale; round++) {
  for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
    await pause(15);
    const ms = await timeRun(warm[mode], 'return 1;');
    if (round >= 5) startSamples[mode].push(ms);
  }
}
report('warm process: run `return 1` (15 ms pause before each)', startSamples, 'ms');

const SEQ = 2_000;
const seqJs = `for (let i = 0; i < ${SEQ}; i++) await tools.noop({ i }); return 1;`;
const seqSamples: Record<Mode, number[]> = { bubblewrap: [], none: [] };
for (let round = 0; round < 2 + 8 * scale; round++) {
  for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
    const ms = await timeRun(warm[mode], seqJs);
    if (round >= 2) seqSamples[mode].push(ms);
  }
}
report(`per call, ${SEQ} sequential (run time / ${SEQ})`, seqSamples, 'µs', SEQ);

const CONC = 1_000;
const concJs = `await Promise.all(Array.from({ length: ${CONC} }, (_, i) => tools.noop({ i }))); return 1;`;
const concSamples: Record<Mode, number[]> = { bubblewrap: [], none: [] };
for (let round = 0; round < 3 + 15 * scale; round++) {
  for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
    const ms = await timeRun(warm[mode], concJs);
    if (round >= 3) concSamples[mode].push(ms);
  }
}
report(`per call, ${CONC} concurrent (run time / ${CONC})`, concSamples, 'µs', CONC);
await Promise.all(modes.map((m) => warm[m].close()));

// ---- memory of an idle process ---------------------------------------------------------------------
const rssMb = (pid: number) => (Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096) / (1024 * 1024);
const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
const memory: Record<string, string>[] = [];
for (const mode of modes) {
  const pids: number[] = [];
  const runner = createProcessRunner({ poolSize: 3, maxProcesses: 3, osSandbox: mode === 'bubblewrap' ? 'require' : 'off', onProcessEvent: (e) => e.kind === 'started' && e.pid !== undefined && pids.push(e.pid) });
  await runner.warmUp();
  await pause(300);
  const worker = pids.map(rssMb).reduce((a, b) => a + b, 0) / pids.length;
  // bwrap (outside) -> bwrap's init (inside) -> the worker.
  const bwrapRss = (p: number) => rssMb(parentOf(p)) + rssMb(parentOf(parentOf(p)));
  const launcher = mode === 'bubblewrap' ? pids.map(bwrapRss).reduce((a, b) => a + b, 0) / pids.length : 0;
  memory.push({ mode, 'worker RSS': `${worker.toFixed(1)} MB`, 'bwrap monitor + init RSS': mode === 'bubblewrap' ? `${launcher.toFixed(1)} MB` : '-' });
  await runner.close();
}

console.log(`OS sandbox probe (first runner in the process: ldd, bwrap --version/--help, node --version in the sandbox): ${probeMs.toFixed(1)} ms`);
console.table(rows);
console.table(memory);
console.log(`load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadavg().map((l) => l.toFixed(2)).join(' ')} (${new Date().toISOString()})`);
