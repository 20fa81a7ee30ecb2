import { describe, expect, it } from 'vitest';
import { decision } from './decision.js';
import { defineTool } from './define-tool.js';
import type { ApprovalChannel } from './approval.js';
import type { ToolEvent } from './events.js';
import { deferred, recordingHost, sleep } from './test-support.js';

const agent = { id: 'agent-1' };

function askingHost(approval?: ApprovalChannel, approvalTimeoutMs?: number) {
  const { host, events } = recordingHost({ ...(approval ? { approval } : {}), ...(approvalTimeoutMs ? { approvalTimeoutMs } : {}) });
  let runs = 0;
  host.register(defineTool({ name: 'deploy', description: 'Deploys.', parameters: { env: { type: 'string', required: true } }, execute: () => ++runs }));
  host.register(defineTool({ name: 'ping', description: 'Pings.', isConcurrencySafe: true, execute: () => 'pong' }));
  host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.ask('deploys need a human') : undefined));
  return { host, events, runs: () => runs };
}

describe('when a listener asks', () => {
  it('is allowed once: a second identical call asks again', async () => {
    const requests: string[] = [];
    const { host, runs, events } = askingHost({
      request: async ({ execution, reason }) => (requests.push(`${execution.callId}:${reason}`), 'allow-once'),
    });
    const first = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent });
    const second = await host.call({ id: 'b', name: 'deploy', args: { env: 'prod' } }, { agent });
    expect(first.isError || second.isError).toBe(false);
    expect(requests).toEqual(['a:deploys need a human', 'b:deploys need a human']);
    expect(runs()).toBe(2);
    expect(events.filter((e) => e.type === 'tool/decision' && e.stage === 'approval')).toHaveLength(2);
  });

  it('denies as unavailable without a channel', async () => {
    const { host, runs } = askingHost();
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent });
    expect(result.denied?.by).toBe('approval');
    expect(result.denied?.reason).toMatch(/^unavailable: no approval channel/);
    expect(runs()).toBe(0);
  });

  it('denies as unavailable without an agent, never asking the channel', async () => {
    let asked = false;
    const { host, runs } = askingHost({ request: async () => ((asked = true), 'allow-once') });
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } });
    expect(result.denied?.reason).toMatch(/^unavailable: no agent/);
    expect(asked).toBe(false);
    expect(runs()).toBe(0);
  });

  it.each([
    ['throws', { request: async () => Promise.reject(new Error('UI crashed')) }, /approval failed: UI crashed/],
    ['answers deny', { request: async () => 'deny' as const }, /denied by approver/],
    ['answers nonsense', { request: async () => 'yes' as never }, /no valid answer/],
  ])('denies when the channel %s', async (_label, channel, reason) => {
    const { host, runs } = askingHost(channel as ApprovalChannel);
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent });
    expect(result.denied?.by).toBe('approval');
    expect(result.denied?.reason).toMatch(reason);
    expect(runs()).toBe(0);
  });

  it('denies when the channel hangs past the call\'s abort signal, and tells the channel', async () => {
    let channelSignal: AbortSignal | undefined;
    const { host, runs } = askingHost({
      request: ({ signal }) => ((channelSignal = signal), new Promise(() => {})),
    });
    const controller = new AbortController();
    const pending = host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent, signal: controller.signal });
    await sleep(5);
    controller.abort();
    const result = await pending;
    expect(result.denied?.reason).toMatch(/aborted while waiting for approval/);
    expect(channelSignal?.aborted).toBe(true);
    expect(runs()).toBe(0);
  });

  it('denies when the channel hangs past the approval timeout', async () => {
    const { host } = askingHost({ request: () => new Promise(() => {}) }, 20);
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent });
    expect(result.denied?.reason).toMatch(/approval timed out after 20 ms/);
  });

  it('is asynchronous: other calls of the turn finish while one waits', async () => {
    const answer = deferred<'allow-once'>();
    const { host } = askingHost({ request: () => answer.promise });
    const order: string[] = [];
    host.onEvent((e) => {
      if (e.type === 'tool/result') order.push(e.callId);
    });
    const turn = host.runTurn(
      [
        { id: 'deploy', name: 'deploy', args: { env: 'prod' } },
        { id: 'ping', name: 'ping', args: {} },
      ],
      { agent },
    );
    // deploy is exclusive, so use direct concurrent calls to show approval does not block others.
    const direct = host.call({ id: 'other', name: 'ping', args: {} });
    await direct;
    expect(order).toContain('other');
    expect(order).not.toContain('deploy');
    answer.resolve('allow-once');
    const results = await turn;
    expect(results.map((r) => r.callId)).toEqual(['deploy', 'ping']);
    expect(results.every((r) => !r.isError)).toBe(true);
  });
});

describe('when a person approved the call in the framework\'s own flow', () => {
  const approved = { framework: 'ai-sdk', approvalId: 'aitxt-1', note: 'ok by ada' };
  const decisions = (events: ToolEvent[]) => events.filter((e) => e.type === 'tool/decision').map((e) => ({ stage: e.stage, decision: e.decision, by: e.by }));

  it('runs an asked call once without asking the channel, recorded as the framework\'s approval', async () => {
    let asked = 0;
    const { host, events, runs } = askingHost({ request: async () => (asked++, 'allow-once') });
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent, approved });
    expect(result.isError).toBe(false);
    expect([runs(), asked]).toEqual([1, 0]);
    expect(decisions(events)).toEqual([
      { stage: 'policy', decision: 'ask', by: { kind: 'listener', index: 0 } },
      { stage: 'approval', decision: 'allow', by: { kind: 'approval', via: 'framework', framework: 'ai-sdk', approvalId: 'aitxt-1', note: 'ok by ada' } },
    ]);
  });

  it('needs no channel and no agent: the person answered already', async () => {
    const { host, runs } = askingHost();
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { approved: { framework: 'openai-agents' } });
    expect(result.isError).toBe(false);
    expect(runs()).toBe(1);
  });

  it('covers that call only: the next identical call asks again', async () => {
    const { host, runs } = askingHost();
    await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent, approved });
    const next = await host.call({ id: 'b', name: 'deploy', args: { env: 'prod' } }, { agent });
    expect(next.denied?.reason).toMatch(/^unavailable: no approval channel/);
    expect(runs()).toBe(1);
  });

  it('never overturns a guard: the guard denies and the body does not run', async () => {
    const { host, events, runs } = askingHost();
    host.hooks.guard((e) => (e.toolName === 'deploy' ? 'deploys are frozen' : undefined));
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent, approved });
    expect(result.denied).toEqual({ by: 'guard', reason: 'deploys are frozen', index: 0 });
    expect(runs()).toBe(0);
    expect(decisions(events).map((d) => d.stage)).toEqual(['policy']);
  });

  it('never overturns a listener\'s denial', async () => {
    const { host, runs } = askingHost();
    host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.deny('change freeze') : undefined));
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent, approved });
    expect(result.denied).toEqual({ by: 'listener', reason: 'change freeze', index: 1 });
    expect(runs()).toBe(0);
  });

  it('changes nothing on a call that does not ask', async () => {
    const plain = askingHost();
    const withEvidence = askingHost();
    const a = await plain.host.call({ id: 'p', name: 'ping', args: {} }, { agent });
    const b = await withEvidence.host.call({ id: 'p', name: 'ping', args: {} }, { agent, approved });
    expect(b).toEqual(a);
    const strip = (events: ToolEvent[]) => events.map(({ time: _t, ...e }) => ('durationMs' in e ? { ...e, durationMs: 0 } : e));
    expect(strip(withEvidence.events)).toEqual(strip(plain.events));
  });

  it('is refused on a call from a PTC program, which only the host channel may approve', async () => {
    let asked = 0;
    const { host, runs } = askingHost({ request: async () => (asked++, 'allow-once') });
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent, approved, origin: { kind: 'ptc', parentCallId: 'run-1', token: 't'.repeat(32) } });
    expect(result.error).toEqual({ kind: 'invalid-call', message: 'The call to "deploy" comes from a PTC program and carries framework approval: a program\'s calls are approved through the host\'s approval channel only.' });
    expect([runs(), asked]).toEqual([0, 0]);
  });

  it.each([
    ['not an object', 'yes'],
    ['no framework', { note: 'x' }],
    ['an empty framework', { framework: '' }],
    ['a framework name past 64 characters', { framework: 'f'.repeat(65) }],
    ['a non-string approval id', { framework: 'ai-sdk', approvalId: 7 }],
    ['a note past 1000 characters', { framework: 'ai-sdk', note: 'n'.repeat(1001) }],
    ['a getter that throws', { get framework() { throw new Error('trap'); } }],
  ])('refuses malformed evidence (%s) as invalid-call, never as "approved"', async (_label, evidence) => {
    const { host, runs } = askingHost({ request: async () => 'allow-once' });
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent, approved: evidence as never });
    expect(result.error?.kind).toBe('invalid-call');
    expect(result.error?.message).toMatch(/malformed approval evidence/);
    expect(runs()).toBe(0);
  });

  it('reads the evidence once: a getter cannot show one framework to the check and another to the trace', async () => {
    let reads = 0;
    const { host, events } = askingHost();
    const evidence = { get framework() { return reads++ === 0 ? 'ai-sdk' : ''; } };
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent, approved: evidence });
    expect(result.isError).toBe(false);
    expect(decisions(events)[1]!.by).toEqual({ kind: 'approval', via: 'framework', framework: 'ai-sdk' });
  });
});

describe('when the approval channel rejects with something that cannot be printed', () => {
  it.each([
    ['a null-prototype object', () => Object.create(null) as object],
    ['an object whose toString throws', () => ({ toString: () => { throw new Error('no'); } })],
    ['an Error whose message getter throws', () => Object.defineProperty(new Error(), 'message', { get: () => { throw new Error('no'); } })],
  ])('%s: host.call still resolves, denied, and the tool never runs', async (_label, make) => {
    const { host, runs, events } = askingHost({ request: () => Promise.reject(make()) });
    const result = await host.call({ id: 'a', name: 'deploy', args: { env: 'prod' } }, { agent });
    expect(result.denied).toEqual({ by: 'approval', reason: expect.stringMatching(/^approval failed: /) });
    expect(runs()).toBe(0);
    expect(events.filter((e) => e.type === 'tool/result')).toHaveLength(1);
  });
});
