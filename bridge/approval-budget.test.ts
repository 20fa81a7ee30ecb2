import { describe, expect, it } from 'vitest';
import { createToolHost, decision, defineTool, type ApprovalChannel, type ApprovalRequest } from '../tools/index.js';
import { openRunBridge } from './index.js';
import { manualClock } from './test-support.js';

/** A host whose policy asks before every call, and a channel that never answers (it records each ask). */
function neverAnswered(approvalWaitMs: number | undefined) {
  const asks: ApprovalRequest[] = [];
  const answers: ((answer: 'allow-once') => void)[] = [];
  let notify: () => void = () => {};
  const approval: ApprovalChannel = {
    request: (req) => {
      asks.push(req);
      notify();
      return new Promise((resolve) => answers.push(resolve));
    },
  };
  const host = createToolHost({ approval });
  host.register(defineTool({ name: 'echo', description: 'Echo.', parameters: { text: { type: 'string', required: true } }, isConcurrencySafe: true, execute: (args) => args.text }));
  host.hooks.preExecute(() => decision.ask('a person must look'));
  const clock = manualClock();
  const bridge = openRunBridge({
    host,
    parentCallId: 'call_1',
    agent: { id: 'agent-1' },
    limits: { wallMs: 1_000, maxCalls: 100, maxInFlight: 4, maxLogBytes: 10_000, maxArgBytes: 1_000, maxArgDepth: 8, maxArgNodes: 100, ...(approvalWaitMs !== undefined ? { approvalWaitMs } : {}) },
    toolNames: new Map([['echo', 'echo']]),
    clock,
  });
  const asked = (n: number) =>
    new Promise<void>((resolve) => {
      notify = () => asks.length >= n && resolve();
      notify();
    });
  return { bridge, clock, asks, asked, answers };
}

const DENIED = 'Denied: the call to "echo" was denied by the approver: unavailable: the run already waited approvalWaitMs=100 ms in all for approvals (a person must look). This decision is final; do not retry or work around it.';

describe("a run's total wait for approvals (approvalWaitMs)", () => {
  it('denies the pending asks as unavailable once the waits reach approvalWaitMs, and the run goes on', async () => {
    const { bridge, clock, asks, asked } = neverAnswered(100);
    const first = bridge.guest.call('echo', '{"text":"a"}');
    const second = bridge.guest.call('echo', '{"text":"b"}');
    await asked(2);
    clock.advance(99);
    let settled = false;
    void first.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    expect(await first).toEqual({ ok: false, toolName: 'echo', message: DENIED });
    expect(await second).toEqual({ ok: false, toolName: 'echo', message: DENIED });
    expect(asks.every((a) => a.signal.aborted)).toBe(true);
    expect(bridge.signal.aborted).toBe(false);
    // A later ask of the run is denied at once, without asking the channel.
    expect(await bridge.guest.call('echo', '{"text":"c"}')).toEqual({ ok: false, toolName: 'echo', message: DENIED });
    expect(asks).toHaveLength(2);
    const report = await bridge.close({ outcome: 'ok' });
    expect(report.approvalWaitMs).toBe(100);
  });

  it('counts the waits of the whole run, not of each ask', async () => {
    const { bridge, clock, asks, asked, answers } = neverAnswered(100);
    const first = bridge.guest.call('echo', '{"text":"a"}');
    await asked(1);
    clock.advance(60);
    answers[0]!('allow-once');
    expect(await first).toEqual({ ok: true, json: '"a"' });
    // 40 ms of the budget are left for the next ask.
    const second = bridge.guest.call('echo', '{"text":"b"}');
    await asked(2);
    let settled = false;
    void second.then(() => (settled = true));
    clock.advance(39);
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    expect(await second).toEqual({ ok: false, toolName: 'echo', message: DENIED });
    expect((await bridge.close({ outcome: 'ok' })).approvalWaitMs).toBe(100);
  });

  it('without approvalWaitMs, an unanswered ask waits on', async () => {
    const { bridge, clock, asked } = neverAnswered(undefined);
    let settled = false;
    void bridge.guest.call('echo', '{"text":"a"}').then(() => (settled = true));
    await asked(1);
    clock.advance(1_000_000);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    await bridge.close({ outcome: 'ok' });
  });
});
