/** Small zod helpers shared by definition, validation and codegen. */
import { z } from 'zod';
import { clipText } from './errors.js';
import { childPath, type JsonObject } from './json.js';

/** True for any zod 4 schema, even from another copy of zod (checks the `_zod` internals marker). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

/** True for a zod object schema. */
export function isZodObject(value: unknown): value is z.ZodObject {
  return isZodSchema(value) && (value as z.ZodType)._zod.def.type === 'object';
}

/** JSON Schemas a zod schema was made from, declared verbatim (see {@link declareJsonSchema}). */
const declared = new WeakMap<z.ZodType, JsonObject>();

/**
 * Records that `schema` was made from the JSON Schema `json` (a host's own, trusted), so
 * {@link toModelJsonSchema} gives `json` as written (`$schema`, `$defs`, `$ref` kept) instead of
 * zod's rendering of the conversion. `json` is copied and frozen; returns `schema`.
 */
export function declareJsonSchema<T extends z.ZodType>(schema: T, json: JsonObject): T {
  declared.set(schema, deepFreeze(structuredClone(json)));
  return schema;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * The model-facing JSON Schema of a schema, as the caller writes input (defaults optional); for
 * a schema made from a declared JSON Schema ({@link declareJsonSchema}), a copy of that.
 */
export function toModelJsonSchema(schema: z.ZodType): JsonObject {
  const own = declared.get(schema);
  if (own) return structuredClone(own) as JsonObject;
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json as JsonObject;
}

/** Issues listed in one message at most; the rest are counted. */
const MAX_LISTED_ISSUES = 8;
/** Longest line for one issue (a path of long keys, a long custom message). */
const MAX_ISSUE_CHARS = 1_000;
/** Unknown keys named in one issue at most. */
const MAX_LISTED_KEYS = 5;

/**
 * Formats zod issues as one readable line per issue, with a JSON path rooted at `root`
 * (`args.items[2].name: expected string, received number`): at most 8 issues, each cut at
 * 1,000 characters. `stoppedEarly`: validation stopped at the first problems (says so).
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], root: string, stoppedEarly = false): string {
  const lines = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => {
    let path = root;
    for (const key of issue.path) path = childPath(path, typeof key === 'number' ? key : String(key));
    const message = issueMessage(issue as z.core.$ZodRawIssue) ?? issue.message;
    return clipText(`${path}: ${message.replace(/^Invalid input: /, '')}`, MAX_ISSUE_CHARS);
  });
  if (issues.length > MAX_LISTED_ISSUES) lines.push(`… and ${issues.length - MAX_LISTED_ISSUES} more problems`);
  if (stoppedEarly) lines.push('validation stopped at the first problem (the document is large; fix it and call again)');
  return lines.join('; ');
}

/**
 * The package's messages for zod issues whose default message grows with the input (a zod
 * `error` map: `undefined` keeps zod's own). Unknown keys: the first few, then a count, instead
 * of every key (100,000 unknown keys made a 988,843-character message).
 */
export function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const keys = (issue as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) return undefined;
  const named = keys.slice(0, MAX_LISTED_KEYS).map((k) => JSON.stringify(clipText(String(k), 60)));
  const more = keys.length > MAX_LISTED_KEYS ? ` and ${keys.length - MAX_LISTED_KEYS} more` : '';
  return `Unrecognized key${keys.length === 1 ? '' : 's'}: ${named.join(', ')}${more}`;
}
