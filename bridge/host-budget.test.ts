import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createToolHost, defineTool, type ToolEvent } from '../tools/index.js';
import { openRunBridge, parseGuestArgs, type BridgeLimits, type DeadlineClock } from './index.js';
import { RunLimitError } from './errors.js';
import { scanJson } from './guest-args.js';

const LIMITS: BridgeLimits = { wallMs: 30_000, maxCalls: 100, maxInFlight: 4, maxLogBytes: 10_000, maxArgBytes: 100_000, maxArgDepth: 16, maxArgNodes: 1_000 };

/** A clock that moves only when told: host work "takes" what the test says it takes. */
function manualClock() {
  let t = 0;
  const clock: DeadlineClock = { now: () => t, setTimeout: () => 0, clearTimeout: () => {} };
  return { clock, advance: (ms: number) => void (t += ms) };
}

function setup(hostMs: number, costOfValidation: number) {
  const { clock, advance } = manualClock();
  const events: ToolEvent[] = [];
  const host = createToolHost({
    onEvent: (e) => {
      events.push(e);
      // The pipeline records tool/call right after validating: charge the validation here.
      if (e.type === 'tool/call') advance(costOfValidation);
    },
  });
  let ran = 0;
  host.register(defineTool({ name: 'note', description: 'Notes.', parameters: { text: { type: 'string', required: true } }, execute: () => ++ran }));
  const bridge = openRunBridge({ host, parentCallId: 'run_1', limits: { ...LIMITS, hostMs }, toolNames: new Map([['note', 'note']]), clock });
  return { bridge, events, ran: () => ran, advance };
}

describe('when a program keeps the host busy with its calls', () => {
  it('ends the run at hostMs with a limit error naming it, and reports what was spent', async () => {
    const { bridge, events } = setup(500, 300);
    expect(await bridge.guest.call('note', '{"text":"a"}')).toEqual({ ok: true, json: '1' });
    expect(bridge.stopReason).toBeUndefined();
    const second = await bridge.guest.call('note', '{"text":"b"}');
    expect(bridge.stopReason).toBeInstanceOf(RunLimitError);
    expect(bridge.stopReason).toMatchObject({ limit: 'hostMs', value: 500 });
    expect(bridge.stopReason?.message).toContain('hostMs=500');
    expect(bridge.signal.aborted).toBe(true);
    // The call during which the budget ran out is cut short like any call of a stopped run.
    expect(second).toMatchObject({ ok: false });
    const third = await bridge.guest.call('note', '{"text":"c"}');
    expect(third).toMatchObject({ ok: false, message: expect.stringContaining('hostMs=500') });
    const report = await bridge.close({ outcome: 'limit', limit: { name: 'hostMs', value: 500 } });
    expect(report.hostMs).toBe(600);
    // Every dispatched call still has exactly one result event.
    const dispatched = events.filter((e) => e.type === 'tool/ptc-dispatch').map((e) => (e as { pairId: string }).pairId);
    const results = events.filter((e) => e.type === 'tool/result').map((e) => (e as { callId: string }).callId);
    expect(results).toEqual(dispatched);
  });

  it('charges calls refused for their arguments too', async () => {
    // Every read of this clock moves it 1 ms: each measured section costs exactly 1 ms.
    let t = 0;
    const clock: DeadlineClock = { now: () => ++t, setTimeout: () => 0, clearTimeout: () => {} };
    const host = createToolHost();
    host.register(defineTool({ name: 'note', description: 'Notes.', parameters: { text: { type: 'string', required: true } }, execute: () => 1 }));
    const bridge = openRunBridge({ host, parentCallId: 'run_1', limits: { ...LIMITS, hostMs: 5 }, toolNames: new Map([['note', 'note']]), clock });
    for (let i = 0; i < 5; i++) expect(await bridge.guest.call('note', '{"text": nope')).toMatchObject({ ok: false, message: expect.stringContaining('not valid JSON') });
    expect(bridge.stopReason).toBeUndefined();
    await bridge.guest.call('note', '{"text": nope');
    expect(bridge.stopReason).toMatchObject({ limit: 'hostMs', value: 5 });
    expect((await bridge.close({ outcome: 'ok' })).hostMs).toBe(6);
  });

  it('does not stop a run that stays within its budget', async () => {
    const { bridge, ran } = setup(1_000, 10);
    for (let i = 0; i < 50; i++) await bridge.guest.call('note', `{"text":"${i}"}`);
    expect(bridge.stopReason).toBeUndefined();
    expect(ran()).toBe(50);
    expect((await bridge.close({ outcome: 'ok' })).hostMs).toBe(500);
  });
});

describe('when argument text is measured before it is parsed', () => {
  const json = fc.jsonValue({ maxDepth: 6 });

  it('counts the values a walk of the parsed document visits, with or without whitespace', () => {
    fc.assert(
      fc.property(json, fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const walked = countValues(JSON.parse(text));
        expect(scanJson(text, 1_000, Number.POSITIVE_INFINITY)).toEqual({ depth: depthOf(JSON.parse(text)), nodes: walked });
      }),
    );
  });

  it('refuses over maxArgNodes or maxArgDepth before parsing, naming the limit', () => {
    const caps = { maxArgBytes: 1 << 20, maxArgDepth: 8, maxArgNodes: 100 };
    expect(parseGuestArgs('t', JSON.stringify({ a: Array.from({ length: 98 }, () => 0) }), caps)).toMatchObject({ ok: true });
    expect(parseGuestArgs('t', JSON.stringify({ a: Array.from({ length: 99 }, () => 0) }), caps)).toMatchObject({ ok: false, message: expect.stringContaining('maxArgNodes=100') });
    expect(parseGuestArgs('t', `{"a":${'['.repeat(9)}${']'.repeat(9)}}`, caps)).toMatchObject({ ok: false, message: expect.stringContaining('maxArgDepth=8') });
    expect(parseGuestArgs('t', '{"a":"[[[[[[[[[[[[[,,,,,:::"}', caps)).toMatchObject({ ok: true, args: { a: '[[[[[[[[[[[[[,,,,,:::' } });
  });
});

function countValues(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, item) => n + countValues(item), 0);
  if (typeof v === 'object' && v !== null) return 1 + Object.values(v).reduce((n: number, item) => n + countValues(item), 0);
  return 1;
}

function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + children.reduce((m: number, c) => Math.max(m, depthOf(c)), 0);
}
