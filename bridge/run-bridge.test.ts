import { describe, expect, it } from 'vitest';
import { createToolHost, decision, defineTool, type ApprovalChannel, type ToolEvent, type ToolExecution } from '../tools/index.js';
import { MAX_RECORDED_LATE_CALLS, MORE_LATE_CALLS, openRunBridge, type BridgeLimits, type RunBridgeOptions } from './index.js';
import { RunLimitError } from './errors.js';
import { manualClock } from './test-support.js';

const LIMITS: BridgeLimits = { wallMs: 30_000, maxCalls: 100, maxInFlight: 4, maxLogBytes: 10_000, maxArgBytes: 1_000, maxArgDepth: 8, maxArgNodes: 100 };

function setup(options: { approval?: ApprovalChannel; limits?: Partial<BridgeLimits>; bridge?: Partial<RunBridgeOptions> } = {}) {
  const events: ToolEvent[] = [];
  const executions: ToolExecution[] = [];
  const host = createToolHost({ onEvent: (e) => events.push(e), ...(options.approval ? { approval: options.approval } : {}) });
  host.register([
    defineTool({
      name: 'echo',
      description: 'Echo.',
      parameters: { text: { type: 'string', required: true } },
      isConcurrencySafe: true,
      execute: (args, exec) => {
        executions.push(exec as unknown as ToolExecution);
        return { echoed: args.text };
      },
    }),
    defineTool({
      name: 'fail',
      description: 'Always fails.',
      execute: () => {
        throw new Error('disk on fire');
      },
    }),
    defineTool({ name: 'my.dotted-tool', description: 'Dotted.', execute: () => 'dotted' }),
  ]);
  const toolNames = new Map([
    ['echo', 'echo'],
    ['fail', 'fail'],
    ['my_dotted_tool', 'my.dotted-tool'],
  ]);
  const bridge = openRunBridge({
    host,
    parentCallId: 'call_1',
    agent: { id: 'agent-1' },
    limits: { ...LIMITS, ...options.limits },
    toolNames,
    ...options.bridge,
  });
  return { host, events, executions, bridge };
}

describe('when a program calls a tool through the bridge', () => {
  it('resolves with the JSON of the final value and maps callable names to tool names', async () => {
    const { bridge } = setup();
    expect(await bridge.guest.call('echo', '{"text":"hi"}')).toEqual({ ok: true, json: '{"echoed":"hi"}' });
    expect(await bridge.guest.call('my_dotted_tool', '{}')).toEqual({ ok: true, json: '"dotted"' });
    const report = await bridge.close({ outcome: 'ok' });
    expect(report.calls.map((c) => [c.tool, c.status, c.settlement])).toEqual([
      ['echo', 'ok', 'completed'],
      ['my.dotted-tool', 'ok', 'completed'],
    ]);
    expect(report.childResultBytes).toBe('{"echoed":"hi"}'.length + '"dotted"'.length);
  });

  it('gives each child the run token and parent call id in its origin, and logs only the digest', async () => {
    const { bridge, executions, events } = setup();
    await bridge.guest.call('echo', '{"text":"a"}');
    await bridge.guest.call('echo', '{"text":"b"}');
    await bridge.close({ outcome: 'ok' });
    const [a, b] = executions;
    expect(a!.origin.kind).toBe('ptc');
    const token = a!.origin.kind === 'ptc' ? a!.origin.token : '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b!.origin).toEqual({ kind: 'ptc', parentCallId: 'call_1', token });
    expect(a!.agent).toEqual({ id: 'agent-1' });
    expect(JSON.stringify(events)).not.toContain(token);
    const call = events.find((e) => e.type === 'tool/call');
    expect(call?.type === 'tool/call' && call.origin).toEqual({ kind: 'ptc', parentCallId: 'call_1', tokenId: bridge.tokenId });
  });

  it('gives each run a different token', async () => {
    const one = setup();
    const two = setup();
    await one.bridge.guest.call('echo', '{"text":"a"}');
    await two.bridge.guest.call('echo', '{"text":"a"}');
    expect(one.executions[0]!.origin).not.toEqual(two.executions[0]!.origin);
  });

  it('records tool/ptc-dispatch with only pair id, tool name and args, before any policy runs', async () => {
    const { bridge, events, host } = setup();
    const seenAtPolicy: string[] = [];
    host.hooks.preExecute(() => {
      seenAtPolicy.push(...events.map((e) => e.type));
      return undefined;
    });
    await bridge.guest.call('echo', '{"text":"x"}');
    const dispatch = events.find((e) => e.type === 'tool/ptc-dispatch')!;
    const { seq: _seq, time: _time, ...rest } = dispatch;
    expect(rest).toEqual({ type: 'tool/ptc-dispatch', pairId: expect.stringMatching(/^call_1\//), toolName: 'echo', args: { text: 'x' } });
    const callEvent = events.find((e) => e.type === 'tool/call');
    expect(callEvent?.type === 'tool/call' && callEvent.callId).toBe((dispatch as { pairId: string }).pairId);
    expect(seenAtPolicy.indexOf('tool/ptc-dispatch')).toBeGreaterThanOrEqual(0);
    expect(seenAtPolicy.indexOf('tool/ptc-dispatch')).toBeLessThan(seenAtPolicy.indexOf('tool/call'));
  });
});

describe('when a name or the arguments are hostile', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'my.dotted-tool', ''])('treats %j as an unknown tool', async (name) => {
    const { bridge, events } = setup();
    const out = await bridge.guest.call(name, '{}');
    expect(out).toMatchObject({ ok: false, message: expect.stringContaining('Unknown tool') });
    expect(events.filter((e) => e.type === 'tool/call')).toHaveLength(0);
  });

  it('refuses arguments over maxArgBytes, maxArgDepth or maxArgNodes, naming the limit', async () => {
    const { bridge, events } = setup();
    const big = await bridge.guest.call('echo', JSON.stringify({ text: 'x'.repeat(2_000) }));
    expect(big).toMatchObject({ ok: false, message: expect.stringContaining('maxArgBytes=1000') });
    const deep = await bridge.guest.call('echo', '{"text":"a","x":' + '['.repeat(20) + ']'.repeat(20) + '}');
    expect(deep).toMatchObject({ ok: false, message: expect.stringContaining('maxArgDepth=8') });
    const wide = await bridge.guest.call('echo', JSON.stringify({ text: 'a', x: Array.from({ length: 200 }, () => 0) }));
    expect(wide).toMatchObject({ ok: false, message: expect.stringContaining('maxArgNodes=100') });
    const notJson = await bridge.guest.call('echo', '{"text": nope');
    expect(notJson).toMatchObject({ ok: false, message: expect.stringContaining('not valid JSON') });
    expect(events.filter((e) => e.type === 'tool/ptc-dispatch')).toHaveLength(0);
  });

  it('counts brackets inside strings as text, not nesting', async () => {
    const { bridge } = setup();
    const out = await bridge.guest.call('echo', JSON.stringify({ text: '[[[[[[[[[[[[[[[[[["\\' }));
    expect(out).toEqual({ ok: true, json: JSON.stringify({ echoed: '[[[[[[[[[[[[[[[[[["\\' }) });
  });

  it('keeps a __proto__ key an own data property that pollutes nothing', async () => {
    const { bridge, host, events } = setup();
    let seen: unknown;
    host.hooks.preExecute((execution) => {
      seen = execution.args;
      return undefined;
    });
    const out = await bridge.guest.call('echo', '{"text":"a","__proto__":{"polluted":true}}');
    expect(out.ok).toBe(false); // strict parameters refuse the extra key
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const dispatch = events.find((e) => e.type === 'tool/ptc-dispatch');
    const args = (dispatch as { args: Record<string, unknown> }).args;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(args, '__proto__')?.value).toEqual({ polluted: true });
    expect(seen).toBeUndefined();
  });
});

describe('when policy acts on a child call', () => {
  it('turns a guard denial into a final refusal naming the reason', async () => {
    const { bridge, host } = setup();
    host.hooks.guard((e) => (e.toolName === 'echo' ? 'echo is off limits' : undefined));
    const out = await bridge.guest.call('echo', '{"text":"a"}');
    expect(out).toEqual({ ok: false, toolName: 'echo', message: expect.stringMatching(/^Denied: .*a guard: echo is off limits\. This decision is final/) });
    expect((await bridge.close({ outcome: 'ok' })).calls[0]!.status).toBe('denied');
  });

  it('hands the program a replace-value and ignores a replace-content', async () => {
    const { bridge, host } = setup();
    host.hooks.postExecute(() => ({ type: 'replace-content', content: [{ type: 'text', text: 'hidden' }] }));
    host.hooks.postExecute(() => ({ type: 'replace-value', value: { echoed: 'redacted' }, additionalContext: 'never to the program' }));
    expect(await bridge.guest.call('echo', '{"text":"secret"}')).toEqual({ ok: true, json: '{"echoed":"redacted"}' });
  });

  it('turns a block into a failure and a tool error into a failure with the tool’s text', async () => {
    const { bridge, host } = setup();
    host.hooks.postExecute((e) => (e.toolName === 'echo' ? decisionBlock() : undefined));
    expect(await bridge.guest.call('echo', '{"text":"x"}')).toMatchObject({ ok: false, message: expect.stringContaining('withheld by policy: no echoes') });
    expect(await bridge.guest.call('fail', '{}')).toMatchObject({ ok: false, toolName: 'fail', message: expect.stringContaining('disk on fire') });
  });

  it('pauses the wall clock while a child waits for approval, and counts the wait', async () => {
    const clock = manualClock();
    let asked!: () => void;
    const askedYet = new Promise<void>((r) => (asked = r));
    let release!: () => void;
    const approval: ApprovalChannel = {
      request: () =>
        new Promise((r) => {
          release = () => r('allow-once');
          asked();
        }),
    };
    const { bridge, host } = setup({ approval, limits: { wallMs: 40 }, bridge: { clock } });
    host.hooks.preExecute(() => decision.ask('check with a person'));
    clock.advance(10);
    const pending = bridge.guest.call('echo', '{"text":"a"}');
    await askedYet;
    clock.advance(1_000);
    expect(bridge.signal.aborted).toBe(false);
    release();
    expect(await pending).toEqual({ ok: true, json: '{"echoed":"a"}' });
    // 10 ms were used before the wait: 30 are left after it.
    clock.advance(29);
    expect(bridge.signal.aborted).toBe(false);
    clock.advance(1);
    expect(bridge.stopReason).toMatchObject({ limit: 'wallMs', value: 40 });
    const report = await bridge.close({ outcome: 'limit', limit: { name: 'wallMs', value: 40 } });
    expect(report.approvalWaitMs).toBe(1_000);
    expect(report.calls.map((c) => [c.status, c.ms])).toEqual([['ok', 1_000]]);
  });

  it('ends the run when the wall clock runs out outside approval waits', () => {
    const clock = manualClock();
    const { bridge } = setup({ limits: { wallMs: 20 }, bridge: { clock } });
    clock.advance(19);
    expect(bridge.signal.aborted).toBe(false);
    clock.advance(1);
    expect(bridge.signal.aborted).toBe(true);
    expect(bridge.signal.reason).toBeInstanceOf(RunLimitError);
    expect((bridge.signal.reason as RunLimitError).message).toContain('wallMs=20');
  });

  it('stops the wall clock while the runner waits for room to start the program, and counts the wait', async () => {
    const clock = manualClock();
    const { bridge, events } = setup({ limits: { wallMs: 20 }, bridge: { clock } });
    bridge.guest.queued(true);
    clock.advance(500);
    bridge.guest.queued(false);
    clock.advance(19);
    expect(bridge.signal.aborted).toBe(false);
    const report = await bridge.close({ outcome: 'ok' });
    expect(report.queuedMs).toBe(500);
    expect(events.find((e) => e.type === 'ptc/run-end')).toMatchObject({ durationMs: 519 });
    expect(clock.pending).toBe(0);
  });
});

function decisionBlock() {
  return { type: 'block' as const, reason: 'no echoes' };
}

describe('when the run ends', () => {
  it('waits for aborted children to settle, at most cancelGraceMs on the run clock', async () => {
    const clock = manualClock();
    const { host, bridge } = setup({ bridge: { clock, cancelGraceMs: 250 } });
    let started!: () => void;
    const startedYet = new Promise<void>((r) => (started = r));
    // The pipeline waits up to its abortGraceMs (real time) for the body: longer than this test.
    host.register(defineTool({ name: 'stuck', description: 'Ignores its abort signal.', isConcurrencySafe: true, abortGraceMs: 10_000, execute: () => (started(), new Promise(() => {})) }));
    const b2 = openRunBridge({ host, parentCallId: 'p', limits: LIMITS, toolNames: new Map([['stuck', 'stuck']]), clock, cancelGraceMs: 250 });
    void b2.guest.call('stuck', '{}');
    await startedYet;
    let closed = false;
    const closing = b2.close({ outcome: 'ok' }).then((r) => ((closed = true), r));
    await new Promise((r) => setImmediate(r));
    clock.advance(249);
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(false);
    clock.advance(1);
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(true);
    expect((await closing).calls.map((c) => c.settlement)).toEqual(['may-have-completed']);
    // A run whose children settle is closed without the clock moving at all.
    await bridge.guest.call('echo', '{"text":"x"}');
    expect((await bridge.close({ outcome: 'ok' })).calls).toHaveLength(1);
  });

  it('refuses a late call and records it as ptc/call-refused', async () => {
    const { bridge, events } = setup();
    await bridge.close({ outcome: 'ok' });
    const out = await bridge.guest.call('echo', '{"text":"late"}');
    expect(out).toMatchObject({ ok: false, message: expect.stringContaining('refused') });
    expect(events.filter((e) => e.type === 'tool/call')).toHaveLength(0);
    const refused = events.find((e) => e.type === 'ptc/call-refused');
    expect(refused).toMatchObject({ parentCallId: 'call_1', tokenId: bridge.tokenId, toolName: 'echo' });
    expect(events.map((e) => e.type)).toEqual(['ptc/run-start', 'ptc/run-end', 'ptc/call-refused']);
  });

  it('aborts in-flight children and says which may have completed', async () => {
    const { host, bridge } = setup({ limits: { maxInFlight: 1 } });
    let aborted = 0;
    host.register(
      defineTool({
        name: 'slow',
        description: 'Slow.',
        isConcurrencySafe: true,
        execute: (_a, exec) =>
          new Promise((resolve) => {
            exec.signal.addEventListener('abort', () => {
              aborted++;
              resolve('stopped');
            });
          }),
      }),
    );
    const names = new Map([['slow', 'slow']]);
    const b2 = openRunBridge({ host, parentCallId: 'p', limits: { ...LIMITS, maxInFlight: 1 }, toolNames: names });
    const first = b2.guest.call('slow', '{}');
    const second = b2.guest.call('slow', '{}');
    await new Promise((r) => setTimeout(r, 10));
    const report = await b2.close({ outcome: 'ok' });
    expect(aborted).toBe(1);
    expect(report.calls.map((c) => c.settlement)).toEqual(['may-have-completed', 'cancelled']);
    expect(await second).toMatchObject({ ok: false, message: expect.stringContaining('did not run') });
    expect(await first).toMatchObject({ ok: false });
    await bridge.close({ outcome: 'ok' });
  });

  it('ends the run past maxCalls with a limit error naming its value', async () => {
    const { bridge } = setup({ limits: { maxCalls: 2 } });
    await bridge.guest.call('echo', '{"text":"1"}');
    await bridge.guest.call('echo', '{"text":"2"}');
    const third = await bridge.guest.call('echo', '{"text":"3"}');
    expect(third).toMatchObject({ ok: false, message: expect.stringContaining('maxCalls=2') });
    expect(bridge.stopReason).toMatchObject({ limit: 'maxCalls', value: 2 });
    expect(bridge.signal.aborted).toBe(true);
  });

  it('ends the run past maxLogBytes', async () => {
    const { bridge } = setup({ limits: { maxLogBytes: 20 } });
    bridge.guest.log('log', 'hello');
    bridge.guest.log('warn', 'x'.repeat(30));
    expect(bridge.stopReason).toMatchObject({ limit: 'maxLogBytes', value: 20 });
    const report = await bridge.close({ outcome: 'limit', limit: { name: 'maxLogBytes', value: 20 } });
    expect(report.logs).toEqual(['hello']);
  });

  it('keeps log lines to known levels and text, whatever a runner sends', async () => {
    const { bridge } = setup();
    bridge.guest.log('x'.repeat(50) as never, 'a');
    bridge.guest.log('warn', { toString: () => 'sneaky' } as never);
    expect((await bridge.close({ outcome: 'ok' })).logs).toEqual(['a', '[warn] (not text)']);
  });

  it('aborts the run when the parent call is aborted', async () => {
    const parent = new AbortController();
    const { bridge } = setup({ bridge: { signal: parent.signal } });
    parent.abort(new Error('user pressed stop'));
    expect(bridge.signal.aborted).toBe(true);
    expect(bridge.stopReason?.message).toContain('user pressed stop');
  });
});

describe('when a runner reports a call it dropped after the run settled', () => {
  it('records it as ptc/call-refused without dispatching anything', async () => {
    const { bridge, events } = setup();
    bridge.guest.onLateCall({ name: 'echo', reason: 'run-ended' });
    expect(events.filter((e) => e.type === 'ptc/call-refused')).toEqual([expect.objectContaining({ toolName: 'echo', tokenId: bridge.tokenId, reason: expect.stringContaining('run-ended') })]);
    expect(events.some((e) => e.type === 'tool/call')).toBe(false);
  });

  it(`records at most ${MAX_RECORDED_LATE_CALLS} of a run one by one, then one summary with the count before ptc/run-end`, async () => {
    const { bridge, events } = setup();
    for (let i = 0; i < MAX_RECORDED_LATE_CALLS + 5; i++) bridge.guest.onLateCall({ name: 'echo', reason: 'run-ended' });
    bridge.guest.onLateCall({ name: '', reason: 'run-ended', count: 20 });
    await bridge.guest.call('echo', '{"text":"on time"}');
    await bridge.close({ outcome: 'ok' });
    const refused = events.filter((e) => e.type === 'ptc/call-refused');
    expect(refused).toHaveLength(MAX_RECORDED_LATE_CALLS + 1);
    expect(refused.at(-1)).toMatchObject({ toolName: MORE_LATE_CALLS, count: 25, tokenId: bridge.tokenId, reason: expect.stringContaining('25 more late calls') });
    expect(events.at(-1)?.type).toBe('ptc/run-end');
    expect(events.filter((e) => e.type === 'tool/call')).toHaveLength(1);
  });

  it('counts a leaked call to a closed bridge under the same cap', async () => {
    const { bridge, events } = setup();
    for (let i = 0; i < MAX_RECORDED_LATE_CALLS; i++) bridge.guest.onLateCall({ name: 'echo', reason: 'run-ended' });
    await bridge.close({ outcome: 'ok' });
    expect(await bridge.guest.call('echo', '{"text":"leaked"}')).toMatchObject({ ok: false, message: expect.stringContaining('refused') });
    await Promise.resolve();
    expect(events.filter((e) => e.type === 'ptc/call-refused').at(-1)).toMatchObject({ toolName: MORE_LATE_CALLS, count: 1 });
  });
});
