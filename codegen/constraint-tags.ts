/**
 * The checks a zod schema enforces beyond its type, as JSDoc tags for the declarations: a model
 * reads `limit?: number` and passes 50; it reads `@maximum 10` and does not. The convention (see
 * codegen/README.md): one tag per constraint, named after its JSON Schema keyword, its value
 * as JSON would write it:
 * `@minimum`, `@maximum`, `@exclusiveMinimum`, `@exclusiveMaximum`, `@multipleOf`, `@integer`,
 * `@minLength`, `@maxLength` (strings), `@minItems`, `@maxItems` (arrays), `@format`,
 * `@pattern` (a regular expression's source), `@startsWith`, `@endsWith`, `@includes`,
 * `@default`. Enums and literals are types already.
 *
 * Values come from tool authors or remote servers: every one is made visible and one line
 * (visibleText), and cut at {@link MAX_CONSTRAINT_VALUE_CHARS}; jsdoc.ts then keeps a `*\/` from
 * closing the comment. Reading never throws: a value that cannot be shown is left out.
 */
import type { z } from 'zod';
import { visibleText } from '../tools/index.js';
import { jsonSchemaMetadata, UNCHECKED_PATTERN_KEY } from './schema-metadata.js';

/** Longest constraint value shown (a pattern, a default); longer ones are cut with `…`. */
export const MAX_CONSTRAINT_VALUE_CHARS = 200;

type Def = Record<string, unknown> & { type?: string; check?: string; checks?: readonly unknown[] };

function defOf(schema: unknown): Def | undefined {
  const def = (schema as { _zod?: { def?: unknown } } | undefined)?._zod?.def;
  return typeof def === 'object' && def !== null ? (def as Def) : undefined;
}

/** zod's string format names where JSON Schema's differ. */
const FORMAT_NAMES: Record<string, string> = { datetime: 'date-time', url: 'uri' };
/** String formats whose check is a substring or a case, shown as their own tag. */
const AFFIX_TAGS: Record<string, [tag: string, key: string]> = {
  starts_with: ['@startsWith', 'prefix'],
  ends_with: ['@endsWith', 'suffix'],
  includes: ['@includes', 'includes'],
};
/** Number formats that are whole numbers, and the format to name besides `@integer`. */
const INTEGER_FORMATS: Record<string, string | undefined> = { safeint: undefined, int32: 'int32', uint32: 'uint32' };

function cut(text: string): string {
  const visible = visibleText(text);
  return visible.length > MAX_CONSTRAINT_VALUE_CHARS ? `${visible.slice(0, MAX_CONSTRAINT_VALUE_CHARS - 1)}…` : visible;
}

function jsonValue(value: unknown): string | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : cut(text);
  } catch {
    return undefined; // a BigInt, a cycle, a throwing toJSON
  }
}

function numberText(value: unknown): string | undefined {
  return typeof value === 'number' && !Number.isNaN(value) ? String(value) : undefined;
}

function patternText(pattern: unknown): string | undefined {
  if (pattern instanceof RegExp) {
    // `u`/`v` only set how the source is parsed, `g`/`y` where a search starts: not what matches.
    const flags = pattern.flags.replace(/[uvgyd]/g, '');
    return cut(flags ? `${pattern.source} (flags ${flags})` : pattern.source);
  }
  return typeof pattern === 'string' ? cut(pattern) : undefined;
}

/** The tags of one check (`def` of a check, or of a schema that is its own check, like `z.email()`). */
function checkTags(check: Def, kind: string | undefined): string[] {
  const isArray = kind === 'array';
  switch (check.check) {
    case 'greater_than':
    case 'less_than': {
      const value = numberText(check.value);
      if (value === undefined) return [];
      const bound = check.check === 'greater_than' ? 'Minimum' : 'Maximum';
      return [check.inclusive === false ? `@exclusive${bound} ${value}` : `@${bound.toLowerCase()} ${value}`];
    }
    case 'multiple_of': {
      const value = numberText(check.value);
      return value === undefined ? [] : [`@multipleOf ${value}`];
    }
    case 'number_format': {
      const format = String(check.format);
      if (format in INTEGER_FORMATS) {
        const named = INTEGER_FORMATS[format];
        return named === undefined ? ['@integer'] : ['@integer', `@format ${named}`];
      }
      return format === 'float32' ? ['@format float32'] : [];
    }
    case 'min_length':
    case 'max_length':
    case 'length_equals': {
      const unit = isArray ? 'Items' : 'Length';
      if (check.check === 'length_equals') {
        const value = numberText(check.length);
        return value === undefined ? [] : [`@min${unit} ${value}`, `@max${unit} ${value}`];
      }
      const value = numberText(check.check === 'min_length' ? check.minimum : check.maximum);
      return value === undefined ? [] : [`@${check.check === 'min_length' ? 'min' : 'max'}${unit} ${value}`];
    }
    case 'string_format': {
      const format = String(check.format);
      if (format === 'regex') {
        const pattern = patternText(check.pattern);
        return pattern === undefined ? [] : [`@pattern ${pattern}`];
      }
      const affix = AFFIX_TAGS[format];
      if (affix) {
        const value = jsonValue(check[affix[1]]);
        return value === undefined ? [] : [`${affix[0]} ${value}`];
      }
      return [`@format ${cut(FORMAT_NAMES[format] ?? format)}`];
    }
    default:
      return []; // overwrite (trim, case mapping), custom refinements: nothing a model can read
  }
}

/** Wrappers whose inner schema carries the checks. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

/** Tags of the checks a schema itself carries (no wrapper followed). */
function ownCheckTags(schema: unknown): string[] {
  const def = defOf(schema);
  if (!def) return [];
  const tags = typeof def.check === 'string' ? checkTags(def, def.type) : [];
  for (const check of def.checks ?? []) {
    const checkDef = defOf(check);
    if (checkDef) tags.push(...checkTags(checkDef, def.type));
  }
  const pattern = patternText(jsonSchemaMetadata.get(schema as z.core.$ZodType)?.[UNCHECKED_PATTERN_KEY]);
  if (pattern !== undefined) tags.push(`@pattern ${pattern}`);
  return tags;
}

function defaultTagOf(def: Def): string | undefined {
  let value: unknown;
  try {
    value = def.defaultValue; // a getter; a function default is called
  } catch {
    return undefined;
  }
  return value === undefined ? undefined : jsonValue(value);
}

/** The one member of `T | null` (how JSON Schema's `type: [T, 'null']` converts), else undefined. */
function nonNullMember(options: unknown): unknown {
  if (!Array.isArray(options)) return undefined;
  const rest = options.filter((option) => defOf(option)?.type !== 'null');
  return options.length === 2 && rest.length === 1 ? rest[0] : undefined;
}

/**
 * The schema under a property's wrappers (optional, nullable, default, ...; `T | null`; a pipe's
 * input side, a preprocess's target) that carries its checks, and the default met on the way.
 */
export function checkedSchema(schema: z.core.$ZodType): { readonly core: z.core.$ZodType; readonly defaultText?: string } {
  let current = schema;
  let defaultText: string | undefined;
  for (let depth = 0; depth < 16; depth++) {
    const def = defOf(current);
    if (!def) break;
    if ((def.type === 'default' || def.type === 'prefault') && defaultText === undefined) defaultText = defaultTagOf(def);
    let next: unknown;
    if (def.type !== undefined && WRAPPERS.has(def.type)) next = def.innerType;
    else if (def.type === 'union') next = nonNullMember(def.options);
    else if (def.type === 'pipe') next = defOf(def.in)?.type === 'transform' ? def.out : def.in;
    if (defOf(next) === undefined) break;
    current = next as z.core.$ZodType;
  }
  return defaultText === undefined ? { core: current } : { core: current, defaultText };
}

/**
 * The JSDoc tag lines for a property's schema on the caller's side: the checks of the schema
 * under its wrappers ({@link checkedSchema}), a dropped JSON Schema pattern, and its default.
 * Empty when there is nothing to say.
 */
export function constraintTags(schema: z.core.$ZodType): string[] {
  const { core, defaultText } = checkedSchema(schema);
  const tags = ownCheckTags(core);
  if (defaultText !== undefined) tags.push(`@default ${defaultText}`);
  return [...new Set(tags)];
}

/**
 * The tags of a schema that is not a property (an array element, a union member, a record
 * value), for an inline comment: its own checks only (a default means nothing there).
 */
export function inlineConstraintTags(schema: z.core.$ZodType): string[] {
  return [...new Set(ownCheckTags(schema))];
}
