/**
 * Cost of session replay and of the presentation layer, each against a baseline in the same run:
 * - replaying a 1000-call session log (3000 events) against merely parsing it (`readJsonl`),
 *   without tools (generic cards) and with tools (presenters soft-validate and run per call);
 * - one `presentResult` through the defineTool wrapper against calling the raw presenter;
 * - appending 1 KiB to a job's output ring against pushing the string to an array.
 */
import { Bench } from 'tinybench';
import { z } from 'zod';
import { createToolHost, defineTool, memoryJsonlSink, readJsonl, replaySession } from '../tools/index.js';
import { OutputRing } from '../tools/jobs/index.js';

const present = (args: { path: string }, value: { text: string; lines: number }) =>
  ({ card: 'read', phase: 'result', path: args.path, totalLines: value.lines, preview: value.text.slice(0, 80) }) as const;
const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  parameters: { path: { type: 'string', required: true } },
  output: { schema: z.object({ text: z.string(), lines: z.number() }) },
  execute: (args) => ({ text: `contents of ${args.path}\n`.repeat(5), lines: 5 }),
  presentResult: present,
});

const host = createToolHost();
host.register(readFile);
const sink = memoryJsonlSink();
host.onEvent(sink);
for (let i = 0; i < 1000; i++) await host.call({ id: `c${i}`, name: 'read_file', args: { path: `/src/file-${i}.ts` } });
const log = sink.lines.join('\n') + '\n';
if (replaySession(log, { tools: host }).calls.length !== 1000) throw new Error('the replay bench log did not replay');

const args = { path: '/src/a.ts' };
const value = { text: 'contents of /src/a.ts\n', lines: 1 };
const chunk = 'x'.repeat(1024);
const ring = new OutputRing();
const plain: string[] = [];

const bench = new Bench({ time: 1500, warmup: true, warmupTime: 300 });
bench
  .add('readJsonl, 3000 events (baseline)', () => {
    readJsonl(log);
  })
  .add('replaySession, no tools', () => {
    replaySession(log);
  })
  .add('replaySession, with presenters', () => {
    replaySession(log, { tools: host });
  })
  .add('raw presenter (baseline)', () => {
    present(args, value);
  })
  .add('wrapped presentResult', () => {
    readFile.presentResult!(args, value);
  })
  .add('array push 1 KiB (baseline)', () => {
    plain.push(chunk);
    if (plain.length > 256) plain.length = 0;
  })
  .add('OutputRing.append 1 KiB', () => {
    ring.append(chunk);
  });
await bench.run();

const median = (name: string) => {
  const r = bench.getTask(name)!.result as { latency?: { p50?: number; p99?: number } } | undefined;
  return { p50: (r?.latency?.p50 ?? Number.NaN) * 1000, p99: (r?.latency?.p99 ?? Number.NaN) * 1000 }; // µs
};
const baselineOf: Record<string, string> = {
  'replaySession, no tools': 'readJsonl, 3000 events (baseline)',
  'replaySession, with presenters': 'readJsonl, 3000 events (baseline)',
  'wrapped presentResult': 'raw presenter (baseline)',
  'OutputRing.append 1 KiB': 'array push 1 KiB (baseline)',
};
console.table(
  bench.tasks.map((t) => {
    const { p50, p99 } = median(t.name);
    const base = baselineOf[t.name];
    return { task: t.name, 'median µs': p50.toFixed(2), 'p99 µs': p99.toFixed(2), ratio: base ? `${(p50 / median(base).p50).toFixed(1)}x` : '1.0x' };
  }),
);
console.log(`replay with presenters: ${(median('replaySession, with presenters').p50 / 1000).toFixed(2)} µs per call`);
