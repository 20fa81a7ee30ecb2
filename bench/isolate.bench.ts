/**
 * The isolate runners, below run_code: start-up of a trivial program (node:vm as the floor, a
 * new isolate, a warm pooled isolate, a warm sandbox process, a new sandbox process), the
 * per-call cost of the guest <-> host hop (sequential and 1,000 concurrent, against a direct
 * `await` with `structuredClone` of args and result; a bare pipe and Node IPC round trip between
 * two processes, the floor of a sandbox call), and memory per idle pooled isolate and per
 * idle sandbox process. Run: `npm run build && node --no-node-snapshot --expose-gc dist/bench/isolate.bench.js`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import vm from 'node:vm';
import { Bench } from 'tinybench';
import { createIsolateRunner } from '../runtime/isolate/index.js';
import { BENCH_RUN_LIMITS } from './runner-limits.js';
import type { GuestBridge, ProgramRunner, RunLimits } from '../runtime/program-runner.js';
import { createProcessRunner } from '../runtime/sandbox-process/index.js';

const limits: RunLimits = BENCH_RUN_LIMITS;
const bridge: GuestBridge = {
  call: async (_name, argsJson) => ({ ok: true, json: argsJson }),
  log: () => undefined,
};
const never = new AbortController().signal;

async function runOk(runner: ProgramRunner, js: string): Promise<void> {
  const outcome = await runner.run({ js, toolNames: ['noop'], limits }, bridge, never);
  if (!outcome.ok) throw new Error(`bench program failed: ${JSON.stringify(outcome.failure)}`);
}

type Row = { task: string; 'median': string; 'p95': string; ratio: string };
function table(bench: Bench, baseline: string, unit: 'µs' | 'ms', perOp = 1): Row[] {
  const scale = unit === 'µs' ? 1000 : 1;
  const stat = (name: string, key: 'p50' | 'p99' | 'p75') => {
    const r = bench.getTask(name)?.result as { latency?: { p50?: number; p75?: number; p99?: number; samples?: number[] } } | undefined;
    return ((r?.latency?.[key] ?? Number.NaN) * scale) / perOp;
  };
  const p95 = (name: string) => {
    const r = bench.getTask(name)?.result as { latency?: { samples?: number[] } } | undefined;
    const s = [...(r?.latency?.samples ?? [])].sort((a, b) => a - b);
    return s.length ? (s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! * scale) / perOp : Number.NaN;
  };
  const base = stat(baseline, 'p50');
  return bench.tasks.map((t) => ({
    task: t.name,
    median: `${stat(t.name, 'p50').toFixed(unit === 'µs' ? 1 : 2)} ${unit}`,
    p95: `${p95(t.name).toFixed(unit === 'µs' ? 1 : 2)} ${unit}`,
    ratio: `${(stat(t.name, 'p50') / base).toFixed(2)}x`,
  }));
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const settle = () => new Promise((r) => setTimeout(r, 200));

// ---- start-up ----------------------------------------------------------------------------------
const cold = createIsolateRunner({ poolSize: 0 });
const pooled = createIsolateRunner({ poolSize: 2 });
const warmProcess = createProcessRunner({ poolSize: 1, maxProcesses: 2 });
await pooled.warmUp();
await warmProcess.warmUp();

// Each task starts on a collected heap: the node:vm task leaves thousands of contexts behind.
const startup = new Bench({ time: 2000, warmup: true, warmupTime: 300, retainSamples: true, setup: () => gc() });
startup
  .add('node:vm new context (floor)', async () => {
    const context = vm.createContext({});
    const value: unknown = await vm.runInContext('(async () => { return 1; })()', context);
    JSON.stringify(value);
  })
  // Between iterations the event loop turns, as it does between a model's turns: the previous
  // run's isolate is disposed then (~0.2 ms), not inside the next run. (tinybench never yields
  // between iterations of its own; without this the runner disposes it at once, see
  // runtime/isolate/disposal-queue.ts.)
  .add('isolate: new isolate (cold)', () => runOk(cold, 'return 1;'), { beforeEach: () => new Promise((r) => setImmediate(r)) })
  .add('isolate: from pool', () => runOk(pooled, 'return 1;'), { beforeEach: () => pooled.warmUp() })
  // The worker refills its own isolate pool right after a run (a few ms, off the host): pause so
  // each iteration starts like a run after model think time, with a warm process and isolate.
  .add('process: warm process', () => runOk(warmProcess, 'return 1;'), { beforeEach: () => new Promise((r) => setTimeout(r, 15)) });
await startup.run();
console.log('start-up of `return 1` (one run per iteration)');
console.table(table(startup, 'node:vm new context (floor)', 'ms'));

const newProcess = createProcessRunner({ poolSize: 0, maxProcesses: 1, maxRunsPerProcess: 1 });
const spawnBench = new Bench({ time: 0, iterations: 8, warmup: false, retainSamples: true });
spawnBench.add('process: new process (cold)', () => runOk(newProcess, 'return 1;'));
await spawnBench.run();
console.table(table(spawnBench, 'process: new process (cold)', 'ms'));
await newProcess.close();
await cold.close();

// ---- calls -------------------------------------------------------------------------------------
const SEQ = 10_000; // the definition: 10,000 sequential calls
const CONC = 1000;
const direct = async (args: unknown) => structuredClone(args);
const vmContext = vm.createContext({ tools: { noop: (a: unknown) => Promise.resolve(structuredClone(a)) } });
const seqJs = `for (let i = 0; i < ${SEQ}; i++) await tools.noop({ i }); return ${SEQ};`;
const concJs = `const r = await Promise.all(Array.from({ length: ${CONC} }, (_, i) => tools.noop({ i }))); return r.length;`;
const calls = new Bench({ time: 3000, warmup: true, warmupTime: 500, retainSamples: true });
calls
  .add(`direct await + structuredClone x${SEQ} (baseline)`, async () => {
    for (let i = 0; i < SEQ; i++) structuredClone(await direct(structuredClone({ i })));
  })
  .add(`node:vm sequential x${SEQ} (floor)`, async () => {
    await vm.runInContext(`(async () => { ${seqJs} })()`, vmContext);
  })
  .add(`isolate sequential x${SEQ}`, () => runOk(pooled, seqJs), { beforeEach: () => pooled.warmUp() })
  .add(`process sequential x${SEQ}`, () => runOk(warmProcess, seqJs));
await calls.run();
console.log(`per call, sequential (run time / ${SEQ}, start-up included)`);
console.table(table(calls, `direct await + structuredClone x${SEQ} (baseline)`, 'µs', SEQ));

// What one process hop costs on this machine right now, with nothing else in it: a sandbox call
// is such a round trip plus the work at both ends.
const HOPS = 1_000;
const hops = new Bench({ time: 1000, iterations: 16, warmup: true, warmupTime: 200, retainSamples: true });
const echo = spawn(process.execPath, [new URL('./echo-child.js', import.meta.url).pathname], { stdio: ['ignore', 'inherit', 'inherit', 'pipe', 'pipe', 'ipc'] });
const [echoIn, echoOut] = [echo.stdio[3] as Writable, echo.stdio[4] as Readable];
await new Promise<void>((resolve) => echo.once('spawn', () => resolve()));
const frame = Buffer.from(JSON.stringify({ t: 'calls', runId: 1, items: [1, 'noop', '{"i":1}'] }));
const roundTrips = (count: number, send: () => void, subscribe: (listener: () => void) => () => void) =>
  new Promise<void>((resolve) => {
    let left = count;
    const unsubscribe = subscribe(() => {
      if (--left === 0) {
        unsubscribe();
        resolve();
      } else send();
    });
    send();
  });
hops
  .add(`bare pipe round trip x${HOPS} (a ${frame.length}-byte frame)`, () =>
    roundTrips(HOPS, () => echoIn.write(frame), (listener) => {
      echoOut.on('data', listener);
      return () => echoOut.off('data', listener);
    }),
  )
  .add(`bare Node IPC round trip x${HOPS} (child.send)`, () =>
    roundTrips(HOPS, () => echo.send({ i: 1 }), (listener) => {
      echo.on('message', listener);
      return () => echo.off('message', listener);
    }),
  );
await hops.run();
echo.kill();
console.log('per round trip between two processes, nothing else done (the floor of a sandbox call)');
console.table(table(hops, `bare pipe round trip x${HOPS} (a ${frame.length}-byte frame)`, 'µs', HOPS));

const concurrent = new Bench({ time: 3000, warmup: true, warmupTime: 500, retainSamples: true });
concurrent
  .add(`direct Promise.all x${CONC} (baseline)`, async () => {
    await Promise.all(Array.from({ length: CONC }, (_, i) => direct(structuredClone({ i })).then(structuredClone)));
  })
  .add(`isolate Promise.all x${CONC}`, () => runOk(pooled, concJs), { beforeEach: () => pooled.warmUp() })
  // After each run the sandbox process disposes its isolate and prepares the next (~3.5 ms of its
  // CPU, 3 ms after the run): back to back, on a shared core, that lands inside the next run. The
  // pause is the time a model's turn leaves between runs; the row without it is the throughput.
  .add(`process Promise.all x${CONC}, 15 ms between runs`, () => runOk(warmProcess, concJs), { beforeEach: () => new Promise((r) => setTimeout(r, 15)) })
  .add(`process Promise.all x${CONC}, back to back`, () => runOk(warmProcess, concJs));
await concurrent.run();
console.log(`per call, ${CONC} concurrent (run time / ${CONC}, start-up included)`);
console.table(table(concurrent, `direct Promise.all x${CONC} (baseline)`, 'µs', CONC));
await pooled.close();
await warmProcess.close();

// ---- memory ------------------------------------------------------------------------------------
const rssMb = () => process.memoryUsage().rss / (1024 * 1024);
const N = 20;
gc();
await settle();
const before = rssMb();
const many = createIsolateRunner({ poolSize: N });
await many.warmUp();
gc();
await settle();
const perIsolate = (rssMb() - before) / N;
await many.close();

const pids: number[] = [];
const processes = createProcessRunner({ poolSize: 3, maxProcesses: 3, onProcessEvent: (e) => e.kind === 'started' && e.pid !== undefined && pids.push(e.pid) });
await processes.warmUp();
await settle();
const perProcess =
  pids
    .map((pid) => Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096)
    .reduce((a, b) => a + b, 0) /
  pids.length /
  (1024 * 1024);
await processes.close();
console.table([
  { what: `idle pooled isolate (host RSS growth / ${N})`, MB: perIsolate.toFixed(2), target: '<= 1.5 MB', met: perIsolate <= 1.5 ? 'yes' : 'NO' },
  { what: 'idle sandbox process (RSS of the child, with its warm isolate)', MB: perProcess.toFixed(1), target: '-', met: '-' },
]);
