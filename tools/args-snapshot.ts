/**
 * One materialization of a program call's arguments, shared by the call's execution mode
 * (`host.executionMode`, which must validate them: args that do not validate are exclusive) and
 * its pipeline (step 2), instead of two.
 *
 * Only for documents {@link parseArgsJson} parsed: `parseFrozenJson` output, plain JSON built by
 * `JSON.parse` and deep-frozen before anyone else holds it, so nothing can change it between
 * the two steps, and materializing it again against the same schema could only repeat the
 * work. Any other value (a caller's own object, which it may still mutate) is materialized at
 * each step as before. The snapshot is keyed by the document and checked against the tool's
 * schema (a tool registered again under the name in between gets its own), and the pipeline
 * takes it once. The mode's function and the body thus see the very same frozen snapshot.
 */
import { parseFrozenJson, type JsonValue } from './json.js';
import { tryMaterializeArgs, type MaterializedArgs } from './materialize.js';
import type { Tool } from './tool-types.js';

type Schema = Tool['parameters'];

/** What the document is known as: parsed here and not yet materialized, or its outcome against `schema`. */
type Entry = typeof PARSED | { readonly schema: Schema; readonly outcome: MaterializedArgs };

const PARSED = 0;

/** Documents parseArgsJson made (object roots only), and their first materialization. */
const documents = new WeakMap<object, Entry>();

/**
 * Parses a program's call arguments (`parseFrozenJson`: a deep-frozen plain document) and
 * remembers the document, so its materialization is done once per call. Throws as
 * `parseFrozenJson` does.
 */
export function parseArgsJson(text: string): JsonValue {
  const value = parseFrozenJson(text);
  if (typeof value === 'object' && value !== null) documents.set(value, PARSED);
  return value;
}

/**
 * Step 2's materialization for the execution mode: for a parsed document, done once and kept
 * for the pipeline. Throws what `tryMaterializeArgs` throws (a schema that throws).
 */
export function materializeArgsForMode(schema: Schema, args: unknown): MaterializedArgs {
  const entry = typeof args === 'object' && args !== null ? documents.get(args) : undefined;
  if (entry !== undefined && entry !== PARSED && entry.schema === schema) return entry.outcome;
  const outcome = tryMaterializeArgs(schema, args);
  if (entry !== undefined) documents.set(args as object, { schema, outcome });
  return outcome;
}

/**
 * Step 2's materialization for the pipeline: the mode's, when it was made for this document
 * and schema (taken: a later call with the document materializes it again), else a fresh one.
 */
export function materializeArgsForCall(schema: Schema, args: unknown): MaterializedArgs {
  if (typeof args === 'object' && args !== null) {
    const entry = documents.get(args);
    if (entry !== undefined && entry !== PARSED && entry.schema === schema) {
      documents.set(args, PARSED);
      return entry.outcome;
    }
  }
  return tryMaterializeArgs(schema, args);
}
