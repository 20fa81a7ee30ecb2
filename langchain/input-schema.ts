/**
 * The `schema` of a LangChain tool built from one of ours: our pipeline must be the one
 * validator, and LangChain must neither validate nor coerce the arguments.
 *
 * Why not our JSON Schema as it is: `StructuredTool.call` (@langchain/core 1.x, read in 1.4.0)
 * validates every non-zod schema itself with `@cfworker/json-schema` and throws a
 * `ToolInputParsingException` ("Received tool input did not match expected schema") before the
 * tool body runs, in spite of its own doc comment saying it does not. The model would read
 * LangChain's words instead of ours, which name the argument path, and the trace would never
 * see the call. There is no option to turn it off.
 *
 * Why not a Standard JSON Schema object (`~standard.jsonSchema`): core's `toJsonSchema` reads
 * one, but `@langchain/anthropic` (1.5) and `@langchain/openai` send any schema that is not zod
 * to the provider unconverted, so the model would get `{ "~standard": ... }`.
 *
 * So it is a zod schema, the kind every LangChain integration converts with `toJsonSchema`:
 * `z.unknown()`, which accepts any input and hands it on unchanged (the same object), carrying
 * our JSON Schema as its JSON Schema metadata (`.meta()`, merged into zod's `toJSONSchema`
 * output). The model gets our schema (plus zod's `$schema` line); LangChain checks nothing.
 *
 * One keyword is moved: zod reads a root `id` in metadata as its own registration tag and would
 * turn the schema into a `$ref` into `$defs`. A root `id` (draft-04's name for the base URI) is
 * given as `$id`, its name since draft-06, unless the schema has a `$id` already (then `id`
 * is left out: it named the same thing).
 */
import { z } from 'zod';
import type { JsonObject } from '../tools/index.js';

/** A schema that lets every input through, whose JSON Schema is `parameters`. */
export type PassThroughSchema = z.ZodUnknown;

/** The LangChain `schema` for a tool whose parameters (JSON Schema) are `parameters`. */
export function passThroughSchema(parameters: JsonObject): PassThroughSchema {
  const { id, ...rest } = parameters;
  const meta = id === undefined || '$id' in rest ? rest : { $id: id, ...rest };
  return z.unknown().meta(meta);
}
