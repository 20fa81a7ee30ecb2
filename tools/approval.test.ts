import { describe, expect, it } from 'vitest';
import { decision } from './decision.js';
import { defineTool } from './define-tool.js';
import type { ApprovalChannel } from './approval.js';
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
