import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import type { JsonValue } from './json.js';
import { recordingHost } from './test-support.js';

/** The deep merge found in many real tools (config patches, option defaults): it follows `__proto__` and `constructor`. */
function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const current = target[key];
      if ((typeof current !== 'object' && typeof current !== 'function') || current === null) target[key] = {};
      deepMerge(target[key] as Record<string, unknown>, value as Record<string, unknown>);
    } else target[key] = value;
  }
  return target;
}

const polluted = () => Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted');

afterEach(() => {
  // A failing test must not leave the process polluted for the next one.
  delete (Object.prototype as Record<string, unknown>).polluted;
});

function mergingHost() {
  const { host, events } = recordingHost();
  let merges = 0;
  host.register([
    defineTool({
      name: 'patch_config',
      description: 'Merges a patch into the configuration.',
      parameters: z.object({ patch: z.record(z.string(), z.unknown()) }),
      execute: (args) => {
        merges++;
        return deepMerge({}, args.patch as Record<string, unknown>) as JsonValue;
      },
    }),
    defineTool({
      name: 'store',
      description: 'Stores any JSON.',
      parameters: z.object({ data: z.unknown() }),
      execute: (args) => {
        merges++;
        return deepMerge({}, { data: args.data } as Record<string, unknown>) as JsonValue;
      },
    }),
  ]);
  return { host, events, merges: () => merges };
}

describe('when arguments carry prototype keys', () => {
  it.each([
    ['a __proto__ key', 'store', '{"data":{"__proto__":{"polluted":true}}}', 'args.data.__proto__'],
    ['a constructor.prototype object', 'patch_config', '{"patch":{"constructor":{"prototype":{"polluted":true}}}}', 'args.patch.constructor'],
    ['a __proto__ key deep in an array', 'store', '{"data":[1,{"a":[{"__proto__":{"polluted":true}}]}]}', 'args.data[1].a[0].__proto__'],
    ['a constructor.prototype with a scalar prototype', 'patch_config', '{"patch":{"constructor":{"prototype":1}}}', 'args.patch.constructor'],
  ])('%s is refused before any tool runs, naming the path', async (_label, name, json, path) => {
    const { host, merges } = mergingHost();
    const result = await host.call({ id: '1', name, args: JSON.parse(json) });
    expect(polluted()).toBe(false);
    expect(merges()).toBe(0);
    expect(result.error?.kind).toBe('invalid-args');
    expect(result.error?.message).toContain(path);
    expect(result.error?.message).toMatch(/prototype/);
  });

  it('a __proto__ key at the root is refused too', async () => {
    const { host } = mergingHost();
    const result = await host.call({ id: '1', name: 'store', args: JSON.parse('{"data":1,"__proto__":{"polluted":true}}') });
    expect(result.error?.message).toContain('args.__proto__');
  });

  it('keys named constructor or prototype with plain values stay data', async () => {
    const { host } = mergingHost();
    const result = await host.call({ id: '1', name: 'store', args: { data: { constructor: 'Ada', prototype: { x: 1 }, nested: { constructor: [1, 2], prototype: null } } } });
    expect(result.isError).toBe(false);
    expect(result.value).toEqual({ data: { constructor: 'Ada', prototype: { x: 1 }, nested: { constructor: [1, 2], prototype: null } } });
    expect(polluted()).toBe(false);
  });

  it('the refused call is recorded, and a later definition in the process still works', async () => {
    const { host, events } = mergingHost();
    await host.call({ id: '1', name: 'patch_config', args: JSON.parse('{"patch":{"constructor":{"prototype":{"polluted":true}}}}') });
    const call = events.find((e) => e.type === 'tool/call');
    expect(call).toMatchObject({ type: 'tool/call', argsValid: false });
    expect(events.filter((e) => e.type === 'tool/result')).toHaveLength(1);
    expect(() => defineTool({ name: 'later', description: 'Later.', parameters: {}, execute: () => null })).not.toThrow();
  });
});

describe('when a tool returns prototype keys', () => {
  it('the value is refused before any listener sees it', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'evil', description: 'Returns hostile JSON.', execute: () => JSON.parse('{"ok":1,"__proto__":{"polluted":true}}') as JsonValue }));
    let listenerSaw: unknown;
    host.hooks.postExecute((_execution, result) => {
      listenerSaw = result.value;
      if (result.value !== undefined) deepMerge({}, result.value as Record<string, unknown>);
      return undefined;
    });
    const result = await host.call({ id: '1', name: 'evil', args: {} });
    expect(polluted()).toBe(false);
    expect(listenerSaw).toBeUndefined();
    expect(result.error?.kind).toBe('invalid-output');
    expect(result.error?.message).toContain('value.__proto__');
  });

  it('through an output schema too (which would otherwise strip the key unseen)', async () => {
    const { host } = recordingHost();
    host.register(
      defineTool({
        name: 'evil',
        description: 'Returns hostile JSON.',
        output: { schema: { type: 'object', properties: { ok: { type: 'number' } } } },
        execute: () => JSON.parse('{"ok":1,"meta":{"constructor":{"prototype":{"polluted":true}}}}'),
      }),
    );
    const result = await host.call({ id: '1', name: 'evil', args: {} });
    expect(result.error?.kind).toBe('invalid-output');
    expect(result.error?.message).toContain('value.meta.constructor');
  });
});

describe('when arguments or values hold functions', () => {
  it('a toJSON method in the arguments is refused as not JSON, naming the path, and never called', async () => {
    const { host, merges } = mergingHost();
    let called = false;
    const args = {
      data: {
        when: 'now',
        toJSON() {
          called = true;
          return { when: 'rewritten' };
        },
      },
    };
    const result = await host.call({ id: '1', name: 'store', args });
    expect(result.error?.kind).toBe('invalid-args');
    expect(result.error?.message).toContain('args.data.toJSON: a function is not a JSON value');
    expect(called).toBe(false);
    expect(merges()).toBe(0);
  });

  it('a class instance whose prototype has toJSON is refused as a class instance', async () => {
    const { host } = mergingHost();
    class Stamp {
      toJSON() {
        return 'stamp';
      }
    }
    const result = await host.call({ id: '1', name: 'store', args: { data: [new Stamp()] } });
    expect(result.error?.message).toContain('args.data[0]: a class instance (Stamp)');
  });

  it('a toJSON method in a returned value is refused as not JSON', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'sly', description: 'Returns a toJSON.', execute: () => ({ a: { toJSON: () => 'x' } }) as never }));
    const result = await host.call({ id: '1', name: 'sly', args: {} });
    expect(result.error?.kind).toBe('invalid-output');
    expect(result.error?.message).toContain('value.a.toJSON: a function is not a JSON value');
  });
});
