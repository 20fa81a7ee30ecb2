/**
 * Zod reads an object's properties as `key in input` and `input[key]`, so a property named like
 * a member of `Object.prototype` (`constructor`, `toString`, `valueOf`, `hasOwnProperty`, ...)
 * is never absent: leaving out an optional `constructor` fails with "expected string, received
 * function". Schemas converted from JSON Schema (a server's names, not ours) get each such
 * property wrapped so that a value which *is* the inherited member reads as absent (JSON never
 * holds a function, so this is exact). Only the path down to such a property is rebuilt (with
 * zod's `clone`, keeping checks and metadata through `parent`); every other schema is returned
 * as it is.
 */
import { z } from 'zod';

type Def = Record<string, unknown> & { type: string };
type Schema = z.core.$ZodType;

const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));
const ONE_CHILD = ['innerType', 'element', 'left', 'right', 'keyType', 'valueType', 'in', 'out', 'catchall', 'rest'] as const;
const CHILD_LISTS = ['options', 'items'] as const;

const defOf = (schema: Schema) => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && '_zod' in value;

function children(def: Def): Schema[] {
  const out: Schema[] = [];
  for (const key of ONE_CHILD) if (isSchema(def[key])) out.push(def[key]);
  for (const key of CHILD_LISTS) if (Array.isArray(def[key])) out.push(...(def[key] as unknown[]).filter(isSchema));
  if (def.type === 'object') out.push(...Object.values(def.shape as Record<string, Schema>));
  if (def.type === 'lazy') out.push((def.getter as () => Schema)());
  return out;
}

/**
 * Which schemas reach an object with a property named like an inherited member: the graph is
 * collected once (lazies make it cyclic), then marks spread from children to parents until
 * nothing changes.
 */
function schemasNeedingGuard(root: Schema): Map<Schema, boolean> {
  const edges = new Map<Schema, Schema[]>();
  const stack = [root];
  while (stack.length > 0) {
    const schema = stack.pop()!;
    if (edges.has(schema)) continue;
    const next = children(defOf(schema));
    edges.set(schema, next);
    stack.push(...next);
  }
  const needs = new Map<Schema, boolean>();
  for (const schema of edges.keys()) {
    const def = defOf(schema);
    needs.set(schema, def.type === 'object' && Object.keys(def.shape as object).some((k) => INHERITED.has(k)));
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [schema, next] of edges) {
      if (!needs.get(schema) && next.some((c) => needs.get(c))) {
        needs.set(schema, true);
        changed = true;
      }
    }
  }
  return needs;
}

function ownOnly(key: string, schema: Schema): Schema {
  // What a plain object inherits under `key` (`Object` for `constructor`, `Object.prototype` for `__proto__`).
  const inherited: unknown = ({} as Record<string, unknown>)[key];
  const guarded = z.preprocess((value) => (value === inherited ? undefined : value), schema as z.ZodType);
  // The declarations read a property's description from it or what it wraps; a pipe is not unwrapped.
  for (let current: Schema | undefined = schema; current; current = defOf(current).innerType as Schema | undefined) {
    const description = z.globalRegistry.get(current)?.description;
    if (typeof description === 'string') return guarded.describe(description);
  }
  return guarded;
}

function rebuild(schema: Schema, needs: Map<Schema, boolean>, done: Map<Schema, Schema>): Schema {
  if (!needs.get(schema)) return schema;
  const cached = done.get(schema);
  if (cached) return cached;
  const def = defOf(schema);
  if (def.type === 'lazy') {
    const target = (def.getter as () => Schema)();
    const lazy = z.lazy(() => rebuild(target, needs, done) as z.ZodType);
    done.set(schema, lazy);
    return lazy;
  }
  const next: Def = { ...def };
  for (const key of ONE_CHILD) if (isSchema(def[key])) next[key] = rebuild(def[key], needs, done);
  for (const key of CHILD_LISTS) if (Array.isArray(def[key])) next[key] = (def[key] as unknown[]).map((c) => (isSchema(c) ? rebuild(c, needs, done) : c));
  if (def.type === 'object') {
    const shape: Record<string, Schema> = {};
    for (const [key, value] of Object.entries(def.shape as Record<string, Schema>)) {
      const child = rebuild(value, needs, done);
      Object.defineProperty(shape, key, { value: INHERITED.has(key) ? ownOnly(key, child) : child, enumerable: true, writable: true, configurable: true });
    }
    next.shape = shape;
  }
  const copy = (schema as unknown as { clone(def: Def, params: { parent: true }): Schema }).clone(next, { parent: true });
  done.set(schema, copy);
  return copy;
}

/**
 * `schema` with every property named like an `Object.prototype` member (at any depth) made
 * omittable in fact, not only in name; `schema` itself when it has none.
 */
export function guardInheritedKeys<T extends Schema>(schema: T): T {
  const needs = schemasNeedingGuard(schema);
  if (!needs.get(schema)) return schema;
  return rebuild(schema, needs, new Map()) as T;
}
