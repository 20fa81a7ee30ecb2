/**
 * `zodFromJsonSchema`: tool schemas that arrive as JSON Schema (as MCP servers send them) into
 * zod, through zod's own `z.fromJSONSchema`, so they take the same validation and codegen path
 * as tools written in zod. The input is untrusted (a remote server wrote it), so this never
 * throws and never lets the schema hurt the host:
 * - it is first copied and sanitized: what zod cannot express becomes `{}` (any value) marked
 *   for codegen, which prints `unknown` with a comment saying why, and a warning names the
 *   JSON pointer. Constraint-only keywords zod lacks (`not`, `if`/`then`/`else`,
 *   `dependent*`, `unevaluated*`) are dropped with a warning: the type stays, the constraint is
 *   left to the server;
 * - `$ref`s are normalized: `#/definitions/x` and `#/$defs/x` both work whatever the draft, a
 *   pointer anywhere into the document (`#/properties/a/items`) is hoisted into the definitions,
 *   and a remote or dangling reference becomes `unknown`;
 * - regular expressions (`pattern`, `patternProperties`) are dropped by default: zod would run
 *   them on the host against model-written strings, and a hostile pattern can hang the process
 *   (catastrophic backtracking). Pass `patterns: 'keep'` for schemas you trust. A dropped
 *   `pattern` stays in the metadata ({@link UNCHECKED_PATTERN_KEY}), so the declarations still
 *   show it as `@pattern`;
 * - dropping `patternProperties` also lifts `additionalProperties` (whatever the key order):
 *   the keys the patterns matched are allowed, unchecked, never refused;
 * - a `$ref` beside other keywords means both (2019-09 and later: `allOf` of the two; draft 7
 *   and 4 ignore the siblings, as their spec says); a reference cycle that never passes through
 *   a value (`a: { $ref: b }, b: { $ref: a }`, or through `anyOf`/`allOf` only) has no type: the
 *   reference that closes it becomes `unknown` with a warning, instead of a type alias of itself
 *   and a validator that recurses until the stack overflows;
 * - descriptions and titles are capped ({@link MAX_SCHEMA_DESCRIPTION_CHARS});
 * - a property named like an `Object.prototype` member (`constructor`, `toString`) can be left
 *   out when optional (own-keys.ts);
 * - OpenAPI's `nullable: true` is honoured; size and depth are bounded.
 * Whole-schema failure (not an object, cyclic, too large, or a throw inside zod) gives
 * `z.unknown()` with a warning.
 */
import { z } from 'zod';
import { declareJsonSchema, errorText, isZodObject, type JsonObject as ToolJsonObject } from '../tools/index.js';
import { CodegenInputError } from './errors.js';
import { guardInheritedKeys } from './own-keys.js';
import { FALLBACK_KEY, jsonSchemaMetadata, UNCHECKED_PATTERN_KEY } from './schema-metadata.js';

/** Options of {@link zodFromJsonSchema}. */
export interface ZodFromJsonSchemaOptions {
  /** `'drop'` (default) removes `pattern`/`patternProperties`; `'keep'` validates them on the host. */
  readonly patterns?: 'drop' | 'keep';
  /**
   * Longest `description` or `title` kept on any subschema (default
   * {@link MAX_SCHEMA_DESCRIPTION_CHARS}); longer ones are cut with `…`, so a schema's text in
   * the declarations stays bounded by its number of properties, not by what a server wrote.
   */
  readonly maxDescriptionChars?: number;
}

/** What {@link zodFromJsonSchema} returns. */
export interface ZodFromJsonSchemaResult {
  /** The zod schema (`z.unknown()` when nothing could be converted). */
  readonly schema: z.ZodType;
  /** Each part that was approximated, naming its JSON pointer. */
  readonly warnings: string[];
}

/** Largest schema accepted, as JSON text. */
export const MAX_JSON_SCHEMA_CHARS = 1_000_000;
/** Deepest nesting of subschemas accepted; deeper parts become `unknown`. */
export const MAX_JSON_SCHEMA_DEPTH = 64;
/** Longest `description` or `title` of a subschema kept by default. */
export const MAX_SCHEMA_DESCRIPTION_CHARS = 500;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
const DROPPED: Record<string, string> = {
  not: '"not"',
  if: 'if/then/else',
  then: 'if/then/else',
  else: 'if/then/else',
  dependentSchemas: '"dependentSchemas"',
  dependentRequired: '"dependentRequired"',
  dependencies: '"dependencies"',
  unevaluatedItems: '"unevaluatedItems"',
  unevaluatedProperties: '"unevaluatedProperties"',
  contentSchema: '"contentSchema"',
};
const ONE_SUBSCHEMA = ['items', 'additionalProperties', 'additionalItems', 'contains', 'propertyNames'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
/** Keywords that apply to the same value (not to a part of it): a `$ref` cycle through only these has no value in between. */
const IN_PLACE_LISTS = ['anyOf', 'oneOf', 'allOf'];
/** Keywords beside a `$ref` that only annotate it (they are kept on the reference, not made an `allOf`). */
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$id', '$anchor', '$schema']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setOwn(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function pointerJoin(base: string, ...segments: (string | number)[]): string {
  return segments.reduce<string>((acc, s) => `${acc}/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`, base);
}

function decodeSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The version zod will detect (same rule), which decides where it looks for definitions. */
function definitionsKey(root: JsonObject): '$defs' | 'definitions' {
  const $schema = root.$schema;
  return $schema === 'http://json-schema.org/draft-07/schema#' || $schema === 'http://json-schema.org/draft-04/schema#' ? 'definitions' : '$defs';
}

function isPrimitive(value: Json): boolean {
  return value === null || typeof value !== 'object';
}

/**
 * 2019-09 and later: a `$ref` beside other keywords applies both (zod would keep only the
 * reference): `{ $ref, ...rest }` becomes `{ allOf: [{ $ref }, rest] }`, annotations staying on top.
 */
function refWithSiblings(schema: JsonObject): JsonObject {
  if (typeof schema.$ref !== 'string') return schema;
  const keys = Object.keys(schema).filter((k) => k !== '$ref' && !ANNOTATIONS.has(k));
  if (keys.length === 0) return schema;
  const rest: JsonObject = {};
  const out: JsonObject = {};
  for (const key of Object.keys(schema)) {
    if (key === '$ref') continue;
    setOwn(ANNOTATIONS.has(key) ? out : rest, key, schema[key]!);
  }
  const all = Array.isArray(rest.allOf) ? rest.allOf : undefined;
  delete rest.allOf;
  setOwn(out, 'allOf', [{ $ref: schema.$ref }, ...(Object.keys(rest).length > 0 ? [rest] : []), ...(all ?? [])]);
  return out;
}

class Sanitizer {
  readonly warnings: string[] = [];
  private readonly defs: JsonObject = {};
  private readonly hoisted = new Map<string, string>();
  private readonly pending: [string, Json, string][] = [];

  private cutDescriptions = 0;

  constructor(
    private readonly root: JsonObject,
    private readonly defsKey: '$defs' | 'definitions',
    private readonly keepPatterns: boolean,
    private readonly maxDescriptionChars: number,
  ) {}

  run(): JsonObject {
    const originalDefs: [string, Json][] = [];
    for (const key of ['definitions', '$defs']) {
      const defs = this.root[key];
      if (defs === undefined) continue;
      if (!isObject(defs)) {
        this.warn(pointerJoin('#', key), 'is not an object of schemas; ignored');
        continue;
      }
      for (const name of Object.keys(defs)) originalDefs.push([name, defs[name]!]);
    }
    for (const [name, def] of originalDefs) {
      if (!Object.hasOwn(this.defs, name)) this.pending.push([name, def, pointerJoin('#', this.defsKey, name)]);
      setOwn(this.defs, name, {}); // reserve the name; filled below
    }
    const out = this.node(this.root, '#', 0, true) as JsonObject;
    while (this.pending.length > 0) {
      const [name, def, at] = this.pending.shift()!;
      setOwn(this.defs, name, this.node(def, at, 1, false));
    }
    delete out.$defs;
    delete out.definitions;
    this.breakValuelessCycles(out);
    if (Object.keys(this.defs).length > 0) setOwn(out, this.defsKey, this.defs);
    if (this.cutDescriptions > 0) this.warn('#', `${this.cutDescriptions} description(s) or title(s) longer than ${this.maxDescriptionChars} characters were cut`);
    return out;
  }

  /**
   * Finds `$ref` cycles that pass through no value (only `$ref`, `anyOf`, `oneOf`, `allOf`) and
   * turns the reference closing each into `unknown`. Runs on the sanitized document, whose
   * references are all `#` or `#/<defs>/<name>`.
   */
  private breakValuelessCycles(root: JsonObject): void {
    const target = (ref: string) => (ref === '#' ? '#' : decodeSegment(ref.slice(`#/${this.defsKey}/`.length)));
    const schemaOf = (name: string): Json => (name === '#' ? root : this.defs[name]!);
    /** The objects holding a `$ref` reached from `schema` without entering a value. */
    const refsInPlace = (schema: Json, found: JsonObject[]) => {
      if (!isObject(schema)) return found;
      if (typeof schema.$ref === 'string') found.push(schema);
      for (const key of IN_PLACE_LISTS) {
        const list = schema[key];
        if (Array.isArray(list)) for (const item of list) refsInPlace(item, found);
      }
      return found;
    };
    const state = new Map<string, 'open' | 'done'>();
    const visit = (name: string, path: string[]) => {
      state.set(name, 'open');
      for (const holder of refsInPlace(schemaOf(name), [])) {
        const next = target(holder.$ref as string);
        if (next !== '#' && !Object.hasOwn(this.defs, next)) continue;
        const seen = state.get(next);
        if (seen === 'open') {
          const cycle = [...path.slice(path.indexOf(next)), next].map((n) => (n === '#' ? '#' : pointerJoin('#', this.defsKey, n))).join(' -> ');
          const problem = `$ref cycle with no value in between (${cycle})`;
          this.warn(name === '#' ? '#' : pointerJoin('#', this.defsKey, name), `${problem}; typed as unknown`);
          delete holder.$ref;
          setOwn(holder, FALLBACK_KEY, problem);
        } else if (seen === undefined) {
          visit(next, [...path, next]);
        }
      }
      state.set(name, 'done');
    };
    visit('#', ['#']);
    for (const name of Object.keys(this.defs)) if (!state.has(name)) visit(name, [name]);
  }

  private warn(at: string, problem: string): void {
    this.warnings.push(`${at}: ${problem}`);
  }

  private fallback(at: string, problem: string, description?: Json): JsonObject {
    this.warn(at, `${problem}; typed as unknown`);
    const marker: JsonObject = { [FALLBACK_KEY]: problem };
    if (typeof description === 'string') marker.description = description;
    return marker;
  }

  private resolvePointer(ref: string): Json | undefined {
    let current: Json = this.root;
    for (const raw of ref.slice(2).split('/')) {
      const segment = decodeSegment(raw);
      if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)]!;
      else if (isObject(current) && Object.hasOwn(current, segment)) current = current[segment]!;
      else return undefined;
      if (current === undefined) return undefined;
    }
    return current;
  }

  private rewriteRef(ref: string, at: string): string | undefined {
    if (ref === '#') return ref;
    const def = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
    if (def && Object.hasOwn(this.defs, decodeSegment(def[1]!))) return pointerJoin('#', this.defsKey, decodeSegment(def[1]!));
    if (!ref.startsWith('#/')) return undefined;
    const known = this.hoisted.get(ref);
    if (known) return pointerJoin('#', this.defsKey, known);
    const target = this.resolvePointer(ref);
    if (target === undefined) return undefined;
    let name = `ptc_ref_${this.hoisted.size + 1}`;
    while (Object.hasOwn(this.defs, name)) name += '_';
    this.hoisted.set(ref, name);
    setOwn(this.defs, name, {});
    this.pending.push([name, target, `${at} -> ${ref}`]);
    return pointerJoin('#', this.defsKey, name);
  }

  private node(schema: Json, at: string, depth: number, isRoot: boolean): Json {
    if (typeof schema === 'boolean') return schema;
    if (!isObject(schema)) return this.fallback(at, 'is not a schema (an object or boolean)');
    if (depth > MAX_JSON_SCHEMA_DEPTH) return this.fallback(at, `is nested deeper than ${MAX_JSON_SCHEMA_DEPTH} levels`, schema.description);
    const out: JsonObject = {};
    for (const key of Object.keys(schema)) {
      const value = schema[key]!;
      const here = pointerJoin(at, key);
      if (key === '$defs' || key === 'definitions') {
        if (!isRoot) this.warn(here, 'nested definitions are not supported; ignored (only the root ones are)');
        continue;
      }
      if (Object.hasOwn(DROPPED, key)) {
        if (key === 'not' && isObject(value) && Object.keys(value).length === 0) {
          setOwn(out, key, value);
        } else if (key !== 'then' && key !== 'else') {
          this.warn(here, `${DROPPED[key]} cannot be expressed; dropped (not checked here, the tool still checks it)`);
        }
        continue;
      }
      if ((key === 'pattern' || key === 'patternProperties') && !this.keepPatterns) {
        // Not run here, but the server checks it: the declarations still show it (constraint-tags.ts).
        if (key === 'pattern' && typeof value === 'string') setOwn(out, UNCHECKED_PATTERN_KEY, value);
        continue;
      }
      if ((key === 'description' || key === 'title') && typeof value === 'string' && value.length > this.maxDescriptionChars) {
        this.cutDescriptions++;
        setOwn(out, key, `${value.slice(0, this.maxDescriptionChars - 1)}…`);
        continue;
      }
      switch (key) {
        case '$ref': {
          if (typeof value !== 'string') return this.fallback(here, '$ref is not a string', schema.description);
          const ref = this.rewriteRef(value, at);
          if (ref === undefined) return this.fallback(at, `$ref ${JSON.stringify(value)} cannot be resolved (only references into this document are)`, schema.description);
          setOwn(out, key, ref);
          break;
        }
        case 'type': {
          const list = Array.isArray(value) ? value : [value];
          const known = list.filter((t): t is string => typeof t === 'string' && TYPES.has(t));
          if (known.length !== list.length) this.warn(here, `unknown type ${JSON.stringify(list.filter((t) => !known.includes(t as string)))} ignored`);
          if (known.length === 0) return this.fallback(at, `has no known type (${JSON.stringify(value)})`, schema.description);
          setOwn(out, key, Array.isArray(value) ? known : known[0]!);
          break;
        }
        case 'enum': {
          if (!Array.isArray(value)) return this.fallback(here, 'enum is not an array', schema.description);
          if (!value.every(isPrimitive)) return this.fallback(here, 'an enum of objects or arrays has no literal type', schema.description);
          setOwn(out, key, value);
          break;
        }
        case 'const': {
          if (!isPrimitive(value)) return this.fallback(here, 'a const object or array has no literal type', schema.description);
          setOwn(out, key, value);
          break;
        }
        case 'required': {
          if (Array.isArray(value) && value.every((v) => typeof v === 'string')) setOwn(out, key, value);
          else this.warn(here, 'is not an array of property names; ignored');
          break;
        }
        case 'properties':
        case 'patternProperties': {
          if (!isObject(value)) {
            this.warn(here, 'is not an object of schemas; ignored');
            break;
          }
          const props: JsonObject = {};
          for (const name of Object.keys(value)) setOwn(props, name, this.node(value[name]!, pointerJoin(here, name), depth + 1, false));
          setOwn(out, key, props);
          break;
        }
        default: {
          if (SUBSCHEMA_LISTS.includes(key) && Array.isArray(value)) {
            setOwn(out, key, value.map((item, i) => this.node(item, pointerJoin(here, i), depth + 1, false)));
          } else if (ONE_SUBSCHEMA.includes(key) || SUBSCHEMA_LISTS.includes(key)) {
            setOwn(out, key, this.node(value, here, depth + 1, false));
          } else {
            setOwn(out, key, value);
          }
        }
      }
    }
    // The keys patternProperties matched may be anything now, whichever key came first.
    if (Object.hasOwn(schema, 'patternProperties') && !this.keepPatterns && Object.hasOwn(out, 'additionalProperties') && out.additionalProperties !== true) {
      setOwn(out, 'additionalProperties', true);
    }
    // OpenAPI 3.0 `nullable: true` outside an OpenAPI document: express it as a null type.
    if (out.nullable === true && typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      delete out.nullable;
    }
    return this.defsKey === '$defs' ? refWithSiblings(out) : out;
  }
}

function wholeFallback(problem: string): ZodFromJsonSchemaResult {
  const schema = z.unknown();
  jsonSchemaMetadata.add(schema, { [FALLBACK_KEY]: problem });
  return { schema, warnings: [`#: ${problem}; typed as unknown`] };
}

/**
 * Converts a JSON Schema (draft 2020-12, 7 or 4, as MCP servers send) to zod. Never throws:
 * what cannot be expressed becomes `unknown` (any value) with a warning naming its JSON
 * pointer, and generated types show it as `unknown` with a comment. See the file note.
 */
export function zodFromJsonSchema(schema: unknown, options: ZodFromJsonSchemaOptions = {}): ZodFromJsonSchemaResult {
  if (typeof schema === 'boolean') return { schema: schema ? z.unknown() : z.never(), warnings: [] };
  let copy: unknown;
  try {
    const text = JSON.stringify(schema);
    if (text === undefined) return wholeFallback('the schema is not JSON');
    if (text.length > MAX_JSON_SCHEMA_CHARS) return wholeFallback(`the schema is too large (${text.length} characters; the limit is ${MAX_JSON_SCHEMA_CHARS})`);
    copy = JSON.parse(text);
  } catch (err) {
    return wholeFallback(`the schema is not JSON (${errorText(err)})`);
  }
  if (!isObject(copy)) return wholeFallback('the schema is not an object');
  let sanitized: JsonObject;
  const sanitizer = new Sanitizer(copy, definitionsKey(copy), options.patterns === 'keep', Math.max(1, options.maxDescriptionChars ?? MAX_SCHEMA_DESCRIPTION_CHARS));
  try {
    sanitized = sanitizer.run();
  } catch (err) {
    return wholeFallback(`the schema cannot be read (${errorText(err)})`);
  }
  try {
    const converted = z.fromJSONSchema(sanitized as z.core.JSONSchema.JSONSchema, { registry: jsonSchemaMetadata });
    return { schema: guardInheritedKeys(converted), warnings: sanitizer.warnings };
  } catch (err) {
    const result = wholeFallback(`zod cannot convert the schema (${errorText(err)})`);
    return { schema: result.schema, warnings: [...sanitizer.warnings, ...result.warnings] };
  }
}

/**
 * Like {@link zodFromJsonSchema}, for a tool's parameters, which must be a zod object (what
 * `defineTool` accepts). A schema that does not convert to a plain object (an intersection, a
 * guarded object, a non-object root) falls back to a loose object (any arguments; the tool
 * still validates them) with a warning.
 */
export function parametersFromJsonSchema(schema: unknown, options: ZodFromJsonSchemaOptions = {}): { schema: z.ZodObject; warnings: string[] } {
  const result = zodFromJsonSchema(schema, options);
  if (isZodObject(result.schema)) return { schema: result.schema, warnings: result.warnings };
  const loose = z.looseObject({});
  const problem = 'the parameters schema is not a plain object schema; any arguments are accepted here';
  jsonSchemaMetadata.add(loose, { [FALLBACK_KEY]: problem });
  return { schema: loose, warnings: [...result.warnings, `#: ${problem}`] };
}

/** Options of {@link jsonSchemaParameters}. */
export interface JsonSchemaParametersOptions {
  /** `'keep'` (default: the schema is the host's own) validates `pattern`s on the host; `'drop'` leaves them unchecked. */
  readonly patterns?: 'drop' | 'keep';
  /**
   * What the conversion to zod approximates (a keyword zod lacks, checked no longer) throws by
   * default, since the tool would accept more than its schema says; `true` accepts it.
   */
  readonly allowApproximations?: boolean;
}

/**
 * Tool parameters written as JSON Schema, for `defineTool({ parameters })`: the zod object the
 * pipeline validates with (converted as {@link zodFromJsonSchema} converts), carrying the schema
 * itself, which the tool declares verbatim (`parametersJsonSchema`, `ptc mcp serve`'s
 * `inputSchema`: `$schema`, `$defs`, `$ref`, `additionalProperties` as given). The schema must
 * be JSON with `type: "object"` at its root; a problem throws {@link CodegenInputError} naming
 * the JSON pointer.
 */
export function jsonSchemaParameters(schema: Readonly<Record<string, unknown>>, options: JsonSchemaParametersOptions = {}): z.ZodObject {
  const label = 'jsonSchemaParameters(schema)';
  let copy: unknown;
  try {
    const text = JSON.stringify(schema);
    if (text !== undefined && text.length > MAX_JSON_SCHEMA_CHARS) throw new CodegenInputError(label, `is ${text.length} characters of JSON; the most accepted is ${MAX_JSON_SCHEMA_CHARS}`);
    copy = text === undefined ? undefined : JSON.parse(text);
  } catch (err) {
    if (CodegenInputError.isInstance(err)) throw err;
    throw new CodegenInputError(label, `is not JSON (${errorText(err)})`);
  }
  if (!isObject(copy)) throw new CodegenInputError(label, 'must be a JSON Schema object');
  if (copy.type !== 'object') throw new CodegenInputError(label, `must have "type": "object" at its root (tool arguments are an object), got ${JSON.stringify(copy.type ?? null)}`);
  const result = zodFromJsonSchema(copy, { patterns: options.patterns ?? 'keep', maxDescriptionChars: Number.MAX_SAFE_INTEGER });
  if (result.warnings.length > 0 && options.allowApproximations !== true) {
    throw new CodegenInputError(label, `cannot be validated exactly: ${result.warnings.join('; ')} (pass allowApproximations: true to accept)`);
  }
  if (!isZodObject(result.schema)) throw new CodegenInputError(label, 'does not convert to a plain object schema (an allOf or anyOf at the root?); write the root as one object schema');
  return declareJsonSchema(result.schema, copy as ToolJsonObject);
}
