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

describe('when the in-process runner delivers a large outcome', () => {
  // Every outcome over 1,000 characters of JSON goes into the isolate on isolated-vm's thread.
  const runner = createIsolateRunner({ poolSize: 1, offThreadChars: 1_000 });
  afterAll(() => runner.close());

  it('runs the slice that reads it off the host thread, so the host event loop turns meanwhile', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let ticksAtDelivery = -1;
    const { bridge } = echoBridge();
    const outcome = await runner.run(
      { js: 'const s = await tools.big({ bytes: 5000 }); const t = Date.now(); while (Date.now() - t < 150) {} return s.length;', toolNames: ['big'], limits: testLimits() },
      {
        call: async (name, argsJson) => {
          const out = await bridge.call(name, argsJson);
          ticksAtDelivery = ticks;
          return out;
        },
        log: bridge.log,
      },
      new AbortController().signal,
    );
    clearInterval(timer);
    expect(outcome.ok && outcome.resultJson).toBe('5000');
    // With the slice on this thread, no timer could fire during the program's 150 ms loop.
    expect(ticks - ticksAtDelivery).toBeGreaterThan(1);
  });

  it('still stops the program at cpuMs, and stops it at once on abort', async () => {
    const { outcome } = await runProgram(runner, 'const s = await tools.big({ bytes: 5000 }); for (;;) {}', { limits: { cpuMs: 100 } });
    expect(outcome.ok ? 'ok' : outcome.failure.kind).toBe('limit');
    const controller = new AbortController();
    const pending = runProgram(runner, 'const s = await tools.big({ bytes: 5000 }); for (;;) {}', { signal: controller.signal, limits: { cpuMs: 60_000, wallMs: 60_000 } });
    setTimeout(() => controller.abort(), 100);
    const aborted = await pending;
    expect(aborted.outcome.ok ? 'ok' : aborted.outcome.failure.kind).toBe('aborted');
    await assertHealthy(runner);
  });

  it('reads calls the program makes in that slice, and their outcomes', async () => {
    const { outcome, value } = await runProgram(runner, 'const s = await tools.big({ bytes: 5000 }); const e = await tools.echo({ n: s.length }); return e.n;');
    expect(outcome.ok).toBe(true);
    expect(value).toBe(5000);
  });
});
