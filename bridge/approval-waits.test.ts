import { describe, expect, it } from 'vitest';
import { createToolHost, decision, defineTool, type EventSink, type ToolHost } from '../tools/index.js';
import { openRunBridge, type BridgeLimits } from './index.js';
import { manualClock } from './test-support.js';

const LIMITS: BridgeLimits = { wallMs: 40, maxCalls: 100, maxInFlight: 4, maxLogBytes: 10_000, maxArgBytes: 1_000, maxArgDepth: 8, maxArgNodes: 100 };

/** A host whose `onEvent` registrations are counted (the host itself is frozen: a wrapper). */
function countingHost(approve: Promise<void>) {
  const inner = createToolHost({ approval: { request: () => approve.then(() => 'allow-once' as const) } });
  inner.register(defineTool({ name: 'echo', description: 'Echo.', parameters: { text: { type: 'string', required: true } }, isConcurrencySafe: true, execute: (a) => ({ echoed: a.text }) }));
  inner.hooks.preExecute((e) => (e.args as { text: string }).text === 'ask' ? decision.ask('check with a person') : undefined);
  const sinks = { added: 0, live: 0 };
  const host: ToolHost = {
    ...inner,
    onEvent(sink: EventSink) {
      sinks.added++;
      sinks.live++;
      const registration = inner.onEvent(sink);
      const dispose = () => {
        sinks.live--;
        registration.dispose();
      };
      return { dispose, [Symbol.dispose]: dispose };
    },
  };
  return { host, sinks };
}

describe('approval waits across runs on one host', () => {
  it('adds one event sink for all the runs in flight, and removes it when the last one closes', async () => {
    const { host, sinks } = countingHost(Promise.resolve());
    const names = new Map([['echo', 'echo']]);
    const bridges = Array.from({ length: 5 }, (_, i) => openRunBridge({ host, parentCallId: `run_${i}`, limits: { ...LIMITS, wallMs: 30_000 }, toolNames: names }));
    expect(sinks).toEqual({ added: 1, live: 1 });
    await Promise.all(bridges.map((b) => b.guest.call('echo', '{"text":"a"}')));
    for (const b of bridges) await b.close({ outcome: 'ok' });
    expect(sinks).toEqual({ added: 1, live: 0 });
    // The next run registers it again.
    const next = openRunBridge({ host, parentCallId: 'run_next', limits: LIMITS, toolNames: names });
    expect(sinks).toEqual({ added: 2, live: 1 });
    await next.close({ outcome: 'ok' });
    expect(sinks.live).toBe(0);
  });

  it('pauses only the clock of the run whose child waits for a person', async () => {
    let release!: () => void;
    const { host } = countingHost(new Promise<void>((r) => (release = r)));
    const names = new Map([['echo', 'echo']]);
    const clockA = manualClock();
    const clockB = manualClock();
    const a = openRunBridge({ host, parentCallId: 'run_a', agent: { id: 'agent_1' }, limits: LIMITS, toolNames: names, clock: clockA });
    const b = openRunBridge({ host, parentCallId: 'run_b', agent: { id: 'agent_1' }, limits: LIMITS, toolNames: names, clock: clockB });
    const asking = a.guest.call('echo', '{"text":"ask"}');
    expect(await b.guest.call('echo', '{"text":"b"}')).toEqual({ ok: true, json: '{"echoed":"b"}' });
    // Let the ask reach the approval channel (its decision event is emitted on the way).
    await new Promise((r) => setImmediate(r));
    clockA.advance(1_000);
    expect(a.signal.aborted).toBe(false);
    clockB.advance(40);
    expect(b.stopReason).toMatchObject({ limit: 'wallMs', value: 40 });
    release();
    expect(await asking).toEqual({ ok: true, json: '{"echoed":"ask"}' });
    clockA.advance(39);
    expect(a.signal.aborted).toBe(false);
    clockA.advance(1);
    expect(a.stopReason).toMatchObject({ limit: 'wallMs', value: 40 });
    expect((await a.close({ outcome: 'limit' })).approvalWaitMs).toBe(1_000);
    expect((await b.close({ outcome: 'limit' })).approvalWaitMs).toBe(0);
  });
});
