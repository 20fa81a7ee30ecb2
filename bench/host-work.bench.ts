/**
 * Host work a hostile program provokes, through run_code with the default isolation (sandbox
 * processes), measured from the host's side:
 * - 20 calls whose 100k-item arguments fail validation (a string array given numbers), and 20
 *   with 100k unknown keys (`hostMs` raised so that all of them run), then a loop of up to
 *   1,000 such calls under the default limits: the longest stall of the host's event loop
 *   (`perf_hooks.monitorEventLoopDelay`), the time spent in stalls over 50 ms, host CPU, the
 *   guest's CPU, and the length of the error message the program got;
 * - a 15 KB result nested 500 deep: the bytes of run_code's content (what the model reads)
 *   against `stats.returnedBytes`;
 * - 20 calls echoing a 120 KB argument nested 60 deep: the JSONL bytes of each call's events, as
 *   a trace sink writes them.
 * Not a timing benchmark of the happy path (see pipeline and run-code); one pass of each.
 * Run: `npm run build && node --no-node-snapshot dist/bench/host-work.bench.js`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { z } from 'zod';
import { createToolHost, defineTool, type ToolEvent } from '../tools/index.js';
import { createRunCodeTool } from '../runtime/index.js';

const eventBytes = new Map<string, number>();
const host = createToolHost({
  onEvent: (e: ToolEvent) => {
    // What a JSONL trace sink pays for each event.
    if (!recording) return;
    const key = e.type;
    eventBytes.set(key, (eventBytes.get(key) ?? 0) + JSON.stringify(e).length + 1);
  },
});
let recording = false;
host.register([
  defineTool({
    name: 'tag',
    description: 'Tags items by id.',
    parameters: { ids: { type: 'array', items: { type: 'string' }, required: true } },
    isConcurrencySafe: true,
    execute: (args) => args.ids.length,
  }),
  defineTool({
    name: 'note',
    description: 'Takes a note.',
    parameters: { text: { type: 'string', required: true } },
    execute: (args) => args.text.length,
  }),
  defineTool({
    name: 'echo_data',
    description: 'Echoes its data.',
    parameters: z.object({ data: z.unknown() }),
    isConcurrencySafe: true,
    execute: (args) => args.data as never,
  }),
]);
// hostMs is raised so all 20 calls run and every stall is measured; `run_code_default` keeps the
// default limits and shows where a program that keeps going is stopped.
const runCode = createRunCodeTool({ host, typecheck: 'off', limits: { wallMs: 600_000, cpuMs: 60_000, hostMs: 600_000 } });
const runDefault = createRunCodeTool({ host, typecheck: 'off', name: 'run_code_default' });
host.register([runCode, runDefault]);

let n = 0;
async function run(code: string, tool = 'run_code') {
  const result = await host.call({ id: `hw${++n}`, name: tool, args: { code } }, { agent: { id: 'bench' } });
  return result;
}
await run('return 1;'); // warm a sandbox process
await run('return 1;', 'run_code_default');

interface Loop {
  maxMs: number;
  over50Ms: number;
  stallsOver100: number;
  hostCpuMs: number;
  wallMs: number;
}
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; loop: Loop }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  let last = performance.now();
  let over50Ms = 0;
  let stallsOver100 = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    const gap = now - last - 5;
    last = now;
    if (gap > 50) over50Ms += gap;
    if (gap > 100) stallsOver100++;
  }, 5);
  histogram.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await work();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  histogram.disable();
  clearInterval(ticker);
  return { value, loop: { maxMs: histogram.max / 1e6, over50Ms, stallsOver100, hostCpuMs: (cpu.user + cpu.system) / 1000, wallMs } };
}

const rows: Record<string, string | number>[] = [];
const loopRow = (task: string, loop: Loop, extra: Record<string, string | number>) =>
  rows.push({
    task,
    'max stall': `${loop.maxMs.toFixed(0)} ms`,
    'stalls > 100 ms': loop.stallsOver100,
    'in stalls > 50 ms': `${loop.over50Ms.toFixed(0)} ms`,
    'host CPU': `${loop.hostCpuMs.toFixed(0)} ms`,
    wall: `${loop.wallMs.toFixed(0)} ms`,
    ...extra,
  });

// ---- 1. invalid 100k-item arguments ----------------------------------------------------------------
const items = 99_990;
const invalidArray = `
  const ids = Array.from({ length: ${items} }, (_, i) => i);
  let message = '';
  for (let i = 0; i < 20; i++) {
    try { await tools.tag({ ids }); } catch (e) { message = e.message; }
  }
  return message.length;`;
const unknownKeys = `
  const args = { text: 'x' };
  for (let i = 0; i < ${items}; i++) args['k' + i.toString(36)] = 0;
  let message = '';
  for (let i = 0; i < 20; i++) {
    try { await tools.note(args); } catch (e) { message = e.message; }
  }
  return message.length;`;
for (const [task, code] of [
  [`20 calls, ${items.toLocaleString('en')} wrong-typed items each`, invalidArray],
  [`20 calls, ${items.toLocaleString('en')} unknown keys each`, unknownKeys],
] as const) {
  const { value, loop } = await measured(() => run(code));
  const v = value.value as { result?: unknown; stats?: { cpuMs: number } } | undefined;
  loopRow(task, loop, {
    'guest CPU': v?.stats ? `${v.stats.cpuMs.toFixed(0)} ms` : '-',
    outcome: value.isError ? `error: ${value.error?.message.slice(0, 100)}` : `message of ${String(v?.result)} chars`,
  });
}
{
  const loop = `
    const ids = Array.from({ length: ${items} }, (_, i) => i);
    let n = 0;
    for (let i = 0; i < 1000; i++) { try { await tools.tag({ ids }); } catch (e) { n++; } }
    return n;`;
  const { value, loop: measuredLoop } = await measured(() => run(loop, 'run_code_default'));
  const end = value.isError ? value.error?.message.match(/limit (\w+=\d+)/)?.[1] ?? value.error?.message.slice(0, 60) : 'no limit';
  loopRow('up to 1,000 such calls, default limits', measuredLoop, { 'guest CPU': '-', outcome: `stopped by ${end}` });
}
console.log('\n### Host event loop while a program provokes validation work (isolation: process)');
console.table(rows);

// ---- 2. a deep result ------------------------------------------------------------------------------
{
  const code = `
    let v = [];
    for (let i = 0; i < 500; i++) v = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, v];
    return v;`;
  const result = await run(code);
  const text = result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const v = result.value as { stats?: { outputBytes: number; returnedBytes: number } } | undefined;
  console.log('\n### A result nested 500 deep');
  console.table([
    {
      'result JSON': `${v?.stats?.outputBytes ?? '?'} bytes`,
      'content the model reads': `${Buffer.byteLength(text, 'utf8')} bytes`,
      'stats.returnedBytes': v?.stats?.returnedBytes ?? '?',
      isError: result.isError,
    },
  ]);
}

// ---- 3. events of children echoing a large argument -----------------------------------------------
{
  const code = `
    let data = Array.from({ length: 60000 }, () => 1);
    for (let i = 0; i < 58; i++) data = [data];
    let n = 0;
    for (let i = 0; i < 20; i++) n += JSON.stringify(await tools.echo_data({ data })).length;
    return n;`;
  eventBytes.clear();
  recording = true;
  const result = await run(code);
  recording = false;
  const per = (type: string) => `${((eventBytes.get(type) ?? 0) / 20 / 1024).toFixed(0)} KiB`;
  console.log('\n### Trace bytes per child call echoing a 120 KB argument nested 60 deep (20 calls)');
  console.table([
    {
      'tool/ptc-dispatch': per('tool/ptc-dispatch'),
      'tool/call': per('tool/call'),
      'tool/result': per('tool/result'),
      'all events, 20 calls': `${([...eventBytes.values()].reduce((a, b) => a + b, 0) / 2 ** 20).toFixed(1)} MiB`,
      isError: result.isError ? result.error?.message.slice(0, 80) : false,
    },
  ]);
}

await Promise.all([runCode.close(), runDefault.close()]);
