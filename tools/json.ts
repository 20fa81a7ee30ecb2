/**
 * Plain JSON values and the one copier every boundary uses.
 *
 * Arguments and results are "materialized": copied into fresh plain objects and arrays and
 * deep-frozen, so history, audit, UI and execution all see one immutable snapshot. The copier
 * is strict on purpose: a value that is not JSON (function, BigInt, symbol, cycle, accessor,
 * class instance, non-finite number, sparse array) is refused with the path where it was found,
 * never coerced. Keys such as `__proto__` become ordinary own properties (defineProperty), so a
 * model cannot pollute a prototype through its arguments.
 */

/** A JSON value as it crosses every boundary of the pipeline. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object; keys are own data properties. */
export type JsonObject = { [key: string]: JsonValue };

/** A value could not be copied as plain JSON; `path` says where (`$.items[2].when`). */
export class NotJsonError extends Error {
  override readonly name = 'NotJsonError';
  constructor(
    readonly path: string,
    readonly found: string,
  ) {
    super(`${path}: ${found} is not a JSON value`);
  }
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
 * Copies `value` into fresh plain JSON (not frozen), refusing anything that is not JSON.
 * `undefined` object members are dropped, as JSON.stringify does; an `undefined` root or array
 * element is refused. Throws {@link NotJsonError}.
 */
export function toJson(value: unknown, path = '$'): JsonValue {
  return copy(value, path, new Set());
}

function copy(value: unknown, path: string, seen: Set<object>): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonError(path, describe(value));
      return Object.is(value, -0) ? 0 : value;
    case 'object': {
      if (value === null) return null;
      if (seen.has(value)) throw new NotJsonError(path, 'a cycle');
      seen.add(value);
      try {
        if (Array.isArray(value)) return copyArray(value, path, seen);
        if (!isPlainObject(value)) throw new NotJsonError(path, describe(value));
        return copyObject(value as Record<PropertyKey, unknown>, path, seen);
      } finally {
        seen.delete(value);
      }
    }
    default:
      throw new NotJsonError(path, describe(value));
  }
}

function copyArray(value: unknown[], path: string, seen: Set<object>): JsonValue[] {
  if (Object.getPrototypeOf(value) !== Array.prototype) throw new NotJsonError(path, describe(value));
  const out: JsonValue[] = new Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const desc = Object.getOwnPropertyDescriptor(value, i);
    const at = childPath(path, i);
    if (!desc) throw new NotJsonError(at, 'a hole in a sparse array');
    if (!('value' in desc)) throw new NotJsonError(at, 'an accessor property');
    out[i] = copy(desc.value, at, seen);
  }
  return out;
}

function copyObject(value: Record<PropertyKey, unknown>, path: string, seen: Set<object>): JsonObject {
  const out: JsonObject = {};
  for (const key of Reflect.ownKeys(value)) {
    const desc = Object.getOwnPropertyDescriptor(value, key)!;
    if (!desc.enumerable) continue;
    if (typeof key === 'symbol') throw new NotJsonError(path, 'a symbol key');
    const at = childPath(path, key);
    if (!('value' in desc)) throw new NotJsonError(at, 'an accessor property');
    if (desc.value === undefined) continue;
    setOwn(out, key, copy(desc.value, at, seen));
  }
  return out;
}

/** Freezes a JSON value in place, all the way down, and returns it. */
export function deepFreeze<T extends JsonValue>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Copies to fresh JSON and deep-freezes: the snapshot every pipeline step shares. */
export function materializeJson(value: unknown, path = '$'): JsonValue {
  return deepFreeze(toJson(value, path));
}
