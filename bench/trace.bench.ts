/**
 * Cost of hash-chained traces.
 * - Per call: `host.call` of a small example tool (`team_get`, 3 events per call) with no sink
 *   (baseline), a plain JSONL sink in memory, the hash-chained writer in memory (unkeyed and
 *   keyed: HMAC-SHA256), and the hash-chained writer to a file (synchronous appends, as in
 *   `ptc run --trace`).
 * - `verifyTrace` of a 30,000-line trace (from its bytes, unkeyed and keyed) and `ptc trace html`
 *   rendering of a 1,000-call run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { createTraceWriter, memoryJsonlSink, traceFileSink, verifyTrace, type ToolHost } from '../tools/index.js';
import { createHost } from '../examples/tools.js';
import { buildCallTree } from '../cli/trace/call-tree.js';
import { renderHtml } from '../cli/trace/render-html.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-trace-bench-'));
let n = 0;
const callOn = (host: ToolHost) => () => host.call({ id: `c${++n}`, name: 'team_get', args: { id: 'u-103' } });

const bare = createHost();
const plain = createHost({ onEvent: memoryJsonlSink() });
let chainedLines: string[] = [];
const chained = createHost();
chained.onEvent(createTraceWriter({ write: (l) => void chainedLines.push(l), host: chained }));
let keyedLines: string[] = [];
const keyed = createHost();
keyed.onEvent(createTraceWriter({ write: (l) => void keyedLines.push(l), host: keyed, key: 'a bench key of at least thirty-two bytes' }));
const filed = createHost();
const fileSink = traceFileSink(join(dir, 'bench.jsonl'), { host: filed });
filed.onEvent(fileSink);

const bench = new Bench({ time: 1500, warmup: true, retainSamples: true });
bench
  .add('host.call, no sink (baseline)', callOn(bare))
  .add('host.call + plain JSONL sink (memory)', callOn(plain))
  .add('host.call + hash-chained trace (memory)', callOn(chained), { beforeEach: () => void (chainedLines.length > 100_000 && (chainedLines = [])) })
  .add('host.call + keyed hash-chained trace (memory)', callOn(keyed), { beforeEach: () => void (keyedLines.length > 100_000 && (keyedLines = [])) })
  .add('host.call + hash-chained trace (file, sync append)', callOn(filed));
await bench.run();

const median = (name: string) => {
  const t = bench.tasks.find((x) => x.name === name)!;
  const r = t.result as unknown as { latency: { p50: number; p99?: number; samples?: number[] } };
  return r.latency.p50 * 1000;
};
const p95 = (name: string) => {
  const t = bench.tasks.find((x) => x.name === name)!;
  const samples = [...((t.result as unknown as { latency: { samples?: number[] } }).latency.samples ?? [])].sort((a, b) => a - b);
  return samples.length ? samples[Math.floor(samples.length * 0.95)]! * 1000 : NaN;
};
const base = median('host.call, no sink (baseline)');
console.table(
  bench.tasks.map((t) => ({
    task: t.name,
    'median µs': median(t.name).toFixed(2),
    'p95 µs': p95(t.name).toFixed(2),
    'added µs': (median(t.name) - base).toFixed(2),
    ratio: (median(t.name) / base).toFixed(2) + 'x',
  })),
);
fileSink.close();

// verify and render, measured once each (large inputs)
const lines: string[] = [];
const big = createHost();
const w = createTraceWriter({ write: (l) => void lines.push(l), host: big });
big.onEvent(w);
for (let i = 0; i < 10_000; i++) await big.call({ id: `v${i}`, name: 'team_get', args: { id: 'u-101' } });
w.close();
const text = lines.join('\n') + '\n';
const bytes = Buffer.from(text);
let t0 = performance.now();
const v = verifyTrace(bytes);
const verifyMs = performance.now() - t0;
console.log(`verifyTrace (bytes): ${v.lines} lines (${(text.length / 1e6).toFixed(1)} MB) in ${verifyMs.toFixed(0)} ms = ${((v.lines / verifyMs) * 1000).toFixed(0)} lines/s, ok=${v.ok}`);
const keyedBig: string[] = [];
const kb = createHost();
const kw = createTraceWriter({ write: (l) => void keyedBig.push(l), host: kb, key: 'a bench key of at least thirty-two bytes' });
kb.onEvent(kw);
for (let i = 0; i < 10_000; i++) await kb.call({ id: `k${i}`, name: 'team_get', args: { id: 'u-101' } });
kw.close();
const keyedBytes = Buffer.from(keyedBig.join('\n') + '\n');
t0 = performance.now();
const kv = verifyTrace(keyedBytes, { key: 'a bench key of at least thirty-two bytes' });
const keyedMs = performance.now() - t0;
console.log(`verifyTrace (bytes, keyed): ${kv.lines} lines in ${keyedMs.toFixed(0)} ms = ${((kv.lines / keyedMs) * 1000).toFixed(0)} lines/s, ok=${kv.ok}`);
const runEvents = v.events.slice(0, 3_000).map((e) => ({ ...e, origin: { kind: 'ptc', parentCallId: 'run', tokenId: 'x' } }));
t0 = performance.now();
const html = renderHtml(buildCallTree([{ type: 'tool/call', callId: 'run', toolName: 'run_code', args: {}, time: 0, origin: { kind: 'model' } }, ...runEvents]), { title: 'bench' });
console.log(`trace html: 1,000 child calls rendered in ${(performance.now() - t0).toFixed(0)} ms (${(html.length / 1e3).toFixed(0)} kB)`);
rmSync(dir, { recursive: true, force: true });
