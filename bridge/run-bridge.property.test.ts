/**
 * Properties of the bridge over random runs, through openRunBridge's public options: a random
 * sequence of child calls (known and unknown names, hostile keys, arguments at and past every
 * cap), console lines, parent aborts, the tools settling in a random order (fast-check's
 * scheduler), then close and calls that arrive late. Whatever the interleaving:
 * - the host is unpolluted (`Object.prototype` unchanged) though a tool deep-merges its input;
 * - every call the guest makes settles exactly once, never by rejecting;
 * - every dispatched call (`tool/ptc-dispatch`) has exactly one `tool/call` and one
 *   `tool/result`, and no child has a result without its dispatch;
 * - an argument is refused exactly when it passes a cap, naming that cap;
 * - a late call is recorded as `ptc/call-refused` and reaches no tool;
 * - `ptc/run-start` comes first and `ptc/run-end` exactly once.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolHost, defineTool, type JsonValue, type ToolEvent } from '../tools/index.js';
import { openRunBridge, type BridgeLimits, type ChildOutcome } from './index.js';
import { deepMerge, PROTO_NAMES, restorePrototypes } from '../tools/test-support.js';

const LIMITS: BridgeLimits = { wallMs: 60_000, maxCalls: 1_000, maxInFlight: 3, maxLogBytes: 100_000, maxArgBytes: 400, maxArgDepth: 5, maxArgNodes: 30, hostMs: 60_000 };

afterEach(restorePrototypes);

/** Argument text: JSON with prototype-colliding keys, from tiny to past every cap. */
const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted', 'text'), fc.string({ maxLength: 3 }));
const { value: jsonText } = fc.letrec<{ value: string; leaf: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'medium', withCrossShrink: true }, tie('leaf'), tie('array'), tie('object')),
  leaf: fc.oneof(fc.constant('null'), fc.integer().map(String), fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)), fc.constant('{"constructor":{"prototype":{"polluted":true}}}')),
  array: fc.array(tie('value'), { maxLength: 8 }).map((items) => `[${items.join(',')}]`),
  object: fc.array(fc.tuple(key, tie('value')), { maxLength: 6 }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
}));
const argsText = fc.oneof(
  jsonText.map((t) => `{"data":${t}}`),
  fc.integer({ min: LIMITS.maxArgBytes - 20, max: LIMITS.maxArgBytes + 20 }).map((n) => `{"data":"${'x'.repeat(Math.max(0, n - 11))}"}`),
  fc.integer({ min: LIMITS.maxArgDepth - 2, max: LIMITS.maxArgDepth + 1 }).map((d) => `{"data":${'['.repeat(d - 1)}${']'.repeat(d - 1)}}`),
  fc.integer({ min: LIMITS.maxArgNodes - 4, max: LIMITS.maxArgNodes + 2 }).map((n) => `{"data":[${Array.from({ length: n - 2 }, () => 0).join(',')}]}`),
  fc.constant('{"data": nope'),
);

type Op = { kind: 'call'; name: string; args: string } | { kind: 'log'; text: string } | { kind: 'abort' } | { kind: 'settle' };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('call' as const), name: fc.constantFrom('merge', 'slow', 'fail', 'nope', '__proto__', 'constructor'), args: argsText }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('log' as const), text: fc.string({ maxLength: 20 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'abort' as const }) },
);

/** The caps the bridge checks, in its order, by an independent reading of the text. */
function expectedCap(text: string): string | undefined {
  if (Buffer.byteLength(text, 'utf8') > LIMITS.maxArgBytes) return 'maxArgBytes';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const depth = (v: unknown): number => (typeof v !== 'object' || v === null ? 0 : 1 + Math.max(0, ...Object.values(v).map(depth)));
  const nodes = (v: unknown): number => (typeof v !== 'object' || v === null ? 1 : 1 + Object.values(v).reduce((n: number, c) => n + nodes(c), 0));
  if (depth(value) > LIMITS.maxArgDepth) return 'maxArgDepth';
  if (nodes(value) > LIMITS.maxArgNodes) return 'maxArgNodes';
  return undefined;
}

const tick = () => new Promise<void>((r) => setImmediate(r));

function hasPrototypeKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return Object.keys(value).some((k) => {
    const child = (value as Record<string, unknown>)[k];
    if (k === '__proto__') return true;
    if (k === 'constructor' && typeof child === 'object' && child !== null && Object.prototype.hasOwnProperty.call(child, 'prototype')) return true;
    return hasPrototypeKey(child);
  });
}

describe('the bridge, whatever a program does and in whatever order its calls settle', () => {
  it('keeps the host unpolluted, settles every call once, and gives every dispatched call exactly one result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 14 }), fc.array(fc.record({ name: fc.constantFrom('merge', 'nope'), args: argsText }), { maxLength: 3 }), fc.boolean(), fc.scheduler(), async (ops, late, drainFirst, s) => {
        const events: ToolEvent[] = [];
        const host = createToolHost({ onEvent: (e) => events.push(e) });
        let bodies = 0;
        host.register([
          defineTool({
            name: 'merge',
            description: 'Deep-merges its data.',
            parameters: z.object({ data: z.unknown() }),
            isConcurrencySafe: true,
            execute: (args) => {
              bodies++;
              deepMerge({}, args.data);
              return s.schedule(Promise.resolve(args.data as JsonValue));
            },
          }),
          defineTool({ name: 'slow', description: 'Exclusive and slow.', parameters: z.object({ data: z.unknown() }), execute: () => ((bodies++), s.schedule(Promise.resolve('done'))) }),
          defineTool({ name: 'fail', description: 'Fails.', parameters: z.object({ data: z.unknown() }), execute: () => ((bodies++), s.schedule(Promise.resolve()).then(() => Promise.reject(new Error('disk on fire')))) }),
        ]);
        const parent = new AbortController();
        const bridge = openRunBridge({
          host,
          parentCallId: 'run_1',
          agent: { id: 'agent-1' },
          signal: parent.signal,
          limits: LIMITS,
          toolNames: new Map([
            ['merge', 'merge'],
            ['slow', 'slow'],
            ['fail', 'fail'],
          ]),
          cancelGraceMs: 50,
        });

        const settled: (ChildOutcome | 'rejected')[] = [];
        const pending: Promise<void>[] = [];
        const sent: { name: string; args: string; index: number }[] = [];
        for (const o of ops) {
          if (o.kind === 'call') {
            const index = settled.length;
            settled.push(undefined as never);
            sent.push({ name: o.name, args: o.args, index });
            pending.push(bridge.guest.call(o.name, o.args).then((out) => void (settled[index] = out), () => void (settled[index] = 'rejected')));
          } else if (o.kind === 'log') bridge.guest.log('log', o.text);
          else if (o.kind === 'abort') parent.abort(new Error('user pressed stop'));
          else {
            await tick();
            if (s.count() > 0) await s.waitOne();
          }
        }
        // Let the tools settle in the scheduler's order (all of them first, or while the run ends).
        if (drainFirst) {
          // A tool body starts a few turns after its call (policy runs first): wait for it.
          for (let idle = 0; idle < 3; ) {
            await tick();
            if (s.count() === 0) idle++;
            else {
              idle = 0;
              await s.waitAll();
            }
          }
        }
        const drained = s.waitAll();
        const report = await bridge.close({ outcome: 'ok' });
        await drained;
        await Promise.all(pending);
        await s.waitAll();

        // Late calls: refused, recorded, never run.
        const bodiesBeforeLate = bodies;
        const lateOut = await Promise.all(late.map((l) => bridge.guest.call(l.name, l.args)));
        expect(lateOut.every((o) => o.ok === false && /refused/.test(o.message))).toBe(true);
        expect(bodies).toBe(bodiesBeforeLate);

        // The host is unpolluted.
        expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO_NAMES);
        restorePrototypes();
        // Every guest call settled exactly once, none by rejecting.
        expect(settled.filter((x) => x === undefined || x === 'rejected')).toEqual([]);
        // Every dispatched call has exactly one tool/call and one tool/result; no result without a dispatch.
        const dispatched = events.filter((e) => e.type === 'tool/ptc-dispatch').map((e) => (e as { pairId: string }).pairId);
        const count = (type: string, id: string) => events.filter((e) => e.type === type && (e as { callId?: string }).callId === id).length;
        for (const id of dispatched) {
          expect(count('tool/call', id)).toBe(1);
          expect(count('tool/result', id)).toBe(1);
        }
        expect(events.filter((e) => e.type === 'tool/result').length).toBe(dispatched.length);
        expect(new Set(dispatched).size).toBe(dispatched.length);
        // Arguments are refused when they pass a cap, naming it; a call succeeds only for a tool,
        // within every cap and without prototype keys.
        const endedFirst = (o: ChildOutcome) => o.ok === false && /the run already ended/.test(o.message);
        for (const call of sent) {
          const out = settled[call.index] as ChildOutcome;
          const cap = expectedCap(call.args);
          const isTool = ['merge', 'slow', 'fail'].includes(call.name);
          if (!isTool || cap !== undefined) expect(out.ok).toBe(false);
          if (isTool && cap !== undefined && cap !== 'not JSON' && !endedFirst(out)) expect((out as { message: string }).message).toContain(`${cap}=`);
          if (out.ok) {
            expect(cap).toBeUndefined();
            expect(['merge', 'slow']).toContain(call.name);
            expect(hasPrototypeKey(JSON.parse(call.args))).toBe(false);
          }
        }
        // The report lists each call that reached the bridge before the run ended, once.
        expect(report.calls).toHaveLength(sent.filter((c) => !endedFirst(settled[c.index] as ChildOutcome)).length);
        expect(new Set(report.calls.map((c) => c.id)).size).toBe(report.calls.length);
        expect(events.filter((e) => e.type === 'ptc/call-refused').length).toBeGreaterThanOrEqual(late.length);
        expect(events[0]?.type).toBe('ptc/run-start');
        expect(events.filter((e) => e.type === 'ptc/run-end')).toHaveLength(1);
      }),
      { numRuns: 120 },
    );
  });
});
