/**
 * What durable runs cost (issue 25), each against a baseline measured in the same run, on the
 * realistic echo call (a 4-field argument of about 180 bytes, validated and echoed back):
 * - journaling per child call while a run has never suspended (kept in memory): N sequential calls
 *   in a durable run against the same program in a plain run;
 * - resuming a run with 100 journaled calls (replayed, not run again) and one pending call,
 *   against running the same 101 calls in a plain run; on the memory store and on the file store
 *   (fsync on every write);
 * - the write-ahead cost per call after a resume (each call's start and each batch in the store
 *   before the program goes on): 100 calls after the pause, against the same calls in a plain run.
 * Medians of ROUNDS rounds; the sandbox process runner (the default) and the in-process isolate.
 * Run: `npm run bench -- durable` (BENCH_QUICK=1 for fewer rounds).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolHost, decision, defineTool, type ApprovalChannel, type ToolHost } from '../tools/index.js';
import { createFileRunStore, createMemoryRunStore, createRunCodeTool, type RunCodeSuspended, type RunCodeTool, type RunStore } from '../runtime/index.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 3 : 9;
const CALLS = 100;
const KEY = 'a fleet-wide secret of at least 32 bytes';
const echoArgs = { id: 'ord_8f3a2c91d4e5', query: 'status:open customer:"Acme Corp" created:>2026-11-01 sort:updated', limit: 25, fields: ['id', 'status', 'total', 'updatedAt', 'customer'] };
const ARGS = JSON.stringify(echoArgs);
const alice = { id: 'alice' };

function makeHost(approval: ApprovalChannel, mode: 'process' | 'isolate', store?: RunStore): { host: ToolHost; runCode: RunCodeTool } {
  const host = createToolHost({ approval });
  host.register([
    defineTool({
      name: 'echo',
      description: 'Echoes its arguments.',
      parameters: { id: { type: 'string', required: true }, query: { type: 'string', required: true }, limit: { type: 'number', required: true }, fields: { type: 'array', items: { type: 'string' }, required: true } },
      isConcurrencySafe: true,
      execute: (args) => args,
    }),
    defineTool({ name: 'charge', description: 'Charges.', parameters: { amount: { type: 'number', required: true } }, execute: (args) => `charged ${args.amount}` }),
  ]);
  host.hooks.preExecute((e) => (e.toolName === 'charge' ? decision.ask('money') : undefined));
  const runCode = createRunCodeTool({ host, isolation: mode, typecheck: 'off', limits: { wallMs: 120_000, cpuMs: 60_000 }, ...(store ? { durable: { store, keys: { current: KEY } } } : {}) });
  host.register(runCode);
  return { host, runCode };
}

const calls = (n: number) => `for (let i = 0; i < ${n}; i++) await tools.echo(${ARGS});`;
let id = 0;
async function run(host: ToolHost, code: string) {
  const result = await host.call({ id: `run_${++id}`, name: 'run_code', args: { code } }, { agent: alice });
  if (result.isError) throw new Error(`run failed: ${result.error?.message}`);
  return result;
}
async function time<T>(work: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await work();
  return [performance.now() - t0, value];
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const mode of ['process', 'isolate'] as const) {
    const allow: ApprovalChannel = { request: async () => 'allow-once' };
    const defer: ApprovalChannel = { request: async () => 'defer' };
    const plain = makeHost(allow, mode);
    const memory = createMemoryRunStore();
    const durableLive = makeHost(allow, mode, memory);
    const dir = mkdtempSync(join(tmpdir(), 'ptc-bench-runs-'));
    const stores: [string, RunStore][] = [['memory', createMemoryRunStore()], ['file+fsync', createFileRunStore({ dir })]];
    try {
      // Warm both (processes, isolates, the type declarations).
      for (const h of [plain, durableLive]) for (let i = 0; i < 2; i++) await run(h.host, calls(CALLS));

      // 1. Journaling per call, never suspended.
      const base: number[] = [];
      const journaled: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        base.push((await time(() => run(plain.host, calls(CALLS))))[0]);
        journaled.push((await time(() => run(durableLive.host, calls(CALLS))))[0]);
      }
      rows.push(`| ${mode} | ${CALLS} calls in a run that never suspends | ${fmt((median(base) * 1000) / CALLS)} µs/call | ${fmt((median(journaled) * 1000) / CALLS)} µs/call | ${(median(journaled) / median(base)).toFixed(2)}x |`);

      for (const [storeName, store] of stores) {
        const paused = makeHost(defer, mode, store);
        for (let i = 0; i < 2; i++) await run(paused.host, calls(3));
        // 2. Resume a run with 100 journaled calls and a pending one.
        const baseResume: number[] = [];
        const resumes: number[] = [];
        const suspends: number[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          baseResume.push((await time(() => run(plain.host, `${calls(CALLS)} return await tools.charge({ amount: 1 });`)))[0]);
          const [suspendMs, suspended] = await time(() => run(paused.host, `${calls(CALLS)} return await tools.charge({ amount: 1 });`));
          suspends.push(suspendMs);
          const s = (suspended.value as unknown as RunCodeSuspended).suspended;
          const [ms, done] = await time(() => paused.runCode.resume({ token: s.resumeToken, decisions: [{ approvalId: s.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice }));
          if (done.isError) throw new Error(`resume failed: ${done.error?.message}`);
          resumes.push(ms);
        }
        rows.push(`| ${mode} | run ${CALLS} calls, suspend (${storeName}) | ${fmt(median(baseResume))} ms (the whole run, plain) | ${fmt(median(suspends))} ms | ${(median(suspends) / median(baseResume)).toFixed(2)}x |`);
        rows.push(`| ${mode} | resume after ${CALLS} journaled calls (${storeName}) | ${fmt(median(baseResume))} ms (the whole run, plain) | ${fmt(median(resumes))} ms | ${(median(resumes) / median(baseResume)).toFixed(2)}x |`);
        // 3. Write-ahead per call after a resume.
        const baseAfter: number[] = [];
        const after: number[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          baseAfter.push((await time(() => run(plain.host, `await tools.charge({ amount: 1 }); ${calls(CALLS)}`)))[0]);
          const suspended = await run(paused.host, `await tools.charge({ amount: 1 }); ${calls(CALLS)}`);
          const s = (suspended.value as unknown as RunCodeSuspended).suspended;
          after.push((await time(() => paused.runCode.resume({ token: s.resumeToken, decisions: [{ approvalId: s.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice })))[0]);
        }
        rows.push(`| ${mode} | ${CALLS} calls after a resume, written ahead (${storeName}) | ${fmt((median(baseAfter) * 1000) / CALLS)} µs/call | ${fmt((median(after) * 1000) / CALLS)} µs/call | ${(median(after) / median(baseAfter)).toFixed(2)}x |`);
        await paused.runCode.close();
      }
    } finally {
      await plain.runCode.close();
      await durableLive.runCode.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`Durable runs, medians of ${ROUNDS} rounds (realistic 180-byte echo; typecheck off)\n`);
  console.log('| runner | what | baseline (plain run) | durable | ratio |');
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

await main();
