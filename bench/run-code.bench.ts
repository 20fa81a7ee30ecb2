/**
 * run_code end to end (program -> bridge -> host.call pipeline -> back), in both isolation modes
 * and on `node:vm` (no isolation: the floor):
 * - 2,000 sequential `await tools.echo(args)` in one program (the realistic call of issue 15: a
 *   4-field argument of about 180 bytes, validated and echoed back), per call, against 2,000
 *   direct `host.call`s and against a direct in-process `await` with `structuredClone` of args
 *   and result; then the decomposition of a call (docs in bench/README.md): frames, guest-side
 *   JSON, a bare pipe round trip between two processes;
 * - issue 29's composite floor for the same calls: a naive isolated-vm bridge (the program awaits
 *   a host `Reference` that runs `host.call` and returns the value's JSON) with the same pipeline,
 *   plus, for process isolation, the bare pipe round trip; run_code's per-call time against it;
 * - 1,000 concurrent `tools.echo(args)` with `Promise.all` (maxInFlight 1,000), per call;
 * - 1,000 concurrent calls to a tool that waits 1 ms, at maxInFlight 8 and 100 (ideal: about
 *   1,000 / maxInFlight timer ticks), against the same rolling pool run directly in-process;
 * - 100 sequential calls returning 50 KB each, per call, against the direct baseline;
 * - start-up of a trivial program (`return 1`) through `host.call`, type check on and off, and
 *   esbuild transpile against `ts.transpileModule`.
 * Run: `npm run build && node --no-node-snapshot --expose-gc dist/bench/run-code.bench.js`.
 */
import { Bench } from 'tinybench';
import ts from 'typescript';
import { createToolHost, defineTool, type ToolHost } from '../tools/index.js';
import { createIsolateRunner, createProcessRunner, createRunCodeTool, transpileProgram, type ProgramRunner, type RunCodeTool } from '../runtime/index.js';
import { createVmRunnerForBenchmarks } from '../runtime/run-code/vm-runner.js';
import { loadIsolatedVm } from '../runtime/isolate/prepared-isolate.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SEQ = 2_000;
const CONC = 1_000;
const BIG_CALLS = 100;

// ---- tools ---------------------------------------------------------------------------------------
const noopValue = { ok: true };
/** The realistic argument (issue 15): 4 fields, about 180 bytes of JSON, echoed back. */
const echoArgs = { id: 'ord_8f3a2c91d4e5', query: 'status:open customer:"Acme Corp" created:>2026-11-01 sort:updated', limit: 25, fields: ['id', 'status', 'total', 'updatedAt', 'customer'] };
const echoBytes = JSON.stringify(echoArgs).length;
const echoArgsSource = JSON.stringify(echoArgs);
const bigValue = Array.from({ length: 500 }, (_, i) => ({ id: `row-${i}`, title: `Row number ${i} with some text`, score: i / 7, tags: ['a', 'b', 'c'] }));
const bigBytes = JSON.stringify(bigValue).length;
const tick = () => new Promise<void>((r) => setTimeout(r, 1));

const host: ToolHost = createToolHost();
host.register([
  defineTool({ name: 'noop', description: 'Does nothing.', isConcurrencySafe: true, execute: () => noopValue }),
  defineTool({
    name: 'echo',
    description: 'Echoes its arguments.',
    parameters: {
      id: { type: 'string', required: true },
      query: { type: 'string', required: true },
      limit: { type: 'number', required: true },
      fields: { type: 'array', items: { type: 'string' }, required: true },
    },
    isConcurrencySafe: true,
    execute: (args) => args,
  }),
  defineTool({ name: 'wait1', description: 'Waits 1 ms.', isConcurrencySafe: true, execute: () => tick().then(() => noopValue) }),
  defineTool({ name: 'big', description: 'Returns about 50 KB.', isConcurrencySafe: true, execute: () => bigValue }),
]);

const limits = { maxCalls: 50_000, maxInFlight: 1_000, cpuMs: 60_000, wallMs: 600_000, maxOutputBytes: 1 << 20 };
const runners: Record<string, ProgramRunner> = {
  isolate: createIsolateRunner({ poolSize: 2 }),
  'isolate-cold': createIsolateRunner({ poolSize: 0 }),
  process: createProcessRunner({ poolSize: 1 }),
  'node:vm': createVmRunnerForBenchmarks(),
};
await (runners.isolate as ReturnType<typeof createIsolateRunner>).warmUp();
await (runners.process as ReturnType<typeof createProcessRunner>).warmUp();

const tools: RunCodeTool[] = [];
function register(name: string, runner: ProgramRunner, options: { typecheck?: 'reject' | 'off'; maxInFlight?: number } = {}): string {
  const tool = createRunCodeTool({ name, runner, typecheck: options.typecheck ?? 'off', limits: { ...limits, ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}) } });
  host.register(tool);
  tools.push(tool);
  return name;
}
const modes = ['isolate', 'process', 'node:vm'] as const;
const slug = (m: string) => m.replace(/[^a-z]/g, '_');
for (const m of modes) {
  register(`rc_${slug(m)}`, runners[m]!);
  register(`rc_${slug(m)}_checked`, runners[m]!, { typecheck: 'reject' });
  register(`rc_${slug(m)}_8`, runners[m]!, { maxInFlight: 8 });
  register(`rc_${slug(m)}_100`, runners[m]!, { maxInFlight: 100 });
}
register('rc_isolate_cold', runners['isolate-cold']!);
register('rc_isolate_cold_checked', runners['isolate-cold']!, { typecheck: 'reject' });

let id = 0;
async function runProgram(tool: string, code: string): Promise<void> {
  const r = await host.call({ id: `b${++id}`, name: tool, args: { code } });
  if (r.isError || (r.value as { rejected?: unknown }).rejected) throw new Error(`${tool}: ${JSON.stringify(r.error ?? r.value)}`);
}

// ---- baselines -----------------------------------------------------------------------------------
const echoDirect = async (args: unknown) => structuredClone(structuredClone(args));
const bigDirect = async (args: unknown) => {
  structuredClone(args);
  return structuredClone(bigValue);
};
async function pool(n: number, limit: number, work: () => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) {
      next++;
      await work();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, lane));
}

// ---- statistics ----------------------------------------------------------------------------------
type Stat = { median: number; p95: number };
function statOf(bench: Bench, name: string, perOp: number): Stat {
  const r = bench.getTask(name)?.result as { latency?: { samples?: number[] } } | undefined;
  const s = [...(r?.latency?.samples ?? [])].sort((a, b) => a - b);
  if (s.length === 0) return { median: Number.NaN, p95: Number.NaN };
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(s.length * q))]!;
  return { median: at(0.5) / perOp, p95: at(0.95) / perOp };
}
function print(title: string, bench: Bench, baseline: string, perOp: Record<string, number>, unit: 'µs' | 'ms') {
  const scale = unit === 'µs' ? 1000 : 1;
  const base = statOf(bench, baseline, perOp[baseline] ?? 1).median;
  console.log(`\n### ${title}`);
  console.table(
    bench.tasks.map((t) => {
      const s = statOf(bench, t.name, perOp[t.name] ?? 1);
      return { task: t.name, median: `${(s.median * scale).toFixed(unit === 'µs' ? 2 : 2)} ${unit}`, p95: `${(s.p95 * scale).toFixed(2)} ${unit}`, ratio: `${(s.median / base).toFixed(2)}x` };
    }),
  );
}
const heavy = { time: 0, iterations: QUICK ? 3 : 7, warmup: true, warmupIterations: 1, warmupTime: 0, retainSamples: true } as const;

// ---- 1. sequential realistic calls --------------------------------------------------------------
/** Per-call medians (ms) of section 1 and the bare pipe round trip of 1b, for 1c. */
const sequentialPerCall: Partial<Record<'isolate' | 'process', number>> = {};
let pipeRoundTripMs = Number.NaN;
{
  const bench = new Bench(heavy);
  const perOp: Record<string, number> = {};
  const add = (name: string, fn: () => Promise<void>) => {
    bench.add(name, fn);
    perOp[name] = SEQ;
  };
  add('baseline: direct await + structuredClone both ways', async () => {
    for (let i = 0; i < SEQ; i++) await echoDirect(echoArgs);
  });
  add('direct host.call', async () => {
    for (let i = 0; i < SEQ; i++) await host.call({ id: `d${i}`, name: 'echo', args: echoArgs });
  });
  for (const m of modes) add(`run_code ${m}`, () => runProgram(`rc_${slug(m)}`, `const a = ${echoArgsSource};\nfor (let i = 0; i < ${SEQ}; i++) await tools.echo(a);\nreturn 1;`));
  await bench.run();
  for (const m of ['isolate', 'process'] as const) sequentialPerCall[m] = statOf(bench, `run_code ${m}`, SEQ).median;
  print(`${SEQ.toLocaleString('en')} sequential calls echoing a ${echoBytes}-byte, 4-field argument (per call; targets: process <= 20x, isolate <= 8x)`, bench, 'baseline: direct await + structuredClone both ways', perOp, 'µs');
}

// ---- 1b. where a call's time goes -----------------------------------------------------------------
{
  const { encodeFrame, FrameReader } = await import('../runtime/sandbox-process/frames.js');
  const argsJson = JSON.stringify(echoArgs);
  const callFrame = { t: 'calls', runId: 1, items: [1, 'echo', argsJson] } as never;
  const resultFrame = { t: 'results', runId: 1, items: [1, 1, argsJson, ''] } as never;
  let got = 0;
  const reader = new FrameReader(() => 1 << 30, () => got++);
  const { spawn } = await import('node:child_process');
  const echoChild = spawn(process.execPath, ['-e', "process.stdin.on('data', (d) => process.stdout.write(d));"], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise((r) => setTimeout(r, 300));
  const ping = Buffer.alloc(54, 1);
  const pipeRoundTrip = () =>
    new Promise<void>((resolve) => {
      echoChild.stdout!.once('data', () => resolve());
      echoChild.stdin!.write(ping);
    });
  const N = 2_000;
  const bench = new Bench({ time: 0, iterations: QUICK ? 5 : 15, warmup: true, warmupIterations: 2, warmupTime: 0, retainSamples: true });
  const perOp: Record<string, number> = {};
  const add = (name: string, fn: () => unknown, n = N) => {
    bench.add(name, fn as () => Promise<void>);
    perOp[name] = n;
  };
  add('baseline: direct await + structuredClone both ways', async () => {
    for (let i = 0; i < N; i++) await echoDirect(echoArgs);
  });
  add('guest-side JSON: stringify args + parse result (in this V8, warm)', () => {
    for (let i = 0; i < N; i++) JSON.parse(JSON.stringify(echoArgs));
  });
  add('frames: encode + decode a call and its result', () => {
    for (let i = 0; i < N; i++) {
      reader.push(encodeFrame(callFrame));
      reader.push(encodeFrame(resultFrame));
    }
  });
  add('process hop: bare 54-byte pipe round trip to a child', async () => {
    for (let i = 0; i < N / 10; i++) await pipeRoundTrip();
  }, N / 10);
  await bench.run();
  echoChild.kill();
  pipeRoundTripMs = statOf(bench, 'process hop: bare 54-byte pipe round trip to a child', N / 10).median;
  print('pieces of one call (per call), same run', bench, 'baseline: direct await + structuredClone both ways', perOp, 'µs');
  if (got === 0) throw new Error('frames were not decoded');
}

// ---- 1c. the composite floor (issue 29) ----------------------------------------------------------
// The least an isolate bridge to the same pipeline can cost: the program awaits a host function
// (isolated-vm's own async `Reference.apply`), which parses the arguments, runs `host.call` and
// returns the value's JSON; no limits, tokens, trace, queues or call list. A process adds at least
// one bare pipe round trip to that. Per-call targets: isolate <= 1.4x, process <= 1.8x (pinned).
{
  const ivm = loadIsolatedVm();
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  let calls = 0;
  const call = new ivm.Reference(async (name: string, argsJson: string) => {
    const r = await host.call({ id: `n${++calls}`, name, args: JSON.parse(argsJson) as Record<string, unknown> });
    if (r.isError) throw new Error(`${name}: ${r.error?.message ?? 'failed'}`);
    return JSON.stringify(r.value ?? null);
  });
  await context.global.set('$call', call);
  const program = `(async () => { const a = ${echoArgsSource}; let n = 0; for (let i = 0; i < ${SEQ}; i++) n += JSON.parse(await $call.apply(undefined, ['echo', JSON.stringify(a)], { result: { promise: true } })).limit; return n; })()`;
  const naive = 'naive isolated-vm bridge + the pipeline';
  const bench = new Bench(heavy);
  bench.add(naive, async () => {
    const n = (await context.eval(program, { promise: true })) as number;
    if (n !== SEQ * echoArgs.limit) throw new Error(`the naive bridge returned ${n}`);
  });
  await bench.run();
  isolate.dispose();
  const floor = statOf(bench, naive, SEQ).median;
  const rows = [
    { task: `${naive} (isolate floor)`, 'per call': `${(floor * 1000).toFixed(2)} µs`, 'run_code per call': '', ratio: '' },
    { task: `+ a bare pipe round trip (process floor)`, 'per call': `${((floor + pipeRoundTripMs) * 1000).toFixed(2)} µs`, 'run_code per call': '', ratio: '' },
    { task: 'run_code isolate vs the isolate floor (target <= 1.4x)', 'per call': '', 'run_code per call': `${(sequentialPerCall.isolate! * 1000).toFixed(2)} µs`, ratio: `${(sequentialPerCall.isolate! / floor).toFixed(2)}x` },
    { task: 'run_code process vs the process floor (target <= 1.8x)', 'per call': '', 'run_code per call': `${(sequentialPerCall.process! * 1000).toFixed(2)} µs`, ratio: `${(sequentialPerCall.process! / (floor + pipeRoundTripMs)).toFixed(2)}x` },
  ];
  console.log(`\n### the composite floor of section 1's calls (issue 29; run pinned for the target)`);
  console.table(rows);
}

// ---- 2. concurrent realistic calls ----------------------------------------------------------------
{
  const bench = new Bench(heavy);
  const perOp: Record<string, number> = {};
  const add = (name: string, fn: () => Promise<void>) => {
    bench.add(name, fn);
    perOp[name] = CONC;
  };
  add('baseline: Promise.all of direct awaits + structuredClone both ways', async () => {
    await Promise.all(Array.from({ length: CONC }, () => echoDirect(echoArgs)));
  });
  add('direct host.call, Promise.all', async () => {
    await Promise.all(Array.from({ length: CONC }, (_, i) => host.call({ id: `c${i}`, name: 'echo', args: echoArgs })));
  });
  for (const m of modes) add(`run_code ${m}`, () => runProgram(`rc_${slug(m)}`, `const a = ${echoArgsSource};\nawait Promise.all(Array.from({ length: ${CONC} }, () => tools.echo(a)));\nreturn 1;`));
  await bench.run();
  print(`${CONC} concurrent calls echoing the same argument, maxInFlight 1000 (per call; target: process <= 4x)`, bench, 'baseline: Promise.all of direct awaits + structuredClone both ways', perOp, 'µs');
}

// ---- 3. concurrent calls to a 1 ms tool ----------------------------------------------------------
for (const limit of [8, 100]) {
  const bench = new Bench({ ...heavy, iterations: QUICK ? 2 : 5 });
  bench.add(`baseline: rolling pool of ${limit}, direct`, () => pool(CONC, limit, () => tick().then(() => structuredClone(noopValue))));
  for (const m of modes) bench.add(`run_code ${m}`, () => runProgram(`rc_${slug(m)}_${limit}`, `await Promise.all(Array.from({ length: ${CONC} }, () => tools.wait1()));\nreturn 1;`));
  await bench.run();
  print(`${CONC} concurrent calls to a 1 ms tool, maxInFlight ${limit} (whole run; ideal about ${Math.ceil(CONC / limit)} timer ticks)`, bench, `baseline: rolling pool of ${limit}, direct`, {}, 'ms');
}

// ---- 4. 50 KB results ----------------------------------------------------------------------------
{
  const bench = new Bench(heavy);
  const perOp: Record<string, number> = {};
  const add = (name: string, fn: () => Promise<void>) => {
    bench.add(name, fn);
    perOp[name] = BIG_CALLS;
  };
  add('baseline: direct await + structuredClone', async () => {
    for (let i = 0; i < BIG_CALLS; i++) await bigDirect({});
  });
  add('direct host.call', async () => {
    for (let i = 0; i < BIG_CALLS; i++) await host.call({ id: `g${i}`, name: 'big', args: {} });
  });
  for (const m of modes) add(`run_code ${m}`, () => runProgram(`rc_${slug(m)}`, `let n = 0;\nfor (let i = 0; i < ${BIG_CALLS}; i++) n += (await tools.big()).length;\nreturn n;`));
  await bench.run();
  print(`${BIG_CALLS} sequential calls returning ${(bigBytes / 1024).toFixed(0)} KB each (per call)`, bench, 'baseline: direct await + structuredClone', perOp, 'µs');
}

// ---- 5. start-up ---------------------------------------------------------------------------------
{
  const bench = new Bench({ time: QUICK ? 300 : 1_500, warmup: true, warmupTime: 200, retainSamples: true });
  for (const m of ['node:vm', 'isolate', 'process'] as const) {
    bench.add(`run_code ${m}${m === 'isolate' ? ' (pooled)' : m === 'process' ? ' (warm process)' : ''}, typecheck off`, () => runProgram(`rc_${slug(m)}`, 'return 1;'), {
      ...(m === 'isolate' ? { beforeEach: () => (runners.isolate as ReturnType<typeof createIsolateRunner>).warmUp() } : {}),
    });
  }
  bench.add('run_code isolate (cold isolate), typecheck off', () => runProgram('rc_isolate_cold', 'return 1;'));
  bench.add('run_code isolate (pooled), typecheck reject', () => runProgram('rc_isolate_checked', 'const x: number = 1;\nreturn x;'), {
    beforeEach: () => (runners.isolate as ReturnType<typeof createIsolateRunner>).warmUp(),
  });
  bench.add('run_code process (warm), typecheck reject', () => runProgram('rc_process_checked', 'const x: number = 1;\nreturn x;'));
  await bench.run();
  print('start-up of a trivial program through host.call (whole call)', bench, 'run_code node:vm, typecheck off', {}, 'ms');
}

// ---- 6. transpile --------------------------------------------------------------------------------
{
  const program = Array.from({ length: 5 }, (_, i) => [
    `interface Row${i} { id: string; score: number }`,
    `const rows${i}: Row${i}[] = (await tools.big()) as Row${i}[];`,
    `const top${i} = rows${i}.filter((r: Row${i}) => r.score > ${i}).map((r) => ({ id: r.id, s: r.score as number }));`,
    `if (top${i}.length === 0) console.log("none ${i}");`,
  ].join('\n')).join('\n') + '\nreturn 1;';
  const wrapped = `async function main() {\n${program}\n}`;
  const bench = new Bench({ time: QUICK ? 300 : 1_000, warmup: true, retainSamples: true });
  bench.add('esbuild transform + line map (used)', async () => {
    if (!(await transpileProgram(program)).ok) throw new Error('transpile failed');
  });
  bench.add('ts.transpileModule', () => {
    ts.transpileModule(wrapped, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } });
  });
  await bench.run();
  print(`transpile a ${program.split('\n').length}-line program`, bench, 'esbuild transform + line map (used)', {}, 'ms');
}

for (const runner of Object.values(runners)) await runner.close();
console.log(`\nregime: ${process.env.BENCH_REGIME ?? 'unpinned (run under `taskset -c 0` to pin)'}; node ${process.version}`);
process.exit(0);
