/**
 * The pipeline's invariants against hostile host-side code (listeners, sinks, middleware) and
 * malformed calls: every call still ends in a result, the trace stays whole and in order, and
 * nothing runs outside a call.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineTool } from './define-tool.js';
import type { ToolEvent } from './events.js';
import { createToolHost } from './host.js';

const throwingProxy = () =>
  new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
      has() {
        throw new Error('trap');
      },
      getPrototypeOf() {
        throw new Error('trap');
      },
    },
  );

function hostWithTool(events: ToolEvent[] = [], run = () => 'ran') {
  const host = createToolHost({ onEvent: (e) => events.push(e) });
  let runs = 0;
  host.register(defineTool({ name: 'act', description: 'Acts.', execute: () => ((runs += 1), run()) }));
  return { host, events, runs: () => runs };
}

afterEach(() => vi.restoreAllMocks());

describe('a listener that returns something whose reads throw (a Proxy)', () => {
  it('denies the call before the body, with a result, when it is a pre-execute listener', async () => {
    const { host, runs } = hostWithTool();
    host.hooks.preExecute(() => throwingProxy() as never);
    const result = await host.call({ id: '1', name: 'act', args: {} });
    expect(result).toMatchObject({ isError: true, denied: { by: 'listener', reason: expect.stringContaining('invalid decision') } });
    expect(runs()).toBe(0);
    const turn = await host.runTurn([{ id: '2', name: 'act', args: {} }]);
    expect(turn[0]).toMatchObject({ isError: true, denied: { by: 'listener' } });
  });

  it('blocks the result, with a result, when it is a post-execute listener', async () => {
    const { host } = hostWithTool();
    host.hooks.postExecute(() => throwingProxy() as never);
    expect(await host.call({ id: '1', name: 'act', args: {} })).toMatchObject({ isError: true, error: { kind: 'blocked' } });
  });

  it('fails a replacement value that cannot be copied as invalid-output, not as a throw', async () => {
    const { host } = hostWithTool();
    host.hooks.postExecute(() => ({ type: 'replace-value', value: throwingProxy() as never }));
    expect(await host.call({ id: '1', name: 'act', args: {} })).toMatchObject({ isError: true, error: { kind: 'invalid-output' } });
  });
});

describe('event sinks', () => {
  it('never break a call: not one that throws an unprintable value, not an async one that rejects', async () => {
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { host } = hostWithTool();
      host.onEvent(() => {
        throw { get message(): string { throw new Error('no'); } };
      });
      host.onEvent(async () => {
        throw new Error('async sink failed');
      });
      expect(await host.call({ id: '1', name: 'act', args: {} })).toMatchObject({ isError: false, value: 'ran' });
      expect((await host.runTurn([{ id: '2', name: 'act', args: {} }]))[0]).toMatchObject({ isError: false });
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
      expect(warnings.mock.calls.some(([w]) => String(w).includes('async sink failed'))).toBe(true);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('get frozen events: one sink cannot rewrite what a later sink (the audit log) records', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const host = createToolHost();
    host.register(defineTool({ name: 'rm', description: 'Removes.', parameters: { path: { type: 'string', required: true } }, execute: () => 'removed' }));
    host.onEvent((e) => {
      const w = e as unknown as Record<string, unknown>;
      if (e.type === 'tool/call') w.args = { path: '/harmless' };
      if (e.type === 'tool/result') w.value = 'rewritten';
    });
    const audit: ToolEvent[] = [];
    host.onEvent((e) => audit.push(e));
    await host.call({ id: '1', name: 'rm', args: { path: '/etc/shadow' } }, { agent: { id: 'a' } });
    expect(audit.find((e) => e.type === 'tool/call')).toMatchObject({ args: { path: '/etc/shadow' }, agent: { id: 'a' } });
    expect(audit.find((e) => e.type === 'tool/result')).toMatchObject({ value: 'removed' });
    for (const e of audit) expect(Object.isFrozen(e)).toBe(true);
  });

  it('see events in seq order even when a sink emits from inside, and seq is always the host\'s', async () => {
    const host = createToolHost();
    host.register(defineTool({ name: 'act', description: 'Acts.', execute: () => 1 }));
    let reported = false;
    host.onEvent((e) => {
      if (!reported && e.type === 'tool/call') {
        reported = true;
        host.emit({ type: 'ptc/run-start', callId: 'x', tokenId: 't' });
      }
    });
    const seen: number[] = [];
    host.onEvent((e) => seen.push(e.seq));
    await host.call({ id: '1', name: 'act', args: {} });
    const forged = host.emit({ type: 'ptc/run-start', callId: 'y', tokenId: 't', seq: 1000 } as never);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(forged.seq).toBe(seen.at(-1));
    expect(forged.seq).toBeLessThan(1000);
  });
});

describe('an execute middleware that keeps next()', () => {
  it('cannot run the body after the call has ended', async () => {
    const { host, runs } = hostWithTool();
    let leaked: (() => Promise<unknown>) | undefined;
    host.hooks.execute(async (_e, next) => {
      leaked = next;
      return 'dry-run';
    });
    expect((await host.call({ id: '1', name: 'act', args: {} })).value).toBe('dry-run');
    await expect(leaked!()).rejects.toThrow(/called next\(\) after the call had ended/);
    expect(runs()).toBe(0);
  });
});

describe('a turn with malformed calls', () => {
  it('refuses a call that reuses an earlier id of the turn, and runs the first once', async () => {
    const { host, events, runs } = hostWithTool();
    const results = await host.runTurn([
      { id: 'dup', name: 'act', args: {} },
      { id: 'dup', name: 'act', args: {} },
    ]);
    expect(results[0]).toMatchObject({ isError: false, value: 'ran' });
    expect(results[1]).toMatchObject({ callId: 'dup#2', isError: true, error: { kind: 'invalid-call', message: expect.stringContaining('reuses the id "dup"') } });
    expect(runs()).toBe(1);
    // The refusal is recorded under its own id: the trace never attaches it to the call that ran.
    expect(events.filter((e) => e.type === 'tool/result' && e.callId === 'dup').map((e) => (e as { isError: boolean }).isError)).toEqual([false]);
    expect(events.filter((e) => e.type === 'tool/call').map((e) => e.callId)).toEqual(['dup', 'dup#2']);
    // An id a later call already uses is not taken for the refusal.
    const taken = await host.runTurn([
      { id: 'x', name: 'act', args: {} },
      { id: 'x', name: 'act', args: {} },
      { id: 'x#2', name: 'act', args: {} },
    ]);
    expect(taken.map((r) => r.callId)).toEqual(['x', 'x#3', 'x#2']);
  });

  it('gives an invalid-call result in place of a hole, and throws a clear error for a non-array', async () => {
    const { host } = hostWithTool();
    // eslint-disable-next-line no-sparse-arrays
    const results = await host.runTurn([{ id: 'a', name: 'act', args: {} }, , { id: 'b', name: 'act', args: {} }] as never);
    expect(results.map((r) => r.isError)).toEqual([false, true, false]);
    expect(results[1]).toMatchObject({ error: { kind: 'invalid-call' } });
    await expect(host.runTurn(null as never)).rejects.toThrow(/calls must be an array/);
  });
});

describe('a call whose id or name cannot be printed', () => {
  it('still ends in a result and one recorded call, never a rejection', async () => {
    const { host, events, runs } = hostWithTool();
    const unprintable = Object.create(null) as object;
    const throwing = { toString: () => { throw new Error('no'); } };
    for (const call of [{ id: unprintable, name: 'act', args: {} }, { id: 'a', name: unprintable, args: {} }, { id: throwing, name: throwing, args: {} }]) {
      const result = await host.call(call as never);
      expect(result).toMatchObject({ isError: true, error: { kind: expect.stringMatching(/invalid-call|unknown-tool/) } });
    }
    expect(runs()).toBe(0);
    expect(events.filter((e) => e.type === 'tool/call')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'tool/result')).toHaveLength(3);
  });
});

describe('the agent a call runs for', () => {
  it('is refused when malformed, before any approval is asked or job scoped', async () => {
    const ask = vi.fn(async () => 'allow-once' as const);
    const host = createToolHost({ approval: { request: ask } as never });
    let runs = 0;
    host.register(defineTool({ name: 'deploy', description: 'Deploys.', execute: () => ((runs += 1), 'deployed') }));
    host.hooks.preExecute(() => ({ type: 'ask', reason: 'deploys' }));
    for (const agent of [{}, { id: '' }, { id: 7 }, { id: 'a', name: 3 }]) {
      const result = await host.call({ id: 'd', name: 'deploy', args: {} }, { agent: agent as never });
      expect(result).toMatchObject({ isError: true, error: { kind: 'invalid-call', message: expect.stringContaining('malformed agent') } });
    }
    expect(ask).not.toHaveBeenCalled();
    expect(runs).toBe(0);
  });
});

describe('approvalTimeoutMs', () => {
  it('refuses a value a timer cannot wait for, naming it', () => {
    for (const value of [Number.POSITIVE_INFINITY, 30 * 24 * 3600 * 1000, 0, -1, Number.NaN]) {
      expect(() => createToolHost({ approvalTimeoutMs: value })).toThrow(/approvalTimeoutMs must be a number of ms above 0 and at most 2147483647/);
    }
    expect(() => createToolHost({ approvalTimeoutMs: 60_000 })).not.toThrow();
  });
});

describe('what a tool returns or throws, at the extremes', () => {
  it('cuts its own error text at 16 KiB, saying where', async () => {
    const { host } = hostWithTool([], () => {
      throw new Error('x'.repeat(5_000_000));
    });
    const result = await host.call({ id: '1', name: 'act', args: {} });
    expect(result.error?.kind).toBe('execution');
    expect(result.error!.message.length).toBeLessThan(17_000);
    expect(result.error!.message).toMatch(/\[cut at 16384 characters of 5000000\]$/);
  });

  it('fails a value nested too deeply to copy as invalid-output, not as the tool failing', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const { host } = hostWithTool([], () => deep as never);
    const result = await host.call({ id: '1', name: 'act', args: {} });
    expect(result.error).toMatchObject({ kind: 'invalid-output', message: expect.stringContaining('nested too deeply') });
  });
});
