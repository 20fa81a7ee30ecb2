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

import { childPath, NotJsonError, Walk } from './json-walk.js';

export { childPath, NotJsonError };

import type { JsonValue } from './json-types.js';

export type { JsonObject, JsonValue } from './json-types.js';

/** How a copy treats prototype keys (see the file's note). */
export interface JsonCopyOptions {
  /** `'refuse'` (default): a `__proto__` key, or `constructor: { prototype }`, is a {@link NotJsonError}. `'keep'`: plain data. */
  readonly prototypeKeys?: 'refuse' | 'keep';
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

/** Freezes a JSON value in place, all the way down, and returns it. */
export function deepFreeze<T extends JsonValue>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) freezeContainer(value);
  return value;
}

/**
 * Freezes a container and its containers. An array is walked by index and a primitive is never
 * visited on its own: a program's 100,000-item argument cost a copy of its items
 * (`Object.values`) and 100,000 calls before, on the host's thread, for every call.
 */
function freezeContainer(value: object): void {
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) freezeContainer(child);
    }
    return;
  }
  for (const key of Object.keys(value)) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) freezeContainer(child);
  }
}

/** Copies to fresh JSON (prototype keys refused) and deep-freezes: the snapshot every pipeline step shares. */
export function materializeJson(value: unknown, path = '$'): JsonValue {
  return new Walk(path, true, true).copy(value);
}
