/**
 * Plain JSON values and the one copier every boundary uses.
 *
 * Arguments and results are "materialized": copied into fresh plain objects and arrays and
 * deep-frozen, so history, audit, UI and execution all see one immutable snapshot. The copier
 * is strict on purpose: a value that is not JSON (function, BigInt, symbol, cycle, accessor,
 * class instance, non-finite number, sparse array) is refused with the path where it was found,
 * never coerced. A `toJSON` method is a function like any other: refused, never called.
 *
 * Prototype keys: a copy never pollutes a prototype itself (every key becomes an own data
 * property), but the snapshot is handed to tool bodies and listeners, and a tool that
 * deep-merges its input follows `__proto__` or `constructor.prototype` into `Object.prototype`.
 * So by default a copy refuses a `__proto__` key anywhere, and an object under a `constructor`
 * key that has a `prototype` key (the safe default of secure JSON parsers); a `constructor` or
 * `prototype` key with any other value is data. Readers of logs and displays, which hand
 * values to no tool, ask for `prototypeKeys: 'keep'`.
 */

import { PtcError } from './errors.js';

/** A JSON value as it crosses every boundary of the pipeline. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object; keys are own data properties. */
export type JsonObject = { [key: string]: JsonValue };

/** A value could not be copied as plain JSON; `path` says where (`$.items[2].when`). */
export class NotJsonError extends PtcError {
  override readonly name = 'NotJsonError';
  constructor(
    readonly path: string,
    readonly found: string,
    message = `${path}: ${found} is not a JSON value`,
  ) {
    super(message);
  }
}

/** How a copy treats prototype keys (see the file's note). */
export interface JsonCopyOptions {
  /** `'refuse'` (default): a `__proto__` key, or `constructor: { prototype }`, is a {@link NotJsonError}. `'keep'`: plain data. */
  readonly prototypeKeys?: 'refuse' | 'keep';
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends a key to a JSON path in the readable `$.a.b[0]["x-y"]` form. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return 'a BigInt';
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const ctor = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor;
    const name = typeof ctor?.name === 'string' && ctor.name ? ctor.name : 'object';
    return `a class instance (${name})`;
  }
  return typeof value;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Defines an own enumerable data property, so `__proto__` is just a key. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Copies `value` into fresh plain JSON (not frozen), refusing anything that is not JSON and, by
 * default, prototype keys. `undefined` object members are dropped, as JSON.stringify does; an
 * `undefined` root or array element is refused. Throws {@link NotJsonError}.
 */
export function toJson(value: unknown, path = '$', options: JsonCopyOptions = {}): JsonValue {
  return new Walk(path, false, options.prototypeKeys !== 'keep').copy(value);
}

/**
 * Checks in place that a value is plain JSON without prototype keys and freezes it, all the way
 * down (no copy). For values this package just built (zod's parse output over a fresh copy).
 * Throws {@link NotJsonError}.
 */
export function freezeJson(value: unknown, path = '$'): JsonValue {
  new Walk(path, true, true).check(value);
  return value as JsonValue;
}

/**
 * Like {@link toJson}, and also counts the values copied (every object, array and scalar), so
 * a caller can tell a small document from a large one without another walk. A document from
 * {@link parseFrozenJson} is not copied (it is plain, frozen JSON already): it is only walked
 * for prototype keys and counted, and returned as it is.
 */
export function toJsonCounted(value: unknown, path = '$'): { readonly json: JsonValue; readonly nodes: number } {
  const walk = new Walk(path, false, true);
  if (typeof value === 'object' && value !== null && PARSED.has(value)) {
    walk.verifyParsed(value as JsonValue);
    return { json: value as JsonValue, nodes: walk.nodes };
  }
  const json = walk.copy(value);
  return { json, nodes: walk.nodes };
}

/** Roots of documents {@link parseFrozenJson} made: plain JSON by construction, and immutable. */
const PARSED = new WeakSet<object>();

/**
 * Parses JSON text into a deep-frozen value that materialization takes without copying it again
 * (a PTC program's arguments: the strict copy of 100,000 items cost the host about 10 ms per
 * call, for a document `JSON.parse` had just built). Prototype keys are still refused when it
 * is materialized. Throws a SyntaxError for text that is not JSON (and a RangeError for a
 * document nested too deeply to freeze).
 */
export function parseFrozenJson(text: string): JsonValue {
  const value = JSON.parse(text) as JsonValue;
  if (typeof value === 'object' && value !== null) {
    deepFreeze(value);
    PARSED.add(value);
  }
  return value;
}

/**
 * One traversal. `objects` holds the objects on the current path (a repeat is a cycle; a value
 * shared between siblings is fine) and `keys` the path to them; the readable path string is
 * built only when something is refused, which keeps the common case cheap.
 */
class Walk {
  private readonly objects: object[] = [];
  private readonly keys: (string | number)[] = [];
  /** Values seen so far (objects, arrays and scalars). */
  nodes = 0;
  /**
   * `freeze`: copies freeze each object they build (one pass instead of copy, then freeze).
   * `refuseProtoKeys`: prototype keys are refused (see the file's note).
   */
  constructor(
    private readonly root: string,
    private readonly freeze: boolean,
    private readonly refuseProtoKeys: boolean,
  ) {}

  private pathTo(key?: string | number): string {
    let path = this.root;
    for (const k of this.keys) path = childPath(path, k);
    if (key !== undefined) path = childPath(path, key);
    return path;
  }

  private fail(found: string, key?: string | number): never {
    throw new NotJsonError(this.pathTo(key), found);
  }

  /** A `__proto__` key, or an object under `constructor` that has a `prototype` key. */
  private refuseProtoKey(key: string, child: unknown): void {
    if (key === '__proto__') {
      const path = this.pathTo(key);
      throw new NotJsonError(path, 'a __proto__ key', `${path}: a "__proto__" key is not accepted (it can pollute a prototype)`);
    }
    if (key === 'constructor' && typeof child === 'object' && child !== null && Object.prototype.hasOwnProperty.call(child, 'prototype')) {
      const path = this.pathTo(key);
      throw new NotJsonError(path, 'a constructor.prototype key', `${path}: an object with a "prototype" key under "constructor" is not accepted (it can pollute a prototype)`);
    }
  }

  private enter(value: object): void {
    if (this.objects.includes(value)) this.fail('a cycle');
    this.objects.push(value);
  }

  copy(value: unknown): JsonValue {
    this.nodes++;
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        if (!Number.isFinite(value)) this.fail(describe(value));
        return Object.is(value, -0) ? 0 : value;
      case 'object': {
        if (value === null) return null;
        this.enter(value);
        const out = Array.isArray(value) ? this.copyArray(value) : this.copyObject(value);
        this.objects.pop();
        if (this.freeze) Object.freeze(out);
        return out;
      }
      default:
        return this.fail(describe(value));
    }
  }

  private copyArray(value: unknown[]): JsonValue[] {
    if (Object.getPrototypeOf(value) !== Array.prototype) this.fail(describe(value));
    const out: JsonValue[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const desc = Object.getOwnPropertyDescriptor(value, i);
      if (!desc) this.fail('a hole in a sparse array', i);
      if (!('value' in desc)) this.fail('an accessor property', i);
      this.keys.push(i);
      out[i] = this.copy(desc.value);
      this.keys.pop();
    }
    return out;
  }

  private copyObject(value: object): JsonObject {
    if (!isPlainObject(value)) this.fail(describe(value));
    this.refuseSymbolKeys(value);
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const desc = Object.getOwnPropertyDescriptor(value, key)!;
      if (!('value' in desc)) this.fail('an accessor property', key);
      if (desc.value === undefined) continue;
      if (this.refuseProtoKeys && (key === '__proto__' || key === 'constructor')) this.refuseProtoKey(key, desc.value);
      this.keys.push(key);
      const child = this.copy(desc.value);
      this.keys.pop();
      if (key === '__proto__') setOwn(out, key, child);
      else out[key] = child;
    }
    return out;
  }

  private refuseSymbolKeys(value: object): void {
    const symbols = Object.getOwnPropertySymbols(value);
    if (symbols.length > 0 && symbols.some((s) => Object.prototype.propertyIsEnumerable.call(value, s))) this.fail('a symbol key');
  }

  /** Counts and checks prototype keys in a document of {@link parseFrozenJson} (plain JSON: direct reads are safe). */
  verifyParsed(value: JsonValue): void {
    this.nodes++;
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = value[i]!;
        if (typeof item === 'object' && item !== null) {
          this.keys.push(i);
          this.verifyParsed(item);
          this.keys.pop();
        } else this.nodes++;
      }
      return;
    }
    for (const key of Object.keys(value)) {
      const child = value[key]!;
      if (this.refuseProtoKeys && (key === '__proto__' || key === 'constructor')) this.refuseProtoKey(key, child);
      if (typeof child === 'object' && child !== null) {
        this.keys.push(key);
        this.verifyParsed(child);
        this.keys.pop();
      } else this.nodes++;
    }
  }

  check(value: unknown): void {
    this.nodes++;
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(value)) this.fail(describe(value));
        return;
      case 'object': {
        if (value === null) return;
        this.enter(value);
        const isArray = Array.isArray(value);
        if (isArray ? Object.getPrototypeOf(value) !== Array.prototype : !isPlainObject(value)) this.fail(describe(value));
        this.refuseSymbolKeys(value);
        let count = 0;
        for (const key of Object.keys(value)) {
          count++;
          const desc = Object.getOwnPropertyDescriptor(value, key)!;
          const at = isArray ? Number(key) : key;
          if (!('value' in desc)) this.fail('an accessor property', at);
          if (desc.value === undefined) {
            if (isArray) this.fail('undefined', at);
            delete (value as Record<string, unknown>)[key];
            continue;
          }
          if (this.refuseProtoKeys && !isArray && (key === '__proto__' || key === 'constructor')) this.refuseProtoKey(key, desc.value);
          this.keys.push(at);
          this.check(desc.value);
          this.keys.pop();
        }
        if (isArray && count !== (value as unknown[]).length) this.fail('a sparse array');
        this.objects.pop();
        Object.freeze(value);
        return;
      }
      default:
        this.fail(describe(value));
    }
  }
}

/** Freezes a JSON value in place, all the way down, and returns it. */
export function deepFreeze<T extends JsonValue>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Copies to fresh JSON (prototype keys refused) and deep-freezes: the snapshot every pipeline step shares. */
export function materializeJson(value: unknown, path = '$'): JsonValue {
  return new Walk(path, true, true).copy(value);
}
