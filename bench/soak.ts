/**
 * `npm run soak [-- --duration 5m] [-- --concurrency 6]` (also `SOAK_DURATION`, `SOAK_CONCURRENCY`):
 * a mixed load of normal and hostile programs through run_code on the default isolation (sandbox
 * processes, OS sandbox `auto`) for 30 minutes by default. Several agents run programs back to
 * back, each picked at random from bench/soak-scenarios.ts: escapes, memory and CPU bombs,
 * call, log and argument floods, aborts, and approvals answered after a delay.
 *
 * It prints, every interval: host RSS and heap, event-loop delay (p50, p99, max over the
 * interval), runs completed, sandbox processes started; at the end: runs by scenario, limits hit
 * by name, outcomes that were not the promised one, and lost trace events (every `tool/call`
 * needs exactly one `tool/result`, every `ptc/run-start` one `ptc/run-end`). It exits 1 when an
 * event was lost, a run's outcome was not the promised one, or the host's Object.prototype was
 * polluted. Not part of `npm test`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { z } from 'zod';
import { createToolHost, decision, defineTool, type ApprovalChannel, type ToolEvent, type ToolResult } from '../tools/index.js';
import { createProcessRunner, createRunCodeTool } from '../runtime/index.js';
import { SCENARIOS, type RunEnd, type SoakScenario } from './soak-scenarios.js';

// ---- options -------------------------------------------------------------------------------------
function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`--duration must look like 300s, 5m or 1h, got ${JSON.stringify(text)}`);
  const n = Number(m[1]);
  return n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 'm') as 'ms' | 's' | 'm' | 'h'];
}
const durationMs = parseDuration(flag('duration') ?? process.env.SOAK_DURATION ?? '30m');
const concurrency = Math.max(1, Number(flag('concurrency') ?? process.env.SOAK_CONCURRENCY ?? 6));
const reportEveryMs = Math.min(60_000, Math.max(5_000, durationMs / 10));
/** `--only <text>`: run only the scenarios whose name contains it (to look at one). */
const only = flag('only');

// ---- host, tools, policy, approval -----------------------------------------------------------
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
const approvals = { asked: 0, allowed: 0, denied: 0 };
const approval: ApprovalChannel = {
  async request({ execution, signal }) {
    approvals.asked++;
    const service = (execution.args as { service?: string }).service;
    await sleep(service === 'slow-approval' ? 2_000 : 20 + Math.random() * 280, signal);
    const answer = Math.random() < 0.7 ? 'allow-once' : 'deny';
    approvals[answer === 'allow-once' ? 'allowed' : 'denied']++;
    return answer;
  },
};
const host = createToolHost({ approval });
host.register([
  defineTool({ name: 'echo', description: 'Echo the text.', parameters: { text: { type: 'string', required: true } }, output: { schema: { type: 'object', properties: { echoed: { type: 'string', required: true } } } }, isConcurrencySafe: true, execute: (a) => ({ echoed: a.text }) }),
  defineTool({ name: 'add', description: 'Add two numbers.', parameters: { a: { type: 'number', required: true }, b: { type: 'number', required: true } }, output: { schema: { type: 'number' } }, isConcurrencySafe: true, execute: (a) => a.a + a.b }),
  defineTool({
    name: 'items',
    description: 'n items.',
    parameters: { n: { type: 'integer', required: true, maximum: 1000 } },
    output: { schema: { type: 'array', items: { type: 'object', properties: { id: { type: 'string', required: true }, value: { type: 'number', required: true } } } } },
    isConcurrencySafe: true,
    execute: (a) => Array.from({ length: a.n }, (_, i) => ({ id: `item-${i}`, value: i })),
  }),
  defineTool({ name: 'slow', description: 'Wait ms.', parameters: { ms: { type: 'number', required: true, maximum: 1000 } }, output: { schema: { type: 'number' } }, isConcurrencySafe: true, execute: async (a, exec) => (await sleep(a.ms, exec.signal), a.ms) }),
  defineTool({ name: 'big', description: 'A string of kb KiB.', parameters: { kb: { type: 'integer', required: true, maximum: 4096 } }, output: { schema: { type: 'string' } }, isConcurrencySafe: true, execute: (a) => 'b'.repeat(a.kb * 1024) }),
  defineTool({ name: 'fail', description: 'Always fails.', parameters: { message: { type: 'string', required: true } }, isConcurrencySafe: true, execute: (a) => { throw new Error(a.message); } }),
  defineTool({ name: 'read_secret', description: 'Denied by a guard.', parameters: {}, output: { schema: { type: 'string' } }, execute: () => 'the secret' }),
  defineTool({ name: 'deploy', description: 'Deploy a service (asks for approval).', parameters: { service: { type: 'string', required: true } }, output: { schema: { type: 'string' } }, execute: (a) => `deployed ${a.service}` }),
  // Deep-merges its input, as real configuration tools do: a `__proto__` key that reached it would pollute the host.
  defineTool({
    name: 'configure',
    description: 'Merge settings into the defaults.',
    parameters: z.object({ settings: z.record(z.string(), z.unknown()) }),
    output: { schema: { type: 'number' } },
    execute: (a) => {
      const merge = (target: Record<string, unknown>, source: Record<string, unknown>) => {
        for (const key of Object.keys(source)) {
          const v = source[key];
          if (v !== null && typeof v === 'object' && !Array.isArray(v)) merge((target[key] ??= {}) as Record<string, unknown>, v as Record<string, unknown>);
          else target[key] = v;
        }
        return target;
      };
      return Object.keys(merge({ mode: 'default' }, a.settings)).length;
    },
  }),
]);
host.hooks.guard((e) => (e.toolName === 'read_secret' ? 'secrets are off limits' : undefined));
host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.ask('deploys need a human') : undefined));

const processes = { started: 0, exited: 0 };
const runner = createProcessRunner({
  maxProcesses: Math.max(2, Math.min(4, concurrency)),
  onProcessEvent: (e) => (e.kind === 'started' ? processes.started++ : processes.exited++),
});
const runCode = createRunCodeTool({ host, runner, limits: { cpuMs: 1_500, wallMs: 15_000 } });
host.register(runCode);

// ---- trace accounting ------------------------------------------------------------------------
const openCalls = new Map<string, number>(); // callId -> tool/call events without a result
const openRuns = new Map<string, number>(); // tokenId -> run-starts without an end
const runEnds = new Map<string, RunEnd>(); // run_code callId -> how its run ended
const lost = { resultWithoutCall: 0, endWithoutStart: 0, duplicateCall: 0 };
let events = 0;
host.onEvent((e: ToolEvent) => {
  events++;
  switch (e.type) {
    case 'tool/call':
      if (openCalls.has(e.callId)) lost.duplicateCall++;
      openCalls.set(e.callId, 1);
      break;
    case 'tool/result':
      if (!openCalls.has(e.callId)) lost.resultWithoutCall++;
      else openCalls.delete(e.callId);
      break;
    case 'ptc/run-start':
      openRuns.set(e.tokenId, (openRuns.get(e.tokenId) ?? 0) + 1);
      break;
    case 'ptc/run-end': {
      const n = openRuns.get(e.tokenId);
      if (n === undefined) lost.endWithoutStart++;
      else if (n === 1) openRuns.delete(e.tokenId);
      else openRuns.set(e.tokenId, n - 1);
      runEnds.set(e.callId, { outcome: e.outcome, ...(e.limit ? { limit: e.limit.name } : {}) });
      break;
    }
  }
});

// ---- the load ----------------------------------------------------------------------------------
const mix = SCENARIOS.filter((s) => only === undefined || s.name.includes(only));
if (mix.length === 0) throw new Error(`--only ${JSON.stringify(only)} matches no scenario`);
const totalWeight = mix.reduce((s, x) => s + x.weight, 0);
const pick = (): SoakScenario => {
  let r = Math.random() * totalWeight;
  for (const s of mix) if ((r -= s.weight) < 0) return s;
  return mix[0]!;
};
const byScenario = new Map<string, { runs: number; unexpected: number; msTotal: number; examples: string[] }>();
const limitsHit = new Map<string, number>();
const outcomes = new Map<string, number>();
let completed = 0;
let pollutions = 0;
let callSeq = 0;

async function runOne(agent: number): Promise<void> {
  const scenario = pick();
  const id = `soak-${++callSeq}`;
  const controller = new AbortController();
  const timer = scenario.abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(new Error('the soak aborted this run')), scenario.abortAfterMs);
  const t0 = performance.now();
  let result: ToolResult;
  try {
    result = await host.call({ id, name: 'run_code', args: { code: scenario.code } }, { agent: { id: `agent-${agent}`, name: `soak agent ${agent}` }, signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
  const end = runEnds.get(id);
  runEnds.delete(id);
  const problem = scenario.check(result, end);
  const stats = byScenario.get(scenario.name) ?? { runs: 0, unexpected: 0, msTotal: 0, examples: [] };
  stats.runs++;
  stats.msTotal += performance.now() - t0;
  if (problem !== undefined) {
    stats.unexpected++;
    if (stats.examples.length < 3) stats.examples.push(problem);
  }
  byScenario.set(scenario.name, stats);
  const outcome = end?.outcome ?? (result.isError ? 'error-before-run' : 'rejected-before-run');
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  if (end?.limit) limitsHit.set(end.limit, (limitsHit.get(end.limit) ?? 0) + 1);
  if (Object.hasOwn(Object.prototype, 'soakPolluted') || Object.hasOwn(Object.prototype, 'soakInside')) {
    pollutions++;
    delete (Object.prototype as Record<string, unknown>).soakPolluted;
    delete (Object.prototype as Record<string, unknown>).soakInside;
  }
  completed++;
}

// ---- reporting ---------------------------------------------------------------------------------
const eld = monitorEventLoopDelay({ resolution: 10 });
eld.enable();
const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(0);
const startedAt = performance.now();
let maxRss = 0;
let maxDelayMs = 0;
const samples: Record<string, string | number>[] = [];
function sample(): void {
  const mem = process.memoryUsage();
  maxRss = Math.max(maxRss, mem.rss);
  const ms = (ns: number) => ns / 1e6;
  maxDelayMs = Math.max(maxDelayMs, ms(eld.max));
  const row = {
    't (s)': Math.round((performance.now() - startedAt) / 1000),
    'rss MB': mb(mem.rss),
    'heap MB': mb(mem.heapUsed),
    'loop delay p50/p99/max ms': `${ms(eld.percentile(50)).toFixed(1)} / ${ms(eld.percentile(99)).toFixed(1)} / ${ms(eld.max).toFixed(0)}`,
    runs: completed,
    processes: `${runner.stats().processes} alive, ${processes.started} started`,
    'calls in flight': openCalls.size,
    load: loadavg()[0]!.toFixed(1),
  };
  samples.push(row);
  console.log(Object.entries(row).map(([k, v]) => `${k}: ${v}`).join(' | '));
  eld.reset();
}

console.log(`soak: ${concurrency} agents, ${(durationMs / 60_000).toFixed(1)} min, ${mix.length} scenarios, OS sandbox ${runner.osSandbox}, Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
const reporter = setInterval(sample, reportEveryMs);
const deadline = startedAt + durationMs;
await Promise.all(
  Array.from({ length: concurrency }, async (_, agent) => {
    while (performance.now() < deadline) await runOne(agent);
  }),
);
clearInterval(reporter);
// Every call has returned; let the last events (a run's end after its abort grace) arrive.
await sleep(3_000);
sample();
await runCode.close();

// ---- summary -----------------------------------------------------------------------------------
const lostTotal = openCalls.size + openRuns.size + lost.resultWithoutCall + lost.endWithoutStart + lost.duplicateCall;
const unexpected = [...byScenario.values()].reduce((s, x) => s + x.unexpected, 0);
console.log(`\nruns completed: ${completed} in ${((performance.now() - startedAt) / 60_000).toFixed(1)} min; trace events: ${events}; approvals asked ${approvals.asked} (allowed ${approvals.allowed}, denied ${approvals.denied}); sandbox processes started ${processes.started}, exited ${processes.exited}`);
console.table([...byScenario].sort((a, b) => a[0].localeCompare(b[0])).map(([name, s]) => ({ scenario: name, runs: s.runs, 'mean ms': Math.round(s.msTotal / s.runs), unexpected: s.unexpected })));
console.log('run outcomes:', Object.fromEntries(outcomes));
console.log('limits hit:', Object.fromEntries([...limitsHit].sort((a, b) => b[1] - a[1])));
for (const [name, s] of byScenario) for (const example of s.examples) console.log(`unexpected (${name}): ${example}`);
console.log(`host RSS max ${mb(maxRss)} MB; event-loop delay max ${maxDelayMs.toFixed(0)} ms`);
console.log(`lost trace events: ${lostTotal} (tool/call without tool/result ${openCalls.size}, ptc/run-start without ptc/run-end ${openRuns.size}, results without an open call ${lost.resultWithoutCall}, run-ends without a start ${lost.endWithoutStart}, repeated call ids ${lost.duplicateCall})`);
console.log(`host Object.prototype polluted after ${pollutions} run(s)`);
process.exitCode = lostTotal > 0 || pollutions > 0 || unexpected > 0 ? 1 : 0;
