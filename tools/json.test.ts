import { describe, expect, it } from 'vitest';
import { materializeJson, NotJsonError, toJson } from './json.js';

describe('toJson', () => {
  it('refuses prototype keys by default, naming the path', () => {
    expect(() => toJson(JSON.parse('{"a":[1,{"__proto__":null}]}'))).toThrow('$.a[1].__proto__: a "__proto__" key is not accepted');
    expect(() => toJson(JSON.parse('{"constructor":{"prototype":{}}}'))).toThrow(/\$\.constructor: an object with a "prototype" key under "constructor"/);
    expect(() => materializeJson(JSON.parse('{"__proto__":1}'))).toThrow(NotJsonError);
    expect(toJson({ constructor: 1, prototype: { a: 1 }, b: { constructor: { name: 'x' } } })).toEqual({ constructor: 1, prototype: { a: 1 }, b: { constructor: { name: 'x' } } });
  });

  it("with prototypeKeys: 'keep', keeps a __proto__ key as an own property without touching any prototype", () => {
    const copy = toJson(JSON.parse('{"__proto__":{"polluted":1},"a":[1,{"__proto__":null}]}'), '$', { prototypeKeys: 'keep' }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('refuses accessors without running them', () => {
    let ran = false;
    const value = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        ran = true;
        return 1;
      },
    });
    expect(() => toJson(value)).toThrow(new NotJsonError('$.x', 'an accessor property'));
    expect(ran).toBe(false);
  });

  it('refuses sparse arrays, symbol keys and non-finite numbers, naming the path', () => {
    expect(() => toJson({ list: [1, , 3] })).toThrow(/\$\.list\[1\]: a hole/);
    expect(() => toJson({ [Symbol('k')]: 1 })).toThrow(/a symbol key/);
    expect(() => toJson({ n: Infinity })).toThrow(/\$\.n: Infinity/);
    expect(() => toJson({ 'odd key': 1n })).toThrow(/\$\["odd key"\]: a BigInt/);
  });

  it('allows shared references that are not cycles, and drops undefined members', () => {
    const shared = { id: 1 };
    expect(toJson({ a: shared, b: shared, c: undefined })).toEqual({ a: { id: 1 }, b: { id: 1 } });
  });

  it('materializeJson freezes every level', () => {
    const v = materializeJson({ a: [{ b: 1 }] }) as { a: { b: number }[] };
    expect(Object.isFrozen(v) && Object.isFrozen(v.a) && Object.isFrozen(v.a[0])).toBe(true);
  });
});

describe('parseFrozenJson', () => {
  it('gives a deep-frozen document that materialization takes without copying, still refusing prototype keys', async () => {
    const { toJsonCounted, parseFrozenJson } = await import('./json.js');
    const doc = parseFrozenJson('{"a":[1,{"b":2}],"c":"x"}') as { a: unknown[] };
    expect(Object.isFrozen(doc) && Object.isFrozen(doc.a) && Object.isFrozen(doc.a[1])).toBe(true);
    const counted = toJsonCounted(doc);
    expect(counted.json).toBe(doc);
    expect(counted.nodes).toBe(6);
    // The same text not from parseFrozenJson is copied, and counts the same.
    expect(toJsonCounted(JSON.parse('{"a":[1,{"b":2}],"c":"x"}'))).toEqual({ json: doc, nodes: 6 });
    expect(() => toJsonCounted(parseFrozenJson('{"a":[{"__proto__":{"x":1}}]}'))).toThrow('$.a[0].__proto__: a "__proto__" key is not accepted');
    expect(() => toJsonCounted(parseFrozenJson('{"constructor":{"prototype":null}}'))).toThrow(/\$\.constructor: an object with a "prototype" key/);
    expect(() => parseFrozenJson('{"a":')).toThrow(SyntaxError);
  });

  it('freezes every container of a large document, in arrays and in objects, mixed with primitives', async () => {
    const { parseFrozenJson } = await import('./json.js');
    const items = Array.from({ length: 100_000 }, (_, i) => (i % 1_000 === 0 ? { at: i, deep: [{ i }] } : `x${i}`));
    const doc = parseFrozenJson(JSON.stringify({ items, meta: { list: [[1], [2, { z: [] }]] } })) as { items: unknown[]; meta: { list: unknown[][] } };
    const containers: unknown[] = [];
    const collect = (v: unknown) => {
      if (typeof v !== 'object' || v === null) return;
      containers.push(v);
      for (const child of Object.values(v)) collect(child);
    };
    collect(doc);
    // 1 root + items + 100 objects with their 100 arrays and 100 inner objects + meta, list, 2 lists, { z }, z
    expect(containers).toHaveLength(1 + 1 + 300 + 6);
    expect(containers.every((c) => Object.isFrozen(c))).toBe(true);
  });
});
