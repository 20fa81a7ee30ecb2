/**
 * Judges for the values model-written programs return: small, strict comparisons that say where
 * a value went wrong. Each task composes them (tasks.ts), and docs/model-programs.md states the
 * rule each task applies.
 *
 * Strict but fair: numbers are exact unless a task says otherwise (no float slack on integer
 * cents), strings are exact (they are copied from tool results, never retyped), arrays keep
 * their order unless a judge says "in any order". `fields` tolerates extra keys in an object the
 * prompt describes by its fields (a model may add a note); `record` does not, since there the
 * keys are the answer (one entry per member id, per team, per category).
 */
import type { JsonValue } from '../../tools/index.js';

/** The outcome of judging one value. */
export type Verdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Judges a value; `path` names where in the returned value it sits (`result.owners[1]`). */
export type Judge = (value: unknown, path?: string) => Verdict;

const OK: Verdict = Object.freeze({ ok: true });
const MAX_SHOWN = 300;

/** A value as a short, one-line JSON text for a verdict's reason. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length <= MAX_SHOWN ? text : `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)`;
}

const fail = (path: string, reason: string): Verdict => ({ ok: false, reason: `${path}: ${reason}` });
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with object keys sorted, so two values compare equal whatever their key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** Deep equality with `expected` (object key order ignored; arrays in order; numbers exact). */
export function exact(expected: JsonValue): Judge {
  return (value, path = 'result') => {
    if (Array.isArray(expected)) return each(expected.map(exact))(value, path);
    if (isPlainObject(expected)) return record(Object.fromEntries(Object.entries(expected).map(([k, e]) => [k, exact(e as JsonValue)])))(value, path);
    return value === expected ? OK : fail(path, `expected ${show(expected)}, got ${show(value)}`);
  };
}

/**
 * An array holding the same elements as `expected`, in any order (duplicates count). With
 * `keys`, elements are objects compared on those keys only (the prompt named them; others are
 * tolerated), and an element without one of them does not match.
 */
export function sameElements(expected: readonly JsonValue[], options: { readonly keys?: readonly string[] } = {}): Judge {
  const { keys } = options;
  const project = (v: unknown): unknown => (keys && isPlainObject(v) ? Object.fromEntries(keys.filter((k) => Object.hasOwn(v, k)).map((k) => [k, v[k]])) : v);
  const want = expected.map(canonical).sort();
  return (value, path = 'result') => {
    if (!Array.isArray(value)) return fail(path, `expected an array of ${show(expected)} (any order), got ${show(value)}`);
    const got = value.map((v) => canonical(project(v))).sort();
    const missing = want.filter((w, i) => want.indexOf(w) === i && want.filter((x) => x === w).length > got.filter((x) => x === w).length);
    const extra = got.filter((g, i) => got.indexOf(g) === i && got.filter((x) => x === g).length > want.filter((x) => x === g).length);
    if (missing.length === 0 && extra.length === 0) return OK;
    return fail(path, `expected (any order) ${show(expected)}, got ${show(value)}${missing.length ? `; missing ${missing.join(', ')}` : ''}${extra.length ? `; unexpected ${extra.join(', ')}` : ''}`);
  };
}

/** An array of exactly `judges.length` elements, the i-th judged by `judges[i]` (order matters). */
export function each(judges: readonly Judge[]): Judge {
  return (value, path = 'result') => {
    if (!Array.isArray(value)) return fail(path, `expected an array of ${judges.length} element(s), got ${show(value)}`);
    if (value.length !== judges.length) return fail(path, `expected ${judges.length} element(s), got ${value.length}: ${show(value)}`);
    for (let i = 0; i < judges.length; i++) {
      const v = judges[i]!(value[i], `${path}[${i}]`);
      if (!v.ok) return v;
    }
    return OK;
  };
}

/** A finite number within `tolerance` of `expected` (inclusive). */
export function within(expected: number, tolerance: number): Judge {
  return (value, path = 'result') => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return fail(path, `expected a number near ${expected}, got ${show(value)}`);
    // The epsilon keeps a rounded answer on the boundary (171.3 for 171.27 +- 0.05) from failing on float noise.
    return Math.abs(value - expected) <= tolerance + 1e-9 ? OK : fail(path, `expected ${expected} (+-${tolerance}), got ${value}`);
  };
}

/** An object with at least these keys, each judged; other keys are tolerated. */
export function fields(judges: Readonly<Record<string, Judge>>): Judge {
  return (value, path = 'result') => {
    if (!isPlainObject(value)) return fail(path, `expected an object with ${Object.keys(judges).join(', ')}, got ${show(value)}`);
    for (const [key, judge] of Object.entries(judges)) {
      if (!Object.hasOwn(value, key)) return fail(path, `missing the key ${JSON.stringify(key)} in ${show(value)}`);
      const v = judge(value[key], `${path}.${key}`);
      if (!v.ok) return v;
    }
    return OK;
  };
}

/** An object with exactly these keys (no more, no fewer), each judged. */
export function record(judges: Readonly<Record<string, Judge>>): Judge {
  const keys = Object.keys(judges);
  return (value, path = 'result') => {
    if (!isPlainObject(value)) return fail(path, `expected an object with the keys ${keys.join(', ')}, got ${show(value)}`);
    const extra = Object.keys(value).filter((k) => !Object.hasOwn(judges, k));
    if (extra.length > 0) return fail(path, `unexpected key(s) ${extra.map((k) => JSON.stringify(k)).join(', ')} (expected exactly ${keys.join(', ')})`);
    return fields(judges)(value, path);
  };
}
