import { afterAll, describe, expect, it } from 'vitest';
import { createIsolateRunner, RunRequestError } from '../runtime/isolate/index.js';
import { describeRunnerContract } from './isolate-contract.js';
import { assertHealthy, echoBridge, runProgram, testLimits } from './isolate-harness.js';

describeRunnerContract('in-process isolate runner', () => createIsolateRunner({ poolSize: 2 }), { computesOnCallerThread: true });

describe('when the in-process runner manages isolates', () => {
  const runner = createIsolateRunner({ poolSize: 2, memoryMb: 64 });
  afterAll(() => runner.close());

  it('starts runs from warm spares and refills the pool in the background', async () => {
    await runner.warmUp();
    expect(runner.stats().ready).toBe(2);
    const outcome = await runner.run({ js: 'return 1', toolNames: [], limits: testLimits() }, echoBridge().bridge, new AbortController().signal);
    expect(outcome.ok).toBe(true);
    expect(outcome.startup.source).toBe('pool');
    await runner.warmUp();
    expect(runner.stats().ready).toBe(2);
  });

  it('creates a cold isolate when a run asks for another memory limit', async () => {
    const outcome = await runner.run({ js: 'return 1', toolNames: [], limits: testLimits({ memoryMb: 32 }) }, echoBridge().bridge, new AbortController().signal);
    expect(outcome.startup.source).toBe('cold');
    await assertHealthy(runner);
  });

  it('refuses a malformed request with a RunRequestError naming the field', async () => {
    const { bridge } = echoBridge();
    await expect(runner.run({ js: 'return 1', toolNames: ['a'], limits: testLimits({ cpuMs: -1 }) }, bridge, new AbortController().signal)).rejects.toThrow(RunRequestError);
    await expect(runner.run({ js: 1 as unknown as string, toolNames: [], limits: testLimits() }, bridge, new AbortController().signal)).rejects.toThrow(/js is not a string/);
    await assertHealthy(runner);
  });

  it('aborts runs in progress when closed', async () => {
    const closing = createIsolateRunner({ poolSize: 0 });
    const pending = runProgram(closing, 'await tools.wait({ ms: 5000 });');
    await new Promise((r) => setTimeout(r, 50));
    await closing.close();
    const { outcome } = await pending;
    expect(outcome.ok ? 'ok' : outcome.failure.kind).toBe('aborted');
  });
});
