import { describe, expect, it } from 'vitest';
import { copyJsonInSlices, freezeJsonInSlices, materializeJsonInSlices, ONE_GO_NODES, takeJsonText } from './json-slices.js';
import { freezeJson, materializeJson, toJsonCounted, type JsonValue } from './json.js';

/** 10,000 rows of 7 values each: well over ONE_GO_NODES, so every walk below is sliced. */
function rows(n = 10_000): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({ id: `r${i}`, n: i, ok: i % 2 === 0, tags: ['a', 'b'] }));
}

/** What a walk ends with: its value, or the message it refused with. */
async function outcome(walk: () => unknown): Promise<{ value?: unknown; error?: string }> {
  try {
    return { value: await walk() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every(isDeepFrozen);
}

/** Large values of several shapes, each with something JSON refuses placed deep inside. */
const hostile: Record<string, () => unknown> = {
  'an accessor deep in a wide array': () => {
    const list = rows();
    Object.defineProperty(list[8_000], 'n', { enumerable: true, get: () => 1 });
    return list;
  },
  'a cycle deep in a narrow chain': () => {
    const list = rows();
    const value = { a: { b: { list } } };
    (list[9_999] as Record<string, unknown>).back = value.a;
    return value;
  },
  'a __proto__ key in a huge member among small ones': () => {
    const list = rows();
    list[6_345] = JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    return { before: 1, list, after: [1, 2] };
  },
  'a constructor.prototype key in a large object': () => {
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 70_000; i++) wide[`k${i}`] = i;
    wide.k69000 = { constructor: { prototype: {} } };
    return wide;
  },
  'a hole in a large array': () => {
    const list: unknown[] = rows();
    delete list[9_000];
    return list;
  },
  'NaN, a class instance and a function in large values': () => ({ a: rows().concat([{ n: Number.NaN }]) }),
  'a Date deep inside': () => {
    const list = rows();
    list[7_000]!.when = new Date(0);
    return list;
  },
  'a function deep inside': () => {
    const list = rows();
    list[6_000]!.fn = () => 1;
    return list;
  },
};

describe('sliced JSON walks', () => {
  it('are used for values over ONE_GO_NODES and resolve later; smaller values are walked at once', () => {
    const small = materializeJsonInSlices([1, { a: 2 }], 'value', true);
    expect(small).not.toBeInstanceOf(Promise);
    expect(Object.isFrozen(small)).toBe(true);
    expect(takeJsonText(small as JsonValue)).toBeUndefined();
    expect(ONE_GO_NODES).toBeLessThan(rows().length * 7);
    const large = materializeJsonInSlices(rows(), 'value', false);
    expect(large).toBeInstanceOf(Promise);
    return large;
  });

  it('copy, freeze and keep the same values as the one-go walk, dropping undefined members and -0', async () => {
    const make = () => {
      const list = rows();
      list[100]!.gone = undefined;
      list[200]!.n = -0;
      return { head: 'x', list, nested: { deep: [rows(2_000)] } };
    };
    const once = materializeJson(make(), 'value');
    const sliced = await materializeJsonInSlices(make(), 'value', false);
    expect(sliced).toEqual(once);
    expect(Object.is(((sliced as { list: { n: number }[] }).list[200]!).n, 0)).toBe(true);
    expect(Object.hasOwn((sliced as { list: object[] }).list[100]!, 'gone')).toBe(false);
    expect(isDeepFrozen(sliced)).toBe(true);
    const copied = await copyJsonInSlices(make(), 'value');
    expect(copied.json).toEqual(once);
    expect(copied.nodes).toBe(toJsonCounted(make(), 'value').nodes);
    expect(Object.isFrozen(copied.json)).toBe(false);
  });

  it('leave the original value as it was (a copy, not the tool own object, is frozen)', async () => {
    const value = rows();
    const copy = await materializeJsonInSlices(value, 'value', false);
    expect(copy).not.toBe(value);
    expect(Object.isFrozen(value)).toBe(false);
    expect(Object.isFrozen(value[0])).toBe(false);
  });

  for (const [name, make] of Object.entries(hostile)) {
    it(`refuse ${name} with the one-go walk's message`, async () => {
      const once = await outcome(() => materializeJson(make(), 'value'));
      expect(once.error).toBeDefined();
      expect(await outcome(() => materializeJsonInSlices(make(), 'value', true))).toEqual(once);
      const counted = await outcome(() => toJsonCounted(make(), 'value'));
      expect(await outcome(async () => (await copyJsonInSlices(make(), 'value')).json)).toEqual(counted);
    });
  }

  // (A refusal within the first ONE_GO_NODES values is thrown at once, a later one rejects: callers take both.)
  it('name the path of what they refuse', async () => {
    await expect((async () => materializeJsonInSlices(hostile['an accessor deep in a wide array']!(), 'value', false))()).rejects.toThrow('value[8000].n: an accessor property is not a JSON value');
    await expect((async () => materializeJsonInSlices(hostile['a __proto__ key in a huge member among small ones']!(), 'value', false))()).rejects.toThrow(/value\.list\[6345\]\.__proto__: a "__proto__" key is not accepted/);
  });

  it('refuse accessors without running them', async () => {
    let ran = false;
    const list = rows();
    Object.defineProperty(list[9_500], 'n', {
      enumerable: true,
      get() {
        ran = true;
        return 1;
      },
    });
    await expect((async () => materializeJsonInSlices(list, 'value', true))()).rejects.toThrow(/accessor/);
    expect(ran).toBe(false);
  });

  it('freeze in place in slices, as freezeJson does (undefined members deleted, refusals alike)', async () => {
    const value = rows() as unknown[];
    (value[5] as Record<string, unknown>).gone = undefined;
    const frozen = await freezeJsonInSlices(value, 'value', false);
    expect(frozen).toBe(value);
    expect(isDeepFrozen(value)).toBe(true);
    expect(Object.hasOwn(value[5] as object, 'gone')).toBe(false);
    for (const make of Object.values(hostile)) {
      const once = await outcome(() => freezeJson(make(), 'value'));
      expect(await outcome(() => freezeJsonInSlices(make(), 'value', false))).toEqual(once);
    }
  });

  it('turn the event loop between slices', async () => {
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    const immediates = (function tick(): { stop: () => void } {
      let on = true;
      const next = () => {
        if (!on) return;
        turns++;
        setImmediate(next);
      };
      setImmediate(next);
      return { stop: () => (on = false) };
    })();
    const before = turns;
    await materializeJsonInSlices(rows(30_000), 'value', true);
    const during = turns - before;
    clearInterval(timer);
    immediates.stop();
    expect(during).toBeGreaterThan(1);
  });

  it('make the JSON text of a large value for the program, exactly JSON.stringify of the snapshot, taken once', async () => {
    const value = { head: 'a "quoted" key', list: rows(), tail: { 'odd key': [1, 2, { x: null }] }, empty: [] as unknown[] };
    const snapshot = await materializeJsonInSlices(value, 'value', true);
    const made = takeJsonText(snapshot);
    expect(made?.text).toBe(JSON.stringify(snapshot));
    expect(made!.bytes).toBe(Buffer.byteLength(JSON.stringify(snapshot), 'utf8'));
    expect(made!.ms).toBeGreaterThanOrEqual(0);
    expect(takeJsonText(snapshot)).toBeUndefined();
    const frozenInPlace = await freezeJsonInSlices(rows(), 'value', true);
    expect(takeJsonText(frozenInPlace)?.text).toBe(JSON.stringify(frozenInPlace));
    const withoutText = await materializeJsonInSlices(rows(), 'value', false);
    expect(takeJsonText(withoutText)).toBeUndefined();
  });
});
