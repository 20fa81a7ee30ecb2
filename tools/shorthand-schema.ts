/**
 * The shorthand parameter format (`{ path: { type: 'string', required: true } }`) and its
 * translation to zod, the one internal source of truth for validation, the model's JSON Schema
 * and codegen. The translation checks the shorthand as it goes and reports the first problem
 * with the field path, so a bad definition fails at `defineTool`, not at the first call.
 *
 * Semantics: a property is optional unless `required: true`; a `default` makes it optional for
 * the caller and always present for `execute`. Argument objects are strict (an unknown key is a
 * validation error the model can correct); output objects strip undeclared keys so the canonical
 * value is exactly what its type says.
 */
import { z } from 'zod';
import { PtcError } from './errors.js';

interface SpecBase {
  /** Shown to the model (JSON Schema) and in generated JSDoc. */
  readonly description?: string;
  /** Only meaningful for an object property (a parameter or an entry of `properties`). */
  readonly required?: boolean;
  /** Also accept `null`. */
  readonly nullable?: boolean;
}

/** A string; `enum` narrows it to literals. */
export interface StringSpec extends SpecBase {
  readonly type: 'string';
  readonly enum?: readonly string[];
  readonly default?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}
/** A number (`integer` also requires a whole number). */
export interface NumberSpec extends SpecBase {
  readonly type: 'number' | 'integer';
  readonly enum?: readonly number[];
  readonly default?: number;
  readonly minimum?: number;
  readonly maximum?: number;
}
/** A boolean. */
export interface BooleanSpec extends SpecBase {
  readonly type: 'boolean';
  readonly default?: boolean;
}
/** An array of `items`. */
export interface ArraySpec extends SpecBase {
  readonly type: 'array';
  readonly items: ParamSpec;
  readonly default?: readonly unknown[];
  readonly minItems?: number;
  readonly maxItems?: number;
}
/** A nested object with its own `properties`. */
export interface ObjectSpec extends SpecBase {
  readonly type: 'object';
  readonly properties: { readonly [key: string]: ParamSpec };
  readonly default?: { readonly [key: string]: unknown };
}
/** One shorthand field. */
export type ParamSpec = StringSpec | NumberSpec | BooleanSpec | ArraySpec | ObjectSpec;
/** Tool parameters in shorthand: property name to spec. */
export type ParamsShorthand = { readonly [key: string]: ParamSpec };

// ---- type inference -------------------------------------------------------------------------

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Nullable<S, T> = S extends { readonly nullable: true } ? T | null : T;

/** The TypeScript type of one spec's value. */
export type InferSpec<S> = Nullable<
  S,
  S extends { readonly type: 'string'; readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly type: 'string' }
      ? string
      : S extends { readonly type: 'number' | 'integer'; readonly enum: readonly (infer E)[] }
        ? E
        : S extends { readonly type: 'number' | 'integer' }
          ? number
          : S extends { readonly type: 'boolean' }
            ? boolean
            : S extends { readonly type: 'array'; readonly items: infer I }
              ? InferSpec<I>[]
              : S extends { readonly type: 'object'; readonly properties: infer P }
                ? InferShorthand<P>
                : unknown
>;

type PresentKeys<P> = {
  [K in keyof P]: P[K] extends { readonly required: true } | { readonly default: unknown } ? K : never;
}[keyof P];
type CallerRequiredKeys<P> = {
  [K in keyof P]: P[K] extends { readonly default: unknown } ? never : P[K] extends { readonly required: true } ? K : never;
}[keyof P];

/** The args `execute` receives: required and defaulted keys present, others optional. */
export type InferShorthand<P> = Simplify<
  { -readonly [K in PresentKeys<P>]: InferSpec<P[K]> } & {
    -readonly [K in Exclude<keyof P, PresentKeys<P>>]?: InferSpec<P[K]>;
  }
>;
/** The args a caller passes: defaulted keys optional. */
export type InferShorthandInput<P> = Simplify<
  { -readonly [K in CallerRequiredKeys<P>]: InferSpec<P[K]> } & {
    -readonly [K in Exclude<keyof P, CallerRequiredKeys<P>>]?: InferSpec<P[K]>;
  }
>;

// ---- translation to zod ---------------------------------------------------------------------

/** A shorthand problem at `field` (a dotted path under `parameters` or `output.schema`). */
export class ShorthandError extends PtcError {
  override readonly name = 'ShorthandError';
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field} ${problem}`);
  }
}

const COMMON_KEYS = ['type', 'description', 'required', 'nullable', 'default'];
const KEYS_BY_TYPE: Record<ParamSpec['type'], readonly string[]> = {
  string: [...COMMON_KEYS, 'enum', 'minLength', 'maxLength', 'pattern'],
  number: [...COMMON_KEYS, 'enum', 'minimum', 'maximum'],
  integer: [...COMMON_KEYS, 'enum', 'minimum', 'maximum'],
  boolean: COMMON_KEYS,
  array: [...COMMON_KEYS, 'items', 'minItems', 'maxItems'],
  object: [...COMMON_KEYS, 'properties'],
};

/** Where a spec sits decides whether `required` may appear and how objects treat extra keys. */
interface Place {
  readonly field: string;
  readonly isProperty: boolean;
  readonly mode: 'args' | 'output';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expectNumber(spec: Record<string, unknown>, key: string, field: string): number | undefined {
  const v = spec[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ShorthandError(`${field}.${key}`, 'must be a finite number');
  return v;
}

function specToZod(spec: unknown, place: Place): z.ZodType {
  const { field } = place;
  if (!isRecord(spec)) throw new ShorthandError(field, 'must be an object like { type: "string" }');
  const type = spec.type;
  if (typeof type !== 'string' || !Object.hasOwn(KEYS_BY_TYPE, type)) {
    throw new ShorthandError(
      `${field}.type`,
      `has unknown type ${JSON.stringify(type)} (expected one of ${Object.keys(KEYS_BY_TYPE).join(', ')})`,
    );
  }
  const allowed = KEYS_BY_TYPE[type as ParamSpec['type']];
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) throw new ShorthandError(`${field}.${key}`, `is not a known field for type "${type}"`);
  }
  if (spec.required !== undefined) {
    if (!place.isProperty) {
      throw new ShorthandError(`${field}.required`, 'is only allowed on a property of an object (a parameter or an entry of properties)');
    }
    if (typeof spec.required !== 'boolean') throw new ShorthandError(`${field}.required`, 'must be a boolean');
  }
  if (spec.default !== undefined && !place.isProperty) {
    throw new ShorthandError(`${field}.default`, 'is only allowed on a property of an object');
  }
  if (spec.nullable !== undefined && typeof spec.nullable !== 'boolean') {
    throw new ShorthandError(`${field}.nullable`, 'must be a boolean');
  }
  if (spec.description !== undefined && typeof spec.description !== 'string') {
    throw new ShorthandError(`${field}.description`, 'must be a string');
  }

  let schema = baseSchema(spec, type as ParamSpec['type'], place);
  if (spec.nullable === true) schema = schema.nullable();
  if (typeof spec.description === 'string') schema = schema.describe(spec.description);
  return schema;
}

/**
 * Every check aborts when it fails: a value that failed one check is not checked further, and
 * validation of a large document in stop-early mode (tools/materialize.ts) stops at it. A check
 * that does not abort lets a container go on, and 100,000 items each failing `minLength` cost
 * 0.2-0.3 s of issues even in that mode.
 */
const ABORT = { abort: true } as const;

function baseSchema(spec: Record<string, unknown>, type: ParamSpec['type'], place: Place): z.ZodType {
  const { field } = place;
  switch (type) {
    case 'string': {
      if (spec.enum !== undefined) {
        const values = spec.enum;
        if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string')) {
          throw new ShorthandError(`${field}.enum`, 'must be a non-empty array of strings');
        }
        return z.enum(values as [string, ...string[]]);
      }
      let s = z.string();
      const min = expectNumber(spec, 'minLength', field);
      const max = expectNumber(spec, 'maxLength', field);
      if (min !== undefined) s = s.min(min, ABORT);
      if (max !== undefined) s = s.max(max, ABORT);
      if (spec.pattern !== undefined) {
        if (typeof spec.pattern !== 'string') throw new ShorthandError(`${field}.pattern`, 'must be a string');
        let re: RegExp;
        try {
          re = new RegExp(spec.pattern, 'u');
        } catch (err) {
          throw new ShorthandError(`${field}.pattern`, `is not a valid regular expression (${(err as Error).message})`);
        }
        s = s.regex(re, ABORT);
      }
      return s;
    }
    case 'number':
    case 'integer': {
      if (spec.enum !== undefined) {
        const values = spec.enum;
        if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
          throw new ShorthandError(`${field}.enum`, 'must be a non-empty array of numbers');
        }
        const literals = values.map((v) => z.literal(v as number));
        return literals.length === 1 ? literals[0]! : z.union(literals as [z.ZodLiteral<number>, z.ZodLiteral<number>]);
      }
      let n = type === 'integer' ? z.number().int(ABORT) : z.number();
      const min = expectNumber(spec, 'minimum', field);
      const max = expectNumber(spec, 'maximum', field);
      if (min !== undefined) n = n.min(min, ABORT);
      if (max !== undefined) n = n.max(max, ABORT);
      return n;
    }
    case 'boolean':
      return z.boolean();
    case 'array': {
      if (spec.items === undefined) throw new ShorthandError(`${field}.items`, 'is required for type "array"');
      let a = z.array(specToZod(spec.items, { field: `${field}.items`, isProperty: false, mode: place.mode }));
      const min = expectNumber(spec, 'minItems', field);
      const max = expectNumber(spec, 'maxItems', field);
      if (min !== undefined) a = a.min(min, ABORT);
      if (max !== undefined) a = a.max(max, ABORT);
      return a;
    }
    case 'object': {
      if (!isRecord(spec.properties)) {
        throw new ShorthandError(`${field}.properties`, 'is required for type "object" and must be a record of specs');
      }
      return shapeToZod(spec.properties, `${field}.properties`, place.mode);
    }
  }
}

function propertyToZod(spec: unknown, field: string, mode: Place['mode']): z.ZodType {
  let schema = specToZod(spec, { field, isProperty: true, mode });
  const s = spec as Record<string, unknown>;
  if (s.default !== undefined) {
    const checked = schema.safeParse(s.default);
    if (!checked.success) {
      throw new ShorthandError(`${field}.default`, `does not match its own type (${checked.error.issues[0]?.message ?? 'invalid'})`);
    }
    schema = schema.default(checked.data as never);
  } else if (s.required !== true) {
    schema = schema.optional();
  }
  return schema;
}

function shapeToZod(properties: Record<string, unknown>, field: string, mode: Place['mode']): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const key of Object.keys(properties)) {
    Object.defineProperty(shape, key, {
      value: propertyToZod(properties[key], `${field}.${key}`, mode),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return mode === 'args' ? z.strictObject(shape) : z.object(shape);
}

/** Translates a `parameters` shorthand record to a strict zod object. Throws {@link ShorthandError}. */
export function parametersToZod(params: unknown, field = 'parameters'): z.ZodObject {
  if (!isRecord(params)) throw new ShorthandError(field, 'must be a record of parameter specs or a zod object');
  return shapeToZod(params, field, 'args');
}

/** Translates an `output.schema` shorthand (any spec at the root, even a scalar). */
export function outputSpecToZod(spec: unknown, field = 'output.schema'): z.ZodType {
  return specToZod(spec, { field, isProperty: false, mode: 'output' });
}
