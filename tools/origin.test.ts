/**
 * Where a call came from, as adapters tell the host: a `provider-program` origin (a program in
 * Anthropic's or OpenAI's sandbox calling our tool) is checked, seen by policy, recorded, and
 * replayed; a malformed one is refused. `runTurn`'s `perCall` carries one call's own origin.
 */
import { describe, expect, it } from 'vitest';
import { decision } from './decision.js';
import { defineTool } from './define-tool.js';
import type { ToolExecContext } from './tool-types.js';
import type { ToolEvent } from './events.js';
import { memoryJsonlSink } from './jsonl.js';
import { replaySession } from './replay/replay-session.js';
import { SessionViewBuilder } from './replay/session-view.js';
import { readFileTool, recordingHost } from './test-support.js';
import type { ProviderProgramOrigin, ToolExecution } from './types.js';

const fromClaude: ProviderProgramOrigin = { kind: 'provider-program', provider: 'anthropic', callerId: 'srvtoolu_01abc' };

function hostWithSpy() {
  const { host, events } = recordingHost();
  const contexts: ToolExecContext[] = [];
  host.register(defineTool({ name: 'lookup', description: 'Looks up.', parameters: { q: { type: 'string', required: true } }, isConcurrencySafe: true, execute: (args, exec) => (contexts.push(exec), `found ${args.q}`) }));
  return { host, events, contexts };
}

describe('when an adapter passes a provider-program origin', () => {
  it('listeners, guards and the tool see it, and tool/call records it', async () => {
    const { host, events, contexts } = hostWithSpy();
    const seen: ToolExecution[] = [];
    host.hooks.preExecute((e) => void seen.push(e));
    host.hooks.guard((e) => void seen.push(e));
    const result = await host.call({ id: 'toolu_1', name: 'lookup', args: { q: 'x' } }, { origin: fromClaude });
    expect(result.isError).toBe(false);
    expect(seen.map((e) => e.origin)).toEqual([fromClaude, fromClaude]);
    expect(contexts[0]!.origin).toEqual(fromClaude);
    expect(events.find((e) => e.type === 'tool/call')).toMatchObject({ callId: 'toolu_1', argsValid: true, origin: fromClaude });
  });

  it('keeps the provider program\'s result rendered: it reads content, like the model', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'obj', description: 'An object.', execute: () => ({ a: 1 }) }));
    const result = await host.call({ id: 'c', name: 'obj', args: {} }, { origin: { kind: 'provider-program', provider: 'openai', callerId: 'call_prog_1' } });
    expect(result.content).toEqual([{ type: 'text', text: '{\n  "a": 1\n}' }]);
  });

  it('lets policy tell a provider program from the model', async () => {
    const { host } = hostWithSpy();
    host.hooks.preExecute((e) => (e.origin.kind === 'provider-program' ? decision.deny(`no calls from ${e.origin.provider} sandboxes`) : undefined));
    expect((await host.call({ id: 'a', name: 'lookup', args: { q: 'x' } })).isError).toBe(false);
    expect((await host.call({ id: 'b', name: 'lookup', args: { q: 'x' } }, { origin: fromClaude })).denied?.reason).toBe('no calls from anthropic sandboxes');
  });

  it('copies the origin once: a getter cannot show one caller to policy and another to the trace', async () => {
    const { host, events } = hostWithSpy();
    let reads = 0;
    const shifty = { kind: 'provider-program', provider: 'anthropic', get callerId() { return reads++ === 0 ? 'first' : 'second'; } };
    await host.call({ id: 'a', name: 'lookup', args: { q: 'x' } }, { origin: shifty as never });
    expect(events.find((e) => e.type === 'tool/call')).toMatchObject({ origin: { callerId: 'first' } });
    expect(reads).toBe(1);
  });

  it.each([
    ['not an object', 'model'],
    ['an unknown kind', { kind: 'browser' }],
    ['an unknown provider', { kind: 'provider-program', provider: 'google', callerId: 'x' }],
    ['no caller id', { kind: 'provider-program', provider: 'anthropic' }],
    ['an empty caller id', { kind: 'provider-program', provider: 'anthropic', callerId: '' }],
    ['a caller id past 512 characters', { kind: 'provider-program', provider: 'openai', callerId: 'c'.repeat(513) }],
    ['a PTC origin without its token', { kind: 'ptc', parentCallId: 'run-1' }],
    ['a getter that throws', { get kind() { throw new Error('trap'); } }],
  ])('refuses a malformed origin (%s) as invalid-call, recorded and never run', async (_label, origin) => {
    const { host, events, contexts } = hostWithSpy();
    const result = await host.call({ id: 'a', name: 'lookup', args: { q: 'x' } }, { origin: origin as never });
    expect(result.error?.kind).toBe('invalid-call');
    expect(result.error?.message).toMatch(/^The call to "lookup" names a malformed origin: CallOptions\.origin must be/);
    expect(contexts).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/result']);
    expect(events[0]).toMatchObject({ argsValid: false, origin: { kind: 'model' } });
  });
});

describe('when a turn carries per-call options', () => {
  it('gives each call its own origin and approval, and the rest the turn\'s', async () => {
    const { host, events } = hostWithSpy();
    host.hooks.preExecute((e) => (e.args as { q: string }).q === 'ask' ? decision.ask('check') : undefined);
    const results = await host.runTurn(
      [
        { id: 't1', name: 'lookup', args: { q: 'direct' } },
        { id: 't2', name: 'lookup', args: { q: 'from-program' } },
        { id: 't3', name: 'lookup', args: { q: 'ask' } },
        { id: 't4', name: 'lookup', args: { q: 'ask' } },
      ],
      { agent: { id: 'a1' }, perCall: new Map([['t2', { origin: fromClaude }], ['t3', { approved: { framework: 'test' } }]]) },
    );
    expect(results.map((r) => r.isError)).toEqual([false, false, false, true]);
    expect(results[3]!.denied?.reason).toMatch(/^unavailable/);
    const origins = Object.fromEntries(events.flatMap((e) => (e.type === 'tool/call' ? [[e.callId, e.origin.kind]] : [])));
    expect(origins).toEqual({ t1: 'model', t2: 'provider-program', t3: 'model', t4: 'model' });
  });

  it('refuses a call whose per-call options name a PTC origin, and runs the others', async () => {
    const { host, contexts } = hostWithSpy();
    const results = await host.runTurn(
      [
        { id: 't1', name: 'lookup', args: { q: 'a' } },
        { id: 't2', name: 'lookup', args: { q: 'b' } },
      ],
      { perCall: new Map([['t2', { origin: { kind: 'ptc', parentCallId: 'x', token: 'y' } as never }]]) },
    );
    expect(results[0]!.isError).toBe(false);
    expect(results[1]!.error).toEqual({ kind: 'invalid-call', message: 'A turn cannot carry a PTC origin: only the bridge makes calls for a program.' });
    expect(contexts).toHaveLength(1);
  });

  it('throws a TypeError for perCall that is not a Map (a plain object would look ids up on its prototype)', async () => {
    const { host } = hostWithSpy();
    await expect(host.runTurn([], { perCall: { t1: {} } as never })).rejects.toThrow(/perCall must be a Map/);
  });
});

describe('when a session with provider programs and framework approvals is replayed', () => {
  it('shows the same calls, origins and decisions as live', async () => {
    const log = memoryJsonlSink();
    const live = new SessionViewBuilder();
    const { host } = recordingHost();
    host.onEvent(log);
    host.onEvent((e: ToolEvent) => live.apply(e));
    host.register(readFileTool());
    host.hooks.preExecute(() => decision.ask('reads need a human'));
    await host.call({ id: 'toolu_1', name: 'read_file', args: { path: '/a' } }, { origin: fromClaude, approved: { framework: 'anthropic-app', note: 'ok' } });
    await host.call({ id: 'call_2', name: 'read_file', args: { path: '/b' } }, { approved: { framework: 'ai-sdk', approvalId: 'ap-1' } });
    const replayed = replaySession(log.lines.join('\n') + '\n');
    expect(replayed.problems).toEqual([]);
    expect(replayed.calls).toEqual(live.snapshot().calls);
    expect(replayed.calls[0]!.origin).toEqual(fromClaude);
    expect(replayed.calls[1]!.decisions[1]).toEqual({ stage: 'approval', decision: 'allow', by: { kind: 'approval', via: 'framework', framework: 'ai-sdk', approvalId: 'ap-1' } });
  });

  it('names a provider it does not know as a problem, and shows the rest', () => {
    const line = (o: object) => JSON.stringify(o);
    const text = [
      line({ seq: 1, time: 1, type: 'tool/call', callId: 'a', toolName: 't', args: {}, argsValid: true, origin: { kind: 'provider-program', provider: 'acme', callerId: 'x' } }),
      line({ seq: 2, time: 2, type: 'tool/call', callId: 'b', toolName: 't', args: {}, argsValid: true, origin: { kind: 'provider-program', provider: 'openai', callerId: 'p1' } }),
    ].join('\n');
    const replayed = replaySession(text);
    expect(replayed.problems).toEqual([{ line: 1, problem: expect.stringMatching(/origin\.provider is neither "anthropic" nor "openai"/) }]);
    expect(replayed.calls.map((c) => c.origin)).toEqual([{ kind: 'provider-program', provider: 'openai', callerId: 'p1' }]);
  });
});
