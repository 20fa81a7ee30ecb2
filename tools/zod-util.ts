/** Small zod helpers shared by definition, validation and codegen. */
import { z } from 'zod';
import { childPath, type JsonObject } from './json.js';

/** True for any zod 4 schema, even from another copy of zod (checks the `_zod` internals marker). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

/** True for a zod object schema. */
export function isZodObject(value: unknown): value is z.ZodObject {
  return isZodSchema(value) && (value as z.ZodType)._zod.def.type === 'object';
}

/** The model-facing JSON Schema of a schema, as the caller writes input (defaults optional). */
export function toModelJsonSchema(schema: z.ZodType): JsonObject {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json as JsonObject;
}

/**
 * Formats zod issues as one readable line per issue, with a JSON path rooted at `root`
 * (`args.items[2].name: expected string, received number`).
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], root: string): string {
  return issues
    .slice(0, 8)
    .map((issue) => {
      let path = root;
      for (const key of issue.path) path = childPath(path, typeof key === 'number' ? key : String(key));
      return `${path}: ${issue.message.replace(/^Invalid input: /, '')}`;
    })
    .concat(issues.length > 8 ? [`… and ${issues.length - 8} more problems`] : [])
    .join('; ');
}
