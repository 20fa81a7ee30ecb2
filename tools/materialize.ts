/**
 * Materialize + freeze, for arguments (step 2) and results (step 7). After this point nothing
 * can rewrite the snapshot: every later step, listener, audit record and the tool body share it.
 *
 * What is refused (with a {@link ValidationError} naming the path): anything that is not plain
 * JSON (a function anywhere, a `toJSON` method too), prototype keys (`__proto__`, an object
 * under `constructor` with a `prototype` key; see json.ts), and whatever the schema refuses.
 *
 * Bounded work: arguments and values are untrusted and can be large (a program's call may carry
 * 100,000 items). Zod reports every problem it finds, and for 100,000 wrong items it built
 * 100,000 issues with their messages (about 0.2 s each time). So a document of more than
 * {@link FULL_REPORT_NODES} values is validated in zod's stop-early mode (a container stops
 * before its next child once one has failed: the first problem, at most a few), and every
 * message is built from bounded parts and cut: an issue names at most a few unknown keys, and
 * the whole message is at most {@link MAX_VALIDATION_MESSAGE_CHARS} characters.
 */
import { z } from 'zod';
import { clipText, PtcError } from './errors.js';
import { freezeJson, materializeJson, NotJsonError, toJsonCounted, type JsonValue } from './json.js';
import { formatIssues, issueMessage } from './zod-util.js';

/** Validation of a value against a schema failed; `message` names the paths. */
export class ValidationError extends PtcError {
  override readonly name = 'ValidationError';
}

/** Up to this many values, validation reports every problem; above it, it stops at the first. */
export const FULL_REPORT_NODES = 1_000;

/** Longest validation message (the model reads it, as it reads a tool's own error). */
export const MAX_VALIDATION_MESSAGE_CHARS = 16 * 1024;

/**
 * Copies model args to plain JSON, validates them (defaults applied), and deep-freezes the
 * output. A missing `args` is treated as `{}`. Throws {@link ValidationError}.
 */
export function materializeArgs(schema: z.ZodType, args: unknown): JsonValue {
  const out = tryMaterializeArgs(schema, args);
  if (!out.ok) throw out.error;
  return out.args;
}

/** What {@link tryMaterializeArgs} gives: the snapshot, or the problem and, when it could be copied, the JSON that was sent. */
export type MaterializedArgs = { readonly ok: true; readonly args: JsonValue } | { readonly ok: false; readonly error: ValidationError; readonly sent?: JsonValue };

/**
 * {@link materializeArgs} without the throw, for step 2: on a validation failure it also hands
 * back the copy it validated, so the pipeline logs what was sent without copying it again.
 * Throws only what is not a validation problem (a schema that throws, say).
 */
export function tryMaterializeArgs(schema: z.ZodType, args: unknown): MaterializedArgs {
  const sent: { json?: JsonValue } = {};
  try {
    return { ok: true, args: materializeAgainst(schema, args === undefined ? {} : args, 'args', sent) };
  } catch (err) {
    if (!ValidationError.isInstance(err)) throw err;
    return sent.json === undefined ? { ok: false, error: err } : { ok: false, error: err, sent: sent.json };
  }
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

function materializeAgainst(schema: z.ZodType, raw: unknown, root: string, sent?: { json?: JsonValue }): JsonValue {
  if (raw === undefined) {
    const parsed = schema.safeParse(undefined);
    if (!parsed.success) throw new ValidationError(`${root}: undefined is not a JSON value (a value is required)`);
    return check(() => materializeJson(parsed.data ?? null, root));
  }
  let copied: { json: JsonValue; nodes: number };
  try {
    copied = toJsonCounted(raw, root);
  } catch (err) {
    throw asValidationError(err);
  }
  if (sent) sent.json = copied.json;
  return validateCopy(schema, copied, root);
}

/**
 * Validates a fresh strict copy (its values counted) and freezes zod's output: the second half
 * of materialization against a schema. Throws {@link ValidationError}.
 */
export function validateCopy(schema: z.ZodType, copied: { readonly json: JsonValue; readonly nodes: number }, root: string): JsonValue {
  const large = copied.nodes > FULL_REPORT_NODES;
  // (No error map on the common path: any parse context turns off zod's compiled fast path, 2.4 µs
  // a call; formatIssues words the issues whose default message grows with the input.)
  const parsed = large ? parseStoppingEarly(schema, copied.json) : schema.safeParse(copied.json);
  if (!parsed.success) throw validationFailure(parsed.error.issues, root, large);
  // Zod's output is built from our fresh copy, so it is ours: check it is still plain JSON
  // (a transform could make it otherwise) and freeze it in place instead of copying again.
  return check(() => freezeJson(parsed.data, root));
}

/** A parse's outcome: zod's output, or the issues found. */
export type Parsed = { success: true; data: unknown } | { success: false; error: { issues: readonly z.core.$ZodIssue[] } };

/** The parse context of zod's stop-early mode (the mode of `z.validate`, which only answers yes or no). */
export const STOP_EARLY = { async: false, abortEarly: true, error: issueMessage } as const;

/**
 * A parse in zod's stop-early mode, keeping the parsed value and the few issues it found. The
 * mode is internal to zod (pinned exactly in package.json; `materialize.test.ts` checks it still
 * stops early).
 */
export function parseStoppingEarly(schema: z.ZodType, value: JsonValue): Parsed {
  return parsedOf(runStoppingEarly(schema, value));
}

/** One zod schema run in stop-early mode (a schema that needs async parsing is refused, as `safeParse` does). */
export function runStoppingEarly(schema: z.ZodType, value: unknown): z.core.ParsePayload {
  const result = schema._zod.run({ value, issues: [] }, STOP_EARLY);
  if (result instanceof Promise) {
    result.catch(() => {});
    throw new z.core.$ZodAsyncError();
  }
  return result;
}

/** The outcome of a stop-early run: its value, or its first issues, finalized as zod words them. */
export function parsedOf(result: z.core.ParsePayload): Parsed {
  if (result.issues.length === 0) return { success: true, data: result.value };
  const config = z.core.config();
  return { success: false, error: { issues: result.issues.slice(0, 8).map((issue) => z.core.util.finalizeIssue(issue, STOP_EARLY, config)) } };
}

/** The message of a failed validation of a document of `nodes` values under `root`. */
export function validationFailure(issues: readonly z.core.$ZodIssue[], root: string, large: boolean): ValidationError {
  return new ValidationError(clipText(formatIssues(issues, root, large), MAX_VALIDATION_MESSAGE_CHARS));
}

function check(build: () => JsonValue): JsonValue {
  try {
    return build();
  } catch (err) {
    throw asValidationError(err);
  }
}

/** A NotJsonError as the ValidationError the pipeline reports; anything else as it is. */
export function asValidationError(err: unknown): unknown {
  return NotJsonError.isInstance(err) ? new ValidationError(clipText(err.message, MAX_VALIDATION_MESSAGE_CHARS)) : err;
}
