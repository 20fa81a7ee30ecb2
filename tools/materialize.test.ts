import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { recordingHost } from './test-support.js';
import type { JsonValue } from './json.js';

describe('when arguments are materialized', () => {
  const tool = (execute: (args: never) => unknown = () => null) =>
    defineTool({
      name: 'search',
      description: 'Search.',
      parameters: {
        query: { type: 'string', required: true },
        limit: { type: 'integer', default: 10 },
        filter: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
      },
      execute: execute as () => null,
    });

  it('reports every invalid path in a readable message', async () => {
    const { host } = recordingHost();
    host.register(tool());
    const result = await host.call({ id: '1', name: 'search', args: { query: 5, filter: { tags: ['a', 3] } } });
    expect(result.isError).toBe(true);
    expect(result.error?.kind).toBe('invalid-args');
    expect(result.error?.message).toContain('args.query: expected string, received number');
    expect(result.error?.message).toContain('args.filter.tags[1]: expected string, received number');
    expect(result.content[0]).toEqual({ type: 'text', text: result.error?.message });
  });

  it('applies defaults, deep-freezes, and gives the tool exactly the validated snapshot', async () => {
    const { host } = recordingHost();
    let received: unknown;
    host.register(tool((args) => void (received = args)));
    let listenerSaw: unknown;
    host.hooks.preExecute((execution) => void (listenerSaw = execution.args));
    const raw = { query: 'q', filter: { tags: ['a'] } };
    await host.call({ id: '1', name: 'search', args: raw });
    expect(received).toEqual({ query: 'q', limit: 10, filter: { tags: ['a'] } });
    expect(received).toBe(listenerSaw);
    expect(Object.isFrozen(received)).toBe(true);
    expect(Object.isFrozen((received as { filter: { tags: string[] } }).filter.tags)).toBe(true);
    raw.filter.tags.push('late');
    expect(received).toEqual({ query: 'q', limit: 10, filter: { tags: ['a'] } });
  });

  it('a listener that tries to mutate the args fails, and the tool still receives the snapshot', async () => {
    const { host } = recordingHost();
    let received: unknown;
    host.register(tool((args) => void (received = args)));
    host.hooks.preExecute((execution) => {
      (execution.args as { query: string }).query = 'rewritten';
      return undefined;
    });
    const result = await host.call({ id: '1', name: 'search', args: { query: 'original' } });
    expect(result.denied?.by).toBe('listener');
    expect(result.denied?.reason).toMatch(/read only|read-only|Cannot assign/);
    expect(received).toBeUndefined();

    const { host: host2 } = recordingHost();
    host2.register(tool((args) => void (received = args)));
    host2.hooks.preExecute((execution) => {
      try {
        (execution.args as { query: string }).query = 'rewritten';
      } catch {
        /* swallowed: the write still did not happen */
      }
      return undefined;
    });
    await host2.call({ id: '2', name: 'search', args: { query: 'original' } });
    expect(received).toMatchObject({ query: 'original' });
  });

  it('a strict shorthand object refuses a __proto__ key, and a constructor key with a plain value stays data', async () => {
    const { host } = recordingHost();
    let received: unknown;
    host.register(
      defineTool({
        name: 'loose',
        description: 'Takes anything.',
        parameters: z.object({ data: z.record(z.string(), z.unknown()) }),
        execute: (args) => void (received = args),
      }),
    );
    const result = await host.call({ id: '1', name: 'loose', args: JSON.parse('{"data":{"constructor":{"name":"Ada"}}}') });
    expect(result.isError).toBe(false);
    const data = (received as { data: Record<string, unknown> }).data;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.hasOwn(data, 'constructor')).toBe(true);
    expect(Object.getPrototypeOf(data.constructor)).toBe(Object.prototype);

    host.register(tool());
    const strict = await host.call({ id: '2', name: 'search', args: JSON.parse('{"query":"q","__proto__":{"polluted":true}}') });
    expect(strict.error?.kind).toBe('invalid-args');
    expect(strict.error?.message).toContain('args.__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('when results are materialized', () => {
  const cases: [string, unknown, RegExp][] = [
    ['a function', () => 1, /value: a function is not a JSON value/],
    ['a BigInt', 10n, /a BigInt/],
    ['a symbol', Symbol('s'), /a symbol/],
    ['a cycle', (() => {
      const o: Record<string, unknown> = {};
      o.self = o;
      return o;
    })(), /value\.self: a cycle/],
    ['a class instance', new (class Point {
      x = 1;
    })(), /class instance \(Point\)/],
    ['a Date', new Date(0), /class instance \(Date\)/],
    ['a Map', new Map(), /class instance \(Map\)/],
    ['NaN', Number.NaN, /NaN is not a JSON value/],
    ['undefined where the schema wants a value', undefined, /undefined is not a JSON value/],
    ['a nested function', { ok: { run: () => 1 } }, /value\.ok\.run: a function/],
  ];

  it.each(cases)('%s is an error result with a readable message', async (_label, value, message) => {
    const { host } = recordingHost();
    host.register(
      defineTool({ name: 'bad', description: 'Returns junk.', output: { schema: z.unknown().refine((v) => v !== undefined) }, execute: () => value as JsonValue }),
    );
    const result = await host.call({ id: '1', name: 'bad', args: {} });
    expect(result.isError).toBe(true);
    expect(result.error?.kind).toBe('invalid-output');
    expect(result.error?.message).toMatch(message);
    expect(result.value).toBeUndefined();
  });

  it('a schema mismatch is an error naming the path', async () => {
    const { host } = recordingHost();
    host.register(
      defineTool({
        name: 'count',
        description: 'Counts.',
        output: { schema: { type: 'object', properties: { n: { type: 'number', required: true } } } },
        execute: () => ({ n: 'three' }) as never,
      }),
    );
    const result = await host.call({ id: '1', name: 'count', args: {} });
    expect(result.error?.message).toMatch(/value\.n: expected number, received string/);
  });

  it('a throw is an error carrying the tool\'s own message', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'boom', description: 'Fails.', execute: () => {
      throw new Error('disk on fire');
    } }));
    const result = await host.call({ id: '1', name: 'boom', args: {} });
    expect(result).toMatchObject({ isError: true, error: { kind: 'execution', message: '"boom" failed: disk on fire' } });
  });

  it('a domain failure returned as a value stays a success', async () => {
    const { host } = recordingHost();
    host.register(
      defineTool({
        name: 'bash',
        description: 'Runs a command.',
        output: { schema: { type: 'object', properties: { exitCode: { type: 'integer', required: true }, stderr: { type: 'string', required: true } } } },
        execute: () => ({ exitCode: 2, stderr: 'No such file' }),
      }),
    );
    const result = await host.call({ id: '1', name: 'bash', args: {} });
    expect(result.isError).toBe(false);
    expect(result.value).toEqual({ exitCode: 2, stderr: 'No such file' });
  });

  it('the value is a deep-frozen copy: later mutation by the tool changes nothing', async () => {
    const { host } = recordingHost();
    const own = { items: [{ id: 1 }] };
    host.register(defineTool({ name: 'list', description: 'Lists.', execute: () => own }));
    const result = await host.call({ id: '1', name: 'list', args: {} });
    own.items.push({ id: 2 });
    expect(result.value).toEqual({ items: [{ id: 1 }] });
    expect(Object.isFrozen((result.value as { items: unknown[] }).items[0])).toBe(true);
    expect(Object.isFrozen(result)).toBe(true);
  });

  it('output objects strip undeclared keys so the value matches its type', async () => {
    const { host } = recordingHost();
    host.register(
      defineTool({
        name: 'user',
        description: 'A user.',
        output: { schema: { type: 'object', properties: { name: { type: 'string', required: true } } } },
        execute: () => ({ name: 'Ada', passwordHash: 'x' }) as never,
      }),
    );
    expect((await host.call({ id: '1', name: 'user', args: {} })).value).toEqual({ name: 'Ada' });
  });
});

describe('when args are hostile objects', () => {
  it('a Proxy whose traps throw is an invalid-args result, never a throw', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 't', description: 'T.', parameters: { a: { type: 'string' } }, execute: () => null }));
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('trap!'); }, getPrototypeOf: () => Object.prototype });
    const result = await host.call({ id: '1', name: 't', args: hostile });
    expect(result.error?.kind).toBe('invalid-args');
    expect(result.error?.message).toMatch(/trap!/);
  });
});

describe('when a large document fails validation', () => {
  const items = 99_990;

  it('stops at the first problem of 100k wrong items, naming its path and saying it stopped', async () => {
    const { host } = recordingHost();
    let checks = 0;
    host.register(
      defineTool({
        name: 'tag',
        description: 'Tags.',
        parameters: z.object({ ids: z.array(z.number().refine(() => (checks++, false), { message: 'not a known id', abort: true })) }),
        execute: () => null,
      }),
    );
    const result = await host.call({ id: '1', name: 'tag', args: { ids: Array.from({ length: items }, (_, i) => i) } });
    expect(result.error?.kind).toBe('invalid-args');
    expect(result.error?.message).toBe('Invalid arguments for "tag": args.ids[0]: not a known id; validation stopped at the first problem (the document is large; fix it and call again)');
    // Zod checked one item, not 99,990 (each failing check is an issue, with its path and message).
    expect(checks).toBe(1);
  });

  it.each([
    ['a wrong type', { type: 'string' }, 1],
    ['minLength', { type: 'string', minLength: 3 }, 'a'],
    ['a pattern', { type: 'string', pattern: '^x' }, 'a'],
    ['an integer', { type: 'integer' }, 1.5],
    ['a maximum', { type: 'number', maximum: 0 }, 1],
  ] as const)('stops at the first of 100k items failing %s in a shorthand schema', async (_label, items_, bad) => {
    const { host } = recordingHost();
    let ran = false;
    host.register(defineTool({ name: 'tag', description: 'Tags.', parameters: { ids: { type: 'array', items: items_ as never, required: true } }, execute: () => void (ran = true) }));
    const result = await host.call({ id: '1', name: 'tag', args: { ids: Array.from({ length: items }, () => bad) } });
    expect(result.error?.message).toMatch(/^Invalid arguments for "tag": args\.ids\[0\]: [^;]+; validation stopped at the first problem/);
    expect(ran).toBe(false);
  });

  it('reports every problem (up to 8, then a count) of a small document', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'tag', description: 'Tags.', parameters: { ids: { type: 'array', items: { type: 'string' }, required: true } }, execute: () => null }));
    const result = await host.call({ id: '1', name: 'tag', args: { ids: Array.from({ length: 20 }, (_, i) => i) } });
    expect(result.error?.message).toContain('args.ids[7]: expected string, received number; … and 12 more problems');
    expect(result.error?.message).not.toContain('stopped');
  });

  it('names a few of 100k unknown keys and counts the rest, instead of listing them all', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'note', description: 'Notes.', parameters: { text: { type: 'string', required: true } }, execute: () => null }));
    const args: Record<string, unknown> = { text: 'x' };
    for (let i = 0; i < items; i++) args[`k${i}`] = 0;
    const result = await host.call({ id: '1', name: 'note', args });
    expect(result.error?.message).toBe(
      'Invalid arguments for "note": args: Unrecognized keys: "k0", "k1", "k2", "k3", "k4" and 99985 more; validation stopped at the first problem (the document is large; fix it and call again)',
    );
  });

  it('cuts every message, however long the keys on its path', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'store', description: 'Stores.', parameters: z.object({ data: z.record(z.string(), z.number()) }), execute: () => null }));
    const longKey = 'k'.repeat(100_000);
    const result = await host.call({ id: '1', name: 'store', args: { data: { [longKey]: 'x', [`${longKey}2`]: 'y' } } });
    expect(result.error?.kind).toBe('invalid-args');
    expect(result.error!.message.length).toBeLessThan(2_500);
    expect(result.error?.message).toMatch(/cut at 1000 characters/);
    const notJson = await host.call({ id: '2', name: 'store', args: { data: { [longKey]: () => 1 } } });
    expect(notJson.error!.message.length).toBeLessThan(17_000);
    expect(notJson.error?.message).toMatch(/cut at 16384 characters/);
  });
});
