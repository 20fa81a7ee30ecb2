import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decision } from './decision.js';
import { defineTool } from './define-tool.js';
import type { PreExecuteListener, ToolGuard } from './hooks.js';
import { recordingHost } from './test-support.js';
import type { PreToolDecision } from './types.js';

function setup() {
  const { host, events } = recordingHost({ approval: { request: async () => 'allow-once' } });
  let ran = 0;
  host.register(defineTool({ name: 'act', description: 'Acts.', execute: () => ++ran }));
  return { host, events, runs: () => ran };
}

describe('the pre-execute waterfall', () => {
  it('lets a later listener overturn an earlier one, and each sees the decision so far', async () => {
    const { host, runs } = setup();
    const seen: PreToolDecision[] = [];
    host.hooks.preExecute((_e, current) => (seen.push(current), decision.deny('first says no')));
    host.hooks.preExecute((_e, current) => (seen.push(current), decision.allow({ additionalContext: 'second says yes' })));
    const result = await host.call({ id: '1', name: 'act', args: {} });
    expect(seen.map((d) => d.type)).toEqual(['allow', 'deny']);
    expect(result.isError).toBe(false);
    expect(runs()).toBe(1);
    expect(result.additionalContexts).toEqual(['second says yes']);
  });

  it('records who decided and why in a tool/decision event', async () => {
    const { host, events } = setup();
    host.hooks.preExecute(() => undefined);
    host.hooks.preExecute(() => decision.deny('not on weekends'));
    const result = await host.call({ id: '1', name: 'act', args: {} });
    expect(result.denied).toEqual({ by: 'listener', reason: 'not on weekends', index: 1 });
    expect(events.find((e) => e.type === 'tool/decision')).toMatchObject({
      stage: 'policy',
      decision: 'deny',
      by: { kind: 'listener', index: 1 },
      reason: 'not on weekends',
    });
  });

  it('fails closed when a listener throws or returns something that is not a decision', async () => {
    for (const listener of [
      () => {
        throw new Error('policy store down');
      },
      () => ({ type: 'allow-all' }) as never,
      () => ({ type: 'deny' }) as never,
    ] as PreExecuteListener[]) {
      const { host, runs } = setup();
      host.hooks.preExecute(listener);
      const result = await host.call({ id: '1', name: 'act', args: {} });
      expect(result.denied?.by).toBe('listener');
      expect(runs()).toBe(0);
    }
  });

  it('a guard that throws, or is async, denies', async () => {
    for (const guard of [
      () => {
        throw new Error('x');
      },
      (async () => undefined) as unknown as ToolGuard,
    ]) {
      const { host, runs } = setup();
      host.hooks.guard(guard);
      const result = await host.call({ id: '1', name: 'act', args: {} });
      expect(result.denied?.by).toBe('guard');
      expect(runs()).toBe(0);
    }
  });
});

describe('when a listener or guard throws something that cannot be printed', () => {
  it('still denies, and says so in the reason instead of failing the call', async () => {
    const unprintable = Object.create(null) as object; // String() of it throws a TypeError
    for (const register of [
      (h: ReturnType<typeof setup>['host']) => h.hooks.preExecute(() => { throw unprintable; }),
      (h: ReturnType<typeof setup>['host']) => h.hooks.guard(() => { throw unprintable; }),
    ]) {
      const { host, runs } = setup();
      register(host);
      const result = await host.call({ id: '1', name: 'act', args: {} });
      expect(result.denied?.reason).toMatch(/failed: unprintable error/);
      expect(runs()).toBe(0);
    }
  });
});

type Step =
  | { kind: 'listener'; returns: 'allow' | 'deny' | 'ask' | 'nothing' }
  | { kind: 'guard'; denies: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('listener' as const), returns: fc.constantFrom('allow', 'deny', 'ask', 'nothing' as const) }),
  fc.record({ kind: fc.constant('guard' as const), denies: fc.boolean() }),
);

describe('monotonic guards (property)', () => {
  it('any guard denies => denied by a guard and the body never runs, whatever the order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), fc.boolean(), async (steps, approves) => {
        const { host } = recordingHost({ approval: { request: async () => (approves ? 'allow-once' : 'deny') } });
        let ran = false;
        host.register(defineTool({ name: 'act', description: 'Acts.', execute: () => void (ran = true) }));
        steps.forEach((s, i) => {
          if (s.kind === 'guard') host.hooks.guard(() => (s.denies ? `guard ${i}` : undefined));
          else
            host.hooks.preExecute(() =>
              s.returns === 'nothing' ? undefined : s.returns === 'allow' ? decision.allow() : { type: s.returns, reason: `listener ${i}` },
            );
        });
        const result = await host.call({ id: 'c', name: 'act', args: {} }, { agent: { id: 'agent' } });
        const anyGuardDenies = steps.some((s) => s.kind === 'guard' && s.denies);
        if (anyGuardDenies) {
          expect(result.denied?.by).toBe('guard');
          expect(result.isError).toBe(true);
          expect(ran).toBe(false);
        } else {
          const last = [...steps].reverse().find((s) => s.kind === 'listener' && s.returns !== 'nothing') as
            | Extract<Step, { kind: 'listener' }>
            | undefined;
          const expected = last?.returns ?? 'allow';
          const allowed = expected === 'allow' || (expected === 'ask' && approves);
          expect(ran).toBe(allowed);
          expect(result.isError).toBe(!allowed);
        }
      }),
      { numRuns: 300 },
    );
  });
});
