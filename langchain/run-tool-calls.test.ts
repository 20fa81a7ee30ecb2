import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { runToolCalls } from './index.js';
import { contentText, resultEvent, settle, testHost } from './test-support.js';

const AGENT = { id: 'agent-1' };

describe('runToolCalls', () => {
  it('runs an AI message\'s calls as one turn and returns their ToolMessages in call order', async () => {
    const h = testHost();
    const message = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'a', name: 'lookup', args: { q: 'alpha' } },
        { id: 'b', name: 'lookup', args: { q: 'secret' } },
        { id: 'c', name: 'fail', args: { message: 'disk on fire' } },
      ],
    });
    const out = await runToolCalls(h.host, message, { agent: AGENT });
    expect(out.every((m) => m instanceof ToolMessage)).toBe(true);
    expect(out.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['a', 'success'],
      ['b', 'error'],
      ['c', 'error'],
    ]);
    expect(out[0]!.artifact).toEqual({ q: 'alpha', hits: ['alpha-1', 'alpha-2'] });
    expect(contentText(out[1]!)).toContain('secret terms are off limits');
    expect(contentText(out[2]!)).toBe('"fail" failed: disk on fire');
    expect(h.events.find((e) => e.type === 'tool/call')).toMatchObject({ agent: AGENT });
  });

  it('keeps an exclusive call a barrier: nothing after it starts until it ends', async () => {
    const h = testHost();
    const running = runToolCalls(h.host, new AIMessage({ content: '', tool_calls: [{ id: 'n', name: 'note', args: { text: 'n1' } }, { id: 'l', name: 'lookup', args: { q: 'after' } }] }));
    await settle();
    expect(h.log).toEqual(['start note n1']);
    h.releaseNotes();
    expect((await running).map((m) => m.tool_call_id)).toEqual(['n', 'l']);
    expect(h.log).toEqual(['start note n1', 'end note n1', 'lookup after']);
  });

  it('returns nothing for a message without tool calls', async () => {
    const h = testHost();
    expect(await runToolCalls(h.host, new AIMessage('just text'))).toEqual([]);
    expect(await runToolCalls(h.host, {} as never)).toEqual([]);
    expect(h.events).toEqual([]);
  });

  it('reads hostile tool calls once, field by field, and refuses them through the pipeline without throwing', async () => {
    const h = testHost();
    let reads = 0;
    const shifty = {
      get name() {
        reads++;
        return reads === 1 ? 'lookup' : 'deploy';
      },
      id: 'shifty',
      args: { q: 'x' },
    };
    const throwing = {
      get name(): string {
        throw new Error('boom');
      },
      id: 'throwing',
      args: {},
    };
    const message = { tool_calls: [shifty, throwing, { id: 'n', name: 42, args: {} }, { name: 'lookup', args: { q: 'no-id' } }] } as never;
    const out = await runToolCalls(h.host, message);
    expect(reads).toBe(1);
    expect(out.map((m) => m.status)).toEqual(['success', 'error', 'error', 'success']);
    expect(contentText(out[1]!)).toMatch(/^Unknown tool ""/);
    expect(out[1]!.tool_call_id).toBe('throwing');
    expect(out[3]!.tool_call_id).toMatch(/^langchain-/);
    expect(resultEvent(h.events, out[3]!.tool_call_id)?.isError).toBe(false);
  });

  it('answers a repeated id under the model\'s id, refused by the pipeline as a duplicate', async () => {
    const h = testHost();
    const out = await runToolCalls(h.host, new AIMessage({ content: '', tool_calls: [{ id: 'd', name: 'lookup', args: { q: 'one' } }, { id: 'd', name: 'lookup', args: { q: 'two' } }] }));
    expect(out.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['d', 'success'],
      ['d', 'error'],
    ]);
    expect(h.runs.lookup).toBe(1);
    expect(resultEvent(h.events, 'd#2')?.error?.kind).toBe('invalid-call');
  });

  it('passes its signal on: a running call is aborted, the turn still resolves', async () => {
    const h = testHost();
    const controller = new AbortController();
    const running = runToolCalls(h.host, new AIMessage({ content: '', tool_calls: [{ id: 'w', name: 'wait', args: {} }] }), { signal: controller.signal });
    for (let i = 0; i < 200 && h.signals.length === 0; i++) await settle(1);
    controller.abort();
    const [message] = await running;
    expect([message!.status, h.signals[0]!.aborted, resultEvent(h.events, 'w')?.error?.kind]).toEqual(['error', true, 'aborted']);
  });
});
