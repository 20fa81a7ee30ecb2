import { describe, expect, it } from 'vitest';
import { decision } from './decision.js';
import { defineTool } from './define-tool.js';
import type { ToolExecution } from './types.js';
import { readFileTool, recordingHost } from './test-support.js';

const agent = { id: 'agent-1' };

/** A host whose channel, events and body runs are all observable: preflight must touch none. */
function observedHost() {
  let asked = 0;
  let runs = 0;
  const { host, events } = recordingHost({ approval: { request: async () => (asked++, 'allow-once') } });
  host.register(readFileTool((a) => (runs++, `contents of ${a.path}`)));
  host.register(defineTool({ name: 'deploy', description: 'Deploys.', parameters: { env: { type: 'string', required: true }, dry: { type: 'boolean', default: false } }, execute: () => (runs++, 'deployed') }));
  return { host, events, asked: () => asked, runs: () => runs };
}

describe('host.preflight', () => {
  it('allows a plain call, emitting no event, asking nobody and running nothing', async () => {
    const { host, events, asked, runs } = observedHost();
    expect(await host.preflight({ id: 'c1', name: 'read_file', args: { path: '/a' } }, { agent })).toEqual({ type: 'allow' });
    expect(events).toEqual([]);
    expect(asked()).toBe(0);
    expect(runs()).toBe(0);
  });

  it('reports an ask with its reason, and never asks the channel', async () => {
    const { host, events, asked, runs } = observedHost();
    host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.ask('deploys need a human') : undefined));
    expect(await host.preflight({ id: 'c1', name: 'deploy', args: { env: 'prod' } }, { agent })).toEqual({ type: 'ask', reason: 'deploys need a human' });
    expect([events.length, asked(), runs()]).toEqual([0, 0, 0]);
  });

  it('reports a listener\'s denial and a guard\'s, saying which', async () => {
    const { host } = observedHost();
    host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.deny('frozen week') : undefined));
    host.hooks.guard((e) => ((e.args as { path?: string }).path === '/etc/passwd' ? 'outside the workspace' : undefined));
    expect(await host.preflight({ id: 'c1', name: 'deploy', args: { env: 'prod' } })).toEqual({ type: 'deny', by: 'listener', reason: 'frozen week' });
    expect(await host.preflight({ id: 'c2', name: 'read_file', args: { path: '/etc/passwd' } })).toEqual({ type: 'deny', by: 'guard', reason: 'outside the workspace' });
  });

  it('lets a guard overturn a listener\'s ask, as the pipeline does', async () => {
    const { host } = observedHost();
    host.hooks.preExecute(() => decision.ask('check first'));
    host.hooks.guard((e) => (e.toolName === 'deploy' ? 'deploys are off' : undefined));
    expect(await host.preflight({ id: 'c1', name: 'deploy', args: { env: 'prod' } })).toEqual({ type: 'deny', by: 'guard', reason: 'deploys are off' });
  });

  it('fails closed on a throwing listener, naming it', async () => {
    const { host } = observedHost();
    host.hooks.preExecute(() => {
      throw new Error('policy service down');
    });
    expect(await host.preflight({ id: 'c1', name: 'read_file', args: { path: '/a' } })).toEqual({ type: 'deny', by: 'listener', reason: 'pre-execute listener #0 failed: policy service down' });
  });

  it('shows listeners the execution the real call will have: frozen args with defaults, agent, origin', async () => {
    const { host } = observedHost();
    const seen: ToolExecution[] = [];
    host.hooks.preExecute((e) => void seen.push(e));
    const origin = { kind: 'provider-program', provider: 'anthropic', callerId: 'srvtoolu_1' } as const;
    await host.preflight({ id: 'c1', name: 'deploy', args: { env: 'prod' } }, { agent, origin });
    await host.call({ id: 'c1', name: 'deploy', args: { env: 'prod' } }, { agent, origin });
    expect(seen).toHaveLength(2); // listeners run twice: preflight, then the call
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]).toEqual({ callId: 'c1', toolName: 'deploy', args: { env: 'prod', dry: false }, agent, origin });
    expect(Object.isFrozen(seen[0]) && Object.isFrozen(seen[0]!.args)).toBe(true);
  });

  describe('when the call cannot be made', () => {
    it.each([
      ['an unknown tool', { id: 'c1', name: 'nope', args: {} }, {}, 'unknown-tool'],
      ['invalid arguments', { id: 'c1', name: 'read_file', args: { path: 7 } }, {}, 'invalid-args'],
      ['no id', { id: '', name: 'read_file', args: { path: '/a' } }, {}, 'invalid-call'],
      ['a malformed agent', { id: 'c1', name: 'read_file', args: { path: '/a' } }, { agent: { id: '' } }, 'invalid-call'],
      ['a malformed origin', { id: 'c1', name: 'read_file', args: { path: '/a' } }, { origin: { kind: 'provider-program', provider: 'google', callerId: 'x' } }, 'invalid-call'],
    ] as const)('reports %s as invalid, with the message host.call gives', async (_label, call, options, kind) => {
      const { host, runs } = observedHost();
      const pre = await host.preflight(call, options as never);
      const real = await host.call(call, options as never);
      expect(pre).toEqual({ type: 'invalid', kind, message: real.error?.message });
      expect(real.error?.kind).toBe(kind);
      expect(runs()).toBe(0);
    });

    it('names the argument path in an invalid-args message', async () => {
      const { host } = observedHost();
      const pre = await host.preflight({ id: 'c1', name: 'read_file', args: { path: 7 } });
      expect(pre.type === 'invalid' && pre.message).toMatch(/^Invalid arguments for "read_file": args\.path/);
    });

    it('refuses a PTC origin: programs\' calls are never preflighted', async () => {
      const { host } = observedHost();
      const pre = await host.preflight({ id: 'c1', name: 'read_file', args: { path: '/a' } }, { origin: { kind: 'ptc', parentCallId: 'p', token: 't' } as never });
      expect(pre).toMatchObject({ type: 'invalid', kind: 'invalid-call', message: expect.stringMatching(/preflight is for direct calls/) });
    });

    it('never throws for a call whose fields cannot be read', async () => {
      const { host } = observedHost();
      const hostile = new Proxy({}, { get: () => { throw new Error('trap'); } });
      expect(await host.preflight(hostile as never)).toEqual({ type: 'invalid', kind: 'invalid-call', message: 'The call could not be read.' });
      expect(await host.preflight({ id: 'c1', name: 'read_file', args: { path: '/a' } }, hostile as never)).toEqual({ type: 'invalid', kind: 'invalid-call', message: 'The call could not be read.' });
    });
  });

  it('decides again at the real call: a guard added after an allow still denies', async () => {
    const { host, runs } = observedHost();
    expect((await host.preflight({ id: 'c1', name: 'deploy', args: { env: 'prod' } })).type).toBe('allow');
    host.hooks.guard(() => 'locked down');
    const result = await host.call({ id: 'c1', name: 'deploy', args: { env: 'prod' } });
    expect(result.denied).toEqual({ by: 'guard', reason: 'locked down', index: 0 });
    expect(runs()).toBe(0);
  });

  it('returns frozen decisions', async () => {
    const { host } = observedHost();
    host.hooks.preExecute(() => decision.ask('why'));
    expect(Object.isFrozen(await host.preflight({ id: 'c1', name: 'read_file', args: { path: '/a' } }))).toBe(true);
  });
});
