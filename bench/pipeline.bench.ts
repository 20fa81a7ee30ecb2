/**
 * Per-call cost of `host.call` for a small tool: with no hooks, and with 3 pre-execute
 * listeners + 3 guards + 1 post-execute listener, against calling `execute` directly in the
 * same run. Target: at most 10 µs added per call with the hooks.
 */
import { Bench } from 'tinybench';
import { createToolHost, decision, defineTool } from '../tools/index.js';

const tool = defineTool({
  name: 'lookup',
  description: 'Looks a user up.',
  parameters: { id: { type: 'string', required: true }, verbose: { type: 'boolean', default: false } },
  output: { schema: { type: 'object', properties: { id: { type: 'string', required: true }, name: { type: 'string', required: true } } } },
  execute: (args) => ({ id: args.id, name: `user ${args.id}` }),
});

const bare = createToolHost();
bare.register(tool);

const hooked = createToolHost();
hooked.register(tool);
hooked.hooks.preExecute(() => undefined);
hooked.hooks.preExecute((e) => (e.toolName === 'lookup' ? decision.allow() : undefined));
hooked.hooks.preExecute(() => undefined);
for (let i = 0; i < 3; i++) hooked.hooks.guard((e) => ((e.args as { id: string }).id === 'root' ? 'no root' : undefined));
hooked.hooks.postExecute(() => undefined);

const args = { id: 'u42' };
const exec = { callId: 'c', toolName: 'lookup', signal: new AbortController().signal, origin: { kind: 'model' as const }, host: bare, progress() {}, log() {} };
let n = 0;

const bench = new Bench({ time: 1500, warmup: true, warmupTime: 300 });
bench
  .add('direct execute (baseline)', async () => {
    await tool.execute({ id: args.id, verbose: false }, exec);
  })
  .add('host.call, 0 hooks', async () => {
    await bare.call({ id: String(++n), name: 'lookup', args });
  })
  .add('host.call, 3 pre + 3 guards + 1 post', async () => {
    await hooked.call({ id: String(++n), name: 'lookup', args });
  });
await bench.run();

const median = (name: string) => {
  const task = bench.getTask(name)!;
  const r = task.result as { latency?: { p50?: number } } | undefined;
  return (r?.latency?.p50 ?? Number.NaN) * 1000; // µs
};
const base = median('direct execute (baseline)');
const rows = bench.tasks.map((t) => {
  const us = median(t.name);
  return { task: t.name, 'median µs': us.toFixed(2), 'added µs': (us - base).toFixed(2), ratio: (us / base).toFixed(1) + 'x' };
});
console.table(rows);
const added = median('host.call, 3 pre + 3 guards + 1 post') - base;
console.log(`added per call with hooks: ${added.toFixed(2)} µs (target <= 10 µs): ${added <= 10 ? 'met' : 'NOT met'}`);
