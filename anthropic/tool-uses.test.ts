import { describe, expect, it } from 'vitest';
import { originOf, readToolUse, readToolUses } from './tool-uses.js';

const program = (callerId: string) => ({ kind: 'provider-program', provider: 'anthropic', callerId });

describe('reading a caller', () => {
  it('takes an absent, null or direct caller as Claude\'s own call', () => {
    expect(originOf(undefined)).toBeUndefined();
    expect(originOf(null)).toBeUndefined();
    expect(originOf({ type: 'direct' })).toBeUndefined();
  });

  it('takes any other caller with a tool_id as a program in Anthropic\'s sandbox, versions to come included', () => {
    expect(originOf({ type: 'code_execution_20260120', tool_id: 'srvtoolu_1' })).toEqual(program('srvtoolu_1'));
    expect(originOf({ type: 'code_execution_20250825', tool_id: 'srvtoolu_2' })).toEqual(program('srvtoolu_2'));
    expect(originOf({ type: 'code_execution_20260521', tool_id: 'srvtoolu_3' })).toEqual(program('srvtoolu_3'));
  });

  it('gives a caller that is not direct and names no program an origin the pipeline refuses (empty callerId), never none', () => {
    for (const caller of ['direct', 5, { type: 'code_execution_20260120' }, { type: 'code_execution_20260120', tool_id: 7 }, { tool_id: 'x' }, {}]) {
      expect(originOf(caller)).toEqual(program(''));
    }
    const hostile = { get type() { throw new Error('trap'); } };
    expect(originOf(hostile)).toEqual(program(''));
  });
});

describe('reading the tool_use blocks of a message', () => {
  it('reads id, name and input as given, for the pipeline to judge', () => {
    expect(readToolUse({ type: 'tool_use', id: 'toolu_1', name: 'x', input: 'not an object', caller: { type: 'direct' } })).toEqual({ call: { id: 'toolu_1', name: 'x', args: 'not an object' }, toolUseId: 'toolu_1' });
    expect(readToolUse({ type: 'tool_use', id: 42, name: 7 })).toEqual({ call: { id: '', name: '7', args: undefined }, toolUseId: '' });
  });

  it('skips what is not ours: other block types and a toolset member\'s call', () => {
    expect(readToolUse({ type: 'server_tool_use', id: 'srvtoolu_1', name: 'code_execution', input: {} })).toBeUndefined();
    expect(readToolUse({ type: 'tool_use', id: 'toolu_b', name: 'click', input: {}, toolset_name: 'browser' })).toBeUndefined();
    expect(readToolUse({ type: 'tool_use', id: 'toolu_n', name: 'x', input: {}, toolset_name: null })).toMatchObject({ toolUseId: 'toolu_n' });
    expect(readToolUses({ content: [null, 1, 'x', { type: 'text', text: 'hi' }] })).toEqual([]);
  });

  it('refuses through the origin a block whose caller or toolset could not be read', () => {
    const trap = (key: string) => new Proxy({ type: 'tool_use', id: 'toolu_p', name: 'x', input: {} }, { get: (t, k) => { if (k === key) throw new Error('trap'); return (t as Record<string | symbol, unknown>)[k]; } });
    expect(readToolUse(trap('caller'))?.origin).toEqual(program(''));
    expect(readToolUse(trap('toolset_name'))?.origin).toEqual(program(''));
  });

  it('has no calls for string content, and refuses a message without content', () => {
    expect(readToolUses({ content: 'hello' })).toEqual([]);
    expect(() => readToolUses({})).toThrow(/message\.content must be an array of content blocks, got undefined/);
    expect(() => readToolUses(7)).toThrow(/message must be a Message, got number/);
  });
});
