/**
 * Materialize + freeze, for arguments (step 2) and results (step 7). After this point nothing
 * can rewrite the snapshot: every later step, listener, audit record and the tool body share it.
 */
import type { z } from 'zod';
import { freezeJson, materializeJson, NotJsonError, toJson, type JsonValue } from './json.js';
import { formatIssues } from './zod-util.js';

/** Validation of a value against a schema failed; `message` names every path. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
}

/**
 * Copies model args to plain JSON, validates them (defaults applied), and deep-freezes the
 * output. A missing `args` is treated as `{}`. Throws {@link ValidationError}.
 */
export function materializeArgs(schema: z.ZodType, args: unknown): JsonValue {
  return materializeAgainst(schema, args === undefined ? {} : args, 'args');
}

/**
 * Copies a tool's value to plain JSON, validates it against the output schema if any, and
 * deep-freezes it. Without a schema `undefined` becomes `null` (a tool with nothing to say);
 * with one, `undefined` must be allowed by the schema. Throws {@link ValidationError}.
 */
export function materializeValue(schema: z.ZodType | undefined, value: unknown): JsonValue {
  if (!schema) return check(() => materializeJson(value === undefined ? null : value, 'value'));
  return materializeAgainst(schema, value, 'value');
}

function materializeAgainst(schema: z.ZodType, raw: unknown, root: string): JsonValue {
  if (raw === undefined) {
    const parsed = schema.safeParse(undefined);
    if (!parsed.success) throw new ValidationError(`${root}: undefined is not a JSON value (a value is required)`);
    return check(() => materializeJson(parsed.data ?? null, root));
  }
  const json = copy(raw, root);
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ValidationError(formatIssues(parsed.error.issues, root));
  // Zod's output is built from our fresh copy, so it is ours: check it is still plain JSON
  // (a transform could make it otherwise) and freeze it in place instead of copying again.
  return check(() => freezeJson(parsed.data, root));
}

function copy(value: unknown, root: string): JsonValue {
  return check(() => toJson(value, root));
}

function check(build: () => JsonValue): JsonValue {
  try {
    return build();
  } catch (err) {
    if (err instanceof NotJsonError) throw new ValidationError(err.message);
    throw err;
  }
}
