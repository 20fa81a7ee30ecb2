import { describe, expect, it } from 'vitest';
import { MAX_SLEEP_MS, SLEEP_CALL } from '../codegen/index.js';
import { createToolHost, defineTool, type ToolEvent } from '../tools/index.js';
import { openRunBridge, type BridgeLimits } from './index.js';
import { RunLimitError } from './errors.js';
import { RunSleeps } from './run-sleeps.js';
import { manualClock } from './test-support.js';

const LIMITS: BridgeLimits = { wallMs: 30_000, maxCalls: 2, maxInFlight: 4, maxLogBytes: 10_000, maxArgBytes: 1_000, maxArgDepth: 8, maxArgNodes: 100 };

function setup(limits: Partial<BridgeLimits> = {}) {
  const clock = manualClock();
  const events: ToolEvent[] = [];
  const host = createToolHost({ onEvent: (e) => events.push(e) });
  host.register(defineTool({ name: 'echo', description: 'Echo.', parameters: { text: { type: 'string', required: true } }, isConcurrencySafe: true, execute: (args) => args.text }));
  const bridge = openRunBridge({ host, parentCallId: 'call_1', limits: { ...LIMITS, ...limits }, toolNames: new Map([['echo', 'echo']]), clock });
  return { clock, events, bridge };
}

/** Whether a promise has settled (after the microtasks queued now have run). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('when a program sleeps (the bridge settles #sleep with a timer on the run clock)', () => {
  it('resolves after exactly the wait, with an ordinary null outcome', async () => {
    const { clock, bridge } = setup();
    const slept = bridge.guest.call(SLEEP_CALL, '{"ms":1500}');
    clock.advance(1_499);
    expect(await settled(slept)).toBe(false);
    clock.advance(1);
    expect(await slept).toEqual({ ok: true, json: 'null' });
    await bridge.close({ outcome: 'ok' });
  });

  it('is not a tool call: no pipeline events, not in calls, not counted in maxCalls', async () => {
    const { clock, events, bridge } = setup({ maxCalls: 2 });
    const sleeps = [1, 2, 3, 4, 5].map(() => bridge.guest.call(SLEEP_CALL, '{"ms":10}'));
    clock.advance(10);
    await Promise.all(sleeps);
    expect(await bridge.guest.call('echo', '{"text":"a"}')).toEqual({ ok: true, json: '"a"' });
    expect(await bridge.guest.call('echo', '{"text":"b"}')).toEqual({ ok: true, json: '"b"' });
    expect(bridge.signal.aborted).toBe(false);
    const report = await bridge.close({ outcome: 'ok' });
    expect(report.calls.map((c) => c.tool)).toEqual(['echo', 'echo']);
    expect(events.filter((e) => e.type !== 'ptc/run-start' && e.type !== 'ptc/run-end' && (e as { toolName?: string }).toolName !== 'echo')).toEqual([]);
    expect(events.find((e) => e.type === 'ptc/run-end')).toMatchObject({ calls: 2 });
  });

  it('cuts a wait over the cap to the cap and a negative one to 0', async () => {
    const { clock, bridge } = setup();
    const long = bridge.guest.call(SLEEP_CALL, '{"ms":1e300}');
    const negative = bridge.guest.call(SLEEP_CALL, '{"ms":-40}');
    clock.advance(0);
    expect(await settled(negative)).toBe(true);
    clock.advance(MAX_SLEEP_MS - 1);
    expect(await settled(long)).toBe(false);
    clock.advance(1);
    expect(await long).toEqual({ ok: true, json: 'null' });
    await bridge.close({ outcome: 'ok' });
  });

  it('refuses arguments that are not {"ms": <finite number>}, saying so', async () => {
    const { bridge } = setup();
    const refusal = { ok: false, toolName: SLEEP_CALL, message: 'sleep(ms) was refused: its argument is not {"ms": <a finite number>}.' };
    for (const args of ['{"ms":"10"}', '{}', '[10]', 'null', 'not json', '{"ms":null}', `{"ms":1,"pad":"${'x'.repeat(300)}"}`]) {
      expect(await bridge.guest.call(SLEEP_CALL, args), args).toEqual(refusal);
    }
    await bridge.close({ outcome: 'ok' });
  });

  it('counts in the wall time: a run that sleeps past wallMs ends with the wall-time limit, and the sleep ends with it', async () => {
    const { clock, bridge } = setup({ wallMs: 3_000 });
    const slept = bridge.guest.call(SLEEP_CALL, '{"ms":10000}');
    clock.advance(2_999);
    expect(bridge.signal.aborted).toBe(false);
    clock.advance(1);
    expect(bridge.signal.reason).toBeInstanceOf(RunLimitError);
    expect((bridge.signal.reason as RunLimitError).limit).toBe('wallMs');
    expect(await slept).toMatchObject({ ok: false, message: expect.stringContaining('sleep(ms) was cut short: the run ended (') });
    await bridge.close({ outcome: 'limit', limit: { name: 'wallMs', value: 3_000 } });
    expect(clock.pending).toBe(0);
  });

  it('ends at once on the parent\'s abort and at close, leaving no timer behind', async () => {
    const parent = new AbortController();
    const clock = manualClock();
    const host = createToolHost();
    const bridge = openRunBridge({ host, parentCallId: 'call_1', limits: LIMITS, toolNames: new Map(), clock, signal: parent.signal });
    const first = bridge.guest.call(SLEEP_CALL, '{"ms":5000}');
    parent.abort(new Error('user pressed stop'));
    expect(await first).toMatchObject({ ok: false });
    expect(clock.pending).toBe(0);
    // After the run ended a sleep does not wait, and is not recorded as a refused tool call.
    expect(await bridge.guest.call(SLEEP_CALL, '{"ms":5000}')).toMatchObject({ ok: false, message: expect.stringContaining('sleep(ms) did not wait') });
    await bridge.close({ outcome: 'aborted' });
    expect(clock.pending).toBe(0);
  });

  it('refuses more sleeps than may wait at once, and takes them again once some settled', async () => {
    const clock = manualClock();
    const sleeps = new RunSleeps({ clock, maxAtOnce: 3 });
    const waiting = [0, 1, 2].map(() => sleeps.sleep('{"ms":100}'));
    expect(await sleeps.sleep('{"ms":100}')).toEqual({ ok: false, toolName: SLEEP_CALL, message: 'sleep(ms) was refused: 3 sleeps of this run are already waiting, the most at once.' });
    expect(sleeps.size).toBe(3);
    clock.advance(100);
    await Promise.all(waiting);
    expect(sleeps.size).toBe(0);
    const again = sleeps.sleep('{"ms":1}');
    clock.advance(1);
    expect(await again).toEqual({ ok: true, json: 'null' });
  });

  it('does not record a sleep the runner dropped after the run ended as a refused call', async () => {
    const { events, bridge } = setup();
    await bridge.close({ outcome: 'ok' });
    bridge.guest.onLateCall({ name: SLEEP_CALL, reason: 'run-ended' });
    bridge.guest.onLateCall({ name: 'echo', reason: 'run-ended' });
    expect(events.filter((e) => e.type === 'ptc/call-refused').map((e) => (e as { toolName: string }).toolName)).toEqual(['echo']);
  });
});
