/**
 * Properties of materialization (steps 2 and 7) over arbitrary JSON with hostile keys: a
 * document is refused exactly when it holds a prototype key, naming the first one's path; what
 * is accepted arrives whole; nothing pollutes `Object.prototype`, even through a tool or a
 * listener that deep-merges what it gets; every call has exactly one result event. And the
 * validation bounds hold at and past their caps.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { childPath, type JsonValue } from './json.js';
import { FULL_REPORT_NODES, MAX_VALIDATION_MESSAGE_CHARS } from './materialize.js';
import { deepMerge, PROTO_NAMES, recordingHost, restorePrototypes } from './test-support.js';

const unpolluted = () => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO_NAMES);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
};
afterEach(restorePrototypes);

/** JSON text (so `__proto__` is an ordinary key, as a model or program sends it) with keys drawn to collide with prototypes. */
const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'polluted', 'a'), fc.string({ maxLength: 3 }));
const { value: jsonText } = fc.letrec<{ value: string; scalar: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('scalar'), tie('array'), tie('object')),
  scalar: fc.oneof(
    fc.constant('null'),
    fc.boolean().map(String),
    fc.integer().map(String),
    fc.string({ maxLength: 4 }).map((s) => JSON.stringify(s)),
    // Leaves that make the shapes of a pollution attempt, and harmless look-alikes.
    fc.constantFrom('{"polluted":true}', '{"constructor":{"prototype":{"polluted":true}}}', '{"constructor":{"prototype":1}}', '{"constructor":"x","prototype":{"polluted":true}}', '{"constructor":[{"prototype":1}]}'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
}));

/** The oracle: the path of the first prototype key in the copier's order, or undefined. */
function firstHostile(value: unknown, path: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstHostile(value[i], childPath(path, i));
      if (found) return found;
    }
    return undefined;
  }
  for (const k of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[k];
    if (k === '__proto__') return childPath(path, k);
    if (k === 'constructor' && typeof child === 'object' && child !== null && Object.prototype.hasOwnProperty.call(child, 'prototype')) return childPath(path, k);
    const found = firstHostile(child, childPath(path, k));
    if (found) return found;
  }
  return undefined;
}

function mergingHost() {
  const { host, events } = recordingHost();
  let ran = 0;
  host.register(
    defineTool({
      name: 'echo',
      description: 'Echoes its data after merging it into a config.',
      parameters: z.object({ data: z.unknown() }),
      execute: (args) => {
        ran++;
        deepMerge({}, args.data);
        return args.data as JsonValue;
      },
    }),
  );
  return { host, events, ran: () => ran };
}

describe('materialization over arbitrary JSON with hostile keys', () => {
  it('refuses the arguments exactly when they hold a prototype key, naming the first, and pollutes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(jsonText, async (text) => {
        const { host, events, ran } = mergingHost();
        const data = JSON.parse(text) as unknown;
        const result = await host.call({ id: 'c1', name: 'echo', args: JSON.parse(`{"data":${text}}`) });
        const hostile = firstHostile(data, 'args.data');
        if (hostile) {
          expect(result.error?.kind).toBe('invalid-args');
          expect(result.error?.message).toContain(`${hostile}: `);
          expect(ran()).toBe(0);
        } else {
          expect(result.isError).toBe(false);
          expect(result.value).toEqual(data);
          expect(ran()).toBe(1);
        }
        unpolluted();
        restorePrototypes();
        expect(events.filter((e) => e.type === 'tool/call')).toHaveLength(1);
        expect(events.filter((e) => e.type === 'tool/result')).toHaveLength(1);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a tool value exactly when it holds a prototype key, before a deep-merging listener sees it', async () => {
    await fc.assert(
      fc.asyncProperty(jsonText, async (text) => {
        const { host, events } = recordingHost();
        host.register(defineTool({ name: 'produce', description: 'Returns hostile JSON.', execute: () => JSON.parse(text) as JsonValue }));
        let seen = 0;
        host.hooks.postExecute((_execution, result) => {
          seen++;
          deepMerge({}, result.value);
          return undefined;
        });
        const result = await host.call({ id: 'c1', name: 'produce', args: {} });
        const hostile = firstHostile(JSON.parse(text), 'value');
        expect(seen).toBe(1);
        if (hostile) {
          expect(result.error?.kind).toBe('invalid-output');
          expect(result.error?.message).toContain(`${hostile}: `);
          expect(result.value).toBeUndefined();
        } else expect(result.value).toEqual(JSON.parse(text));
        unpolluted();
        restorePrototypes();
        expect(events.filter((e) => e.type === 'tool/result')).toHaveLength(1);
      }),
      { numRuns: 200 },
    );
  });
});

describe('bounded validation at and past its caps', () => {
  it(`reports every problem up to ${FULL_REPORT_NODES} values and stops early past it`, async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'tag', description: 'Tags.', parameters: { ids: { type: 'array', items: { type: 'string' }, required: true } }, execute: () => null }));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: FULL_REPORT_NODES - 12, max: FULL_REPORT_NODES + 10 }), async (n) => {
        // The document: the args object, the array and n items.
        const nodes = n + 2;
        const result = await host.call({ id: `c${n}`, name: 'tag', args: { ids: Array.from({ length: n }, (_, i) => i) } });
        expect(result.error?.kind).toBe('invalid-args');
        if (nodes > FULL_REPORT_NODES) expect(result.error?.message).toMatch(/args\.ids\[0\]: [^;]+; validation stopped at the first problem/);
        else expect(result.error?.message).toContain(`… and ${n - 8} more problems`);
      }),
    );
  });

  it('cuts every message at the cap, whatever the keys and values', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'store', description: 'Stores.', parameters: z.object({ data: z.record(z.string(), z.number()) }), execute: () => null }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 5_000 }), fc.oneof(fc.string(), fc.constant(() => 1))), { minLength: 1, maxLength: 30 }), async (entries) => {
        const data = Object.fromEntries(entries.filter(([k]) => k !== '__proto__'));
        const result = await host.call({ id: 'c', name: 'store', args: { data } });
        if (Object.keys(data).length === 0) return;
        expect(result.error?.kind).toBe('invalid-args');
        expect(result.error!.message.length).toBeLessThanOrEqual('Invalid arguments for "store": '.length + MAX_VALIDATION_MESSAGE_CHARS + 60);
      }),
      { numRuns: 50 },
    );
  });
});
