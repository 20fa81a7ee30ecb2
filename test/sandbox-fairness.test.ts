/**
 * Fairness while waiting for a person (issue 24 finding 3, docs/run-life.md "Waiting for a
 * person"): an agent may not hold more than its share of the pool's sandbox processes with runs
 * that only wait for people. Agent A's runs ask for approvals nobody answers on a pool of two
 * processes; A's ask beyond its share is not put to anyone (denied, saying why), and agent B's
 * `return 6 * 7` runs. Real sandbox processes, the real pipeline and approval channel.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createToolHost, decision, defineTool, type ApprovalChannel } from '../tools/index.js';
import { createMemoryRunStore, createRunCodeTool, type RunCodeOptions, type RunCodeSuspended, type RunCodeTool, type RunCodeValue } from '../runtime/index.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

function setup(options: RunCodeOptions) {
  let asked = 0;
  let onAsk: (() => void) | undefined;
  // Nobody ever answers.
  const approval: ApprovalChannel = {
    request: () => {
      asked++;
      onAsk?.();
      return new Promise(() => {});
    },
  };
  const host = createToolHost({ approval });
  host.register(defineTool({ name: 'guarded', description: 'Needs a person.', execute: () => 'done' }));
  host.hooks.preExecute((execution) => (execution.toolName === 'guarded' ? decision.ask('a person must look') : undefined));
  const runCode = createRunCodeTool({ typecheck: 'off', warmup: false, osSandbox: 'off', limits: { wallMs: 15_000 }, ...options, host });
  host.register(runCode);
  opened.push(runCode);
  let n = 0;
  const run = (code: string, agent: string, signal?: AbortSignal) => host.call({ id: `run_${++n}`, name: 'run_code', args: { code } }, { agent: { id: agent }, ...(signal ? { signal } : {}) });
  const firstAsk = new Promise<void>((resolve) => (onAsk = resolve));
  return { run, firstAsk, asked: () => asked };
}

const ASKS = 'try { await tools.guarded({}); return "approved"; } catch (e) { return String(e.message); }';

describe('when an agent waits for approvals nobody answers, on a pool of two sandbox processes', () => {
  for (const [mode, options] of [
    ['one run per process', { capacity: { maxProcesses: 2, poolSize: 0, runsPerProcess: 1 } }],
    ['strict isolation', { isolation: { strict: true }, capacity: { maxProcesses: 2, poolSize: 0 } }],
  ] as const) {
    it(`denies its ask beyond its share of processes, and another agent's run runs (${mode})`, async () => {
      const { run, firstAsk, asked } = setup(options);
      const stopA = new AbortController();
      const waiting = run(ASKS, 'agent-a', stopA.signal);
      await firstAsk;
      // A second run of A: waiting too would leave A both processes, only waiting for people.
      const second = await run(ASKS, 'agent-a');
      expect(second.isError).toBe(false);
      expect((second.value as unknown as RunCodeValue).result).toMatch(/unavailable: this agent's runs would hold 2 of the 2 sandbox processes only waiting for people, over its share \(1\)/);
      expect(asked()).toBe(1);
      const other = await run('return 6 * 7;', 'agent-b');
      expect(other.isError).toBe(false);
      expect((other.value as unknown as RunCodeValue).result).toBe(42);
      stopA.abort();
      await waiting;
    }, 60_000);
  }

  it('defers, in a durable run, the ask beyond its share: the run suspends and frees its process', async () => {
    const { run, firstAsk, asked } = setup({ capacity: { maxProcesses: 2, poolSize: 0, runsPerProcess: 1 }, durable: { store: createMemoryRunStore(), keys: { current: 'k'.repeat(32) } } });
    const stopA = new AbortController();
    const waiting = run(ASKS, 'agent-a', stopA.signal);
    await firstAsk;
    const second = await run(ASKS, 'agent-a');
    expect(second.isError).toBe(false);
    const suspended = (second.value as unknown as RunCodeSuspended).suspended;
    expect(suspended.pending).toHaveLength(1);
    expect(asked()).toBe(1);
    const other = await run('return 6 * 7;', 'agent-b');
    expect((other.value as unknown as RunCodeValue).result).toBe(42);
    stopA.abort();
    await waiting;
  }, 60_000);

  it('lets runs of one agent wait together in the slots of one process (runsPerProcess 4)', async () => {
    const { run, firstAsk, asked } = setup({ capacity: { maxProcesses: 2, poolSize: 0 } });
    const stopA = new AbortController();
    const first = run(ASKS, 'agent-a', stopA.signal);
    await firstAsk;
    const second = run(ASKS, 'agent-a', stopA.signal);
    await expect.poll(asked, { timeout: 15_000 }).toBe(2);
    const other = await run('return 6 * 7;', 'agent-b');
    expect((other.value as unknown as RunCodeValue).result).toBe(42);
    stopA.abort();
    await Promise.all([first, second]);
  }, 60_000);
});
