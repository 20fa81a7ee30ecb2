/**
 * The guest's JSON walker (json.js) on its own, in a node:vm context: generated values against
 * JSON.stringify, every cap at and just past its value, and a value that cannot cross put
 * anywhere in a document, named by its path. The values are built inside the context (from a
 * description), so they have the context's own prototypes, as a program's values do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadGuestParts } from './test-support.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Refused {
  readonly path: string;
  readonly problem: string;
  readonly limit: string | undefined;
  readonly value: number | undefined;
}

/** A marker key: `{ [HOSTILE]: kind }` is built as a value of that kind. */
const HOSTILE = '\u0000hostile';
const KINDS = {
  function: 'is a function',
  symbol: 'is a symbol',
  bigint: 'is a BigInt (convert it to a string or number)',
  map: 'is a Map, which cannot cross as JSON',
  set: 'is a Set, which cannot cross as JSON',
  promise: 'is a Promise (did you forget await?), which cannot cross as JSON',
  bytes: 'is binary data (a typed array or DataView), which cannot cross as JSON',
  cycle: 'is a cycle (it contains itself)',
  // Its own toJSON is one of its values, a function; one from its class is refused on the object.
  ownToJSON: 'is a function',
  classToJSON: 'has a toJSON method, and functions are not JSON (send what it returns instead)',
} as const;
type Kind = keyof typeof KINDS;

const guest = loadGuestParts<{ convert: (text: string, caps: object) => string | Refused; Refusal: unknown }>(
  ['intrinsics.js', 'json.js'],
  ['convert', 'Refusal'],
  `
  // Builds the described value with this context's own builtins (test code, not the guest's).
  const HOSTILE = ${JSON.stringify(HOSTILE)};
  function build(spec, ancestors) {
    if (spec === null || typeof spec !== 'object') return spec;
    if (Object.prototype.hasOwnProperty.call(spec, HOSTILE)) {
      switch (spec[HOSTILE]) {
        case 'function': return () => 1;
        case 'symbol': return Symbol('s');
        case 'bigint': return 10n;
        case 'map': return new Map([[1, 2]]);
        case 'set': return new Set([1]);
        case 'promise': return Promise.resolve(1);
        case 'bytes': return new Uint8Array(2);
        case 'cycle': return ancestors[0];
        case 'ownToJSON': return { a: 1, toJSON() { throw new Error('called'); } };
        case 'classToJSON': return new (class Money { toJSON() { throw new Error('called'); } })();
      }
    }
    const out = Array.isArray(spec) ? [] : {};
    const inner = [...ancestors, out];
    for (const key of Object.keys(spec)) Object.defineProperty(out, key, { value: build(spec[key], inner), enumerable: true, writable: true, configurable: true });
    return out;
  }
  function convert(text, caps) {
    try { return toJsonText(build(JSON.parse(text), []), 'args', caps); }
    catch (e) { if (e instanceof Refusal) return { path: e.path, problem: e.problem, limit: e.limit, value: e.value }; throw e; }
  }`,
);

const caps = (c: { maxBytes?: number; maxDepth?: number; maxNodes?: number } = {}) => ({
  maxBytes: c.maxBytes ?? 1 << 24,
  maxDepth: c.maxDepth ?? 1 << 10,
  maxNodes: c.maxNodes ?? 1 << 24,
  bytesLimit: 'maxArgBytes',
  depthLimit: 'maxArgDepth',
  nodesLimit: 'maxArgNodes',
});

/** Containers around the deepest value (a scalar root: 0). */
function depthOf(v: Json): number {
  if (v === null || typeof v !== 'object') return 0;
  return 1 + Math.max(0, ...(Object.values(v) as Json[]).map(depthOf));
}

/** Values in the document, the root included. */
function nodesOf(v: Json): number {
  if (v === null || typeof v !== 'object') return 1;
  return 1 + (Object.values(v) as Json[]).reduce<number>((n, x) => n + nodesOf(x), 0);
}

/** The walker's path syntax: `.name` for an identifier, `["key"]` otherwise, `[i]` in arrays. */
function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Every place a value could be put (an existing child, or a new key or element), as keys. */
function places(v: Json, at: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== 'object') return [];
  const here: (string | number)[][] = [];
  if (Array.isArray(v)) {
    v.forEach((x, i) => here.push([...at, i], ...places(x, [...at, i])));
    here.push([...at, v.length]);
  } else {
    for (const [k, x] of Object.entries(v)) here.push([...at, k], ...places(x, [...at, k]));
    here.push([...at, 'added key']);
  }
  return here;
}

/** `v` with `put` at `place` (a copy; `__proto__` stays an own key). */
function insert(v: Json, place: (string | number)[], put: unknown): unknown {
  if (place.length === 0) return put;
  const [key, ...rest] = place;
  const copy: Record<string | number, unknown> = Array.isArray(v) ? [...v] : Object.defineProperties({}, Object.getOwnPropertyDescriptors(v as object));
  Object.defineProperty(copy, key!, { value: insert((v as Record<string | number, Json>)[key!] ?? null, rest, put), enumerable: true, writable: true, configurable: true });
  return copy;
}

const json = fc.jsonValue({ maxDepth: 6 }) as fc.Arbitrary<Json>;
const container = fc.oneof(fc.array(json, { maxLength: 5 }), fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 5 })) as fc.Arbitrary<Json>;

describe('the guest JSON walker', () => {
  it('converts any JSON value exactly as JSON.stringify does', () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(guest.convert(JSON.stringify(v), caps())).toBe(JSON.stringify(v));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a value at most one past each cap, naming the cap, and accepts it at the cap', () => {
    fc.assert(
      fc.property(json, fc.boolean(), fc.boolean(), fc.boolean(), (v, overBytes, overDepth, overNodes) => {
        // A null root is 'null' without a look at the caps: `tools.x()` converts nothing.
        fc.pre(v !== null);
        const text = JSON.stringify(v);
        const [bytes, depth, nodes] = [text.length, depthOf(v), nodesOf(v)];
        const c = {
          maxBytes: overBytes && bytes > 1 ? bytes - 1 : bytes,
          maxDepth: overDepth && depth > 1 ? depth - 1 : Math.max(1, depth),
          maxNodes: overNodes && nodes > 1 ? nodes - 1 : nodes,
        };
        const exceeded = [c.maxBytes < bytes && 'maxArgBytes', c.maxDepth < depth && 'maxArgDepth', c.maxNodes < nodes && 'maxArgNodes'].filter(Boolean);
        const out = guest.convert(text, caps(c));
        if (exceeded.length === 0) expect(out).toBe(text);
        else {
          expect(typeof out).toBe('object');
          const refused = out as Refused;
          expect(exceeded).toContain(refused.limit);
          expect(refused.value).toBe({ maxArgBytes: c.maxBytes, maxArgDepth: c.maxDepth, maxArgNodes: c.maxNodes }[refused.limit as 'maxArgBytes']);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what cannot cross wherever it is put, naming its path', () => {
    const withPlace = container.chain((v) => fc.record({ v: fc.constant(v), place: fc.constantFrom(...places(v)), kind: fc.constantFrom(...(Object.keys(KINDS) as Kind[])) }));
    fc.assert(
      fc.property(withPlace, ({ v, place, kind }) => {
        const spec = insert(v, place, { [HOSTILE]: kind });
        const out = guest.convert(JSON.stringify(spec), caps());
        const path = place.reduce<string>(childPath, 'args');
        expect(out).toEqual({ path: kind === 'ownToJSON' ? childPath(path, 'toJSON') : path, problem: KINDS[kind], limit: undefined, value: undefined });
      }),
      { numRuns: 500 },
    );
  });
});
