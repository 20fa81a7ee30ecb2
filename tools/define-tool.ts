/**
 * `defineTool`: checks a definition once, at definition time, and returns a frozen tool whose
 * parameters and output schema are zod (the one source of truth for validation, the model's
 * JSON Schema and codegen). Every problem is reported naming the tool and the field.
 */
import type { z } from 'zod';
import { errorText, ToolDefinitionError } from './errors.js';
import type { JsonObject, JsonValue } from './json.js';
import {
  outputSpecToZod,
  parametersToZod,
  ShorthandError,
  type InferShorthand,
  type InferShorthandInput,
  type InferSpec,
  type ParamSpec,
  type ParamsShorthand,
} from './shorthand-schema.js';
import { isZodObject, isZodSchema, toModelJsonSchema } from './zod-util.js';
import type { PendingCard, ResultCard } from './cards/card-schema.js';
import { wrapPresentCall, wrapPresentResult } from './cards/present.js';
import type { RenderOutput, Tool, ToolExecContext } from './tool-types.js';

/** Parameters: the shorthand record or a zod object. */
export type ParametersInput = ParamsShorthand | z.ZodObject;
/** Output schema: one shorthand spec (any root, even a scalar) or any zod schema. */
export type OutputSchemaInput = ParamSpec | z.ZodType;

/** The args type `execute` receives (defaults applied). */
export type ArgsOf<P> = P extends z.ZodType ? z.output<P> : InferShorthand<P>;
/** The args type a caller writes (defaulted fields optional). */
export type ArgsInputOf<P> = P extends z.ZodType ? z.input<P> : InferShorthandInput<P>;
/** The canonical value type; `unknown` (any JSON) without an output schema. */
export type ValueOf<O> = [O] extends [undefined] ? unknown : O extends z.ZodType ? z.output<O> : InferSpec<O>;

/** What a tool author writes. */
export interface ToolDefinition<P extends ParametersInput, O extends OutputSchemaInput | undefined> {
  /** Unique. `^[A-Za-z_][A-Za-z0-9_]*$` is callable as `tools.name` in programs; other names are mapped. */
  readonly name: string;
  /** The only explanation the model gets. */
  readonly description: string;
  /** Shorthand record or zod object; omitted means no parameters. */
  readonly parameters?: P;
  readonly output?: {
    /** The canonical value's shape; programs see it as TypeScript types. */
    readonly schema?: O;
    /** Turns the final value into content for the model (default: the string, or JSON). */
    render?(args: ArgsOf<P>, value: ValueOf<O>): RenderOutput;
  };
  /** Does the work and returns the canonical value. Throw only for infrastructure failures. */
  execute(args: ArgsOf<P>, exec: ToolExecContext): ValueOf<O> | Promise<ValueOf<O>>;
  /** Parallel only when exactly `true`, or a function returning exactly `true` for these args. */
  readonly isConcurrencySafe?: boolean | ((args: ArgsOf<P>) => boolean);
  /**
   * After the caller aborts, how long (ms) the pipeline waits for `execute` to settle before it
   * reports the call aborted. Default 0: at once. For a tool that records its own wind-down
   * (run_code ends its run, and the run's events), so those events come before the result.
   */
  readonly abortGraceMs?: number;
  /**
   * Running this call twice with the same `exec.idempotencyKey` has the effect of running it
   * once (the tool passes the key to its API, or does nothing but read). In a durable run, a call
   * whose body had started when its host died runs again on resume only when this is `true`;
   * otherwise the program gets a ToolCallError saying it may have completed. Default false.
   */
  readonly idempotent?: boolean;
  /** UI card while the call runs. Pure (no I/O, clock, randomness, session state); see tools/cards. */
  presentCall?(args: ArgsOf<P>): PendingCard | undefined;
  /** UI card once the call succeeded. Pure, like `presentCall`; it also runs on session replay. */
  presentResult?(args: ArgsOf<P>, value: ValueOf<O>): ResultCard | undefined;
}

const CALLABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ALLOWED_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.\-/:]{0,127}$/;
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
/** Longest `abortGraceMs` accepted: an abort must still end the call soon. */
const MAX_ABORT_GRACE_MS = 60_000;

/** True when `name` can be used as `tools.name` in a program without mapping. */
export function isCallableName(name: string): boolean {
  return CALLABLE.test(name);
}

/**
 * Checks and freezes a tool definition. Throws {@link ToolDefinitionError} naming the tool and
 * the field (bad name, unknown shorthand type, misplaced `required`, missing `execute`, …).
 * Unknown extra fields are kept off the tool entirely, so they can never reach the model.
 */
export function defineTool<const P extends ParametersInput = {}, const O extends OutputSchemaInput | undefined = undefined>(
  def: ToolDefinition<P, O>,
): Tool<ArgsOf<P>, ValueOf<O>, ArgsInputOf<P>> {
  if (typeof def !== 'object' || def === null) throw new ToolDefinitionError('?', 'definition', 'must be an object');
  const rawName: unknown = def.name;
  const label = typeof rawName === 'string' && rawName ? rawName : '?';
  const fail = (field: string, problem: string): never => {
    throw new ToolDefinitionError(label, field, problem);
  };

  if (typeof rawName !== 'string') fail('name', 'must be a string');
  const name = rawName as string;
  if (!ALLOWED_NAME.test(name)) {
    fail('name', `"${name}" is not allowed (1-128 characters of letters, digits, _ . - / :, not starting with a punctuation mark)`);
  }
  if (RESERVED.has(name)) fail('name', `"${name}" is reserved`);
  if (typeof def.description !== 'string' || def.description.trim() === '') fail('description', 'must be a non-empty string');
  if (typeof def.execute !== 'function') fail('execute', 'is missing or not a function');

  let parameters: z.ZodObject;
  const rawParams: unknown = def.parameters ?? {};
  if (isZodSchema(rawParams)) {
    if (!isZodObject(rawParams)) fail('parameters', 'must be a zod object (z.object({...})) or a shorthand record');
    parameters = rawParams as z.ZodObject;
  } else {
    parameters = fromShorthand(() => parametersToZod(rawParams), fail);
  }

  const rawOutput: unknown = def.output;
  let outputSchema: z.ZodType | undefined;
  let render: Tool['output']['render'];
  if (rawOutput !== undefined) {
    if (typeof rawOutput !== 'object' || rawOutput === null) fail('output', 'must be an object with schema and/or render');
    const out = rawOutput as Record<string, unknown>;
    for (const key of Object.keys(out)) if (key !== 'schema' && key !== 'render') fail(`output.${key}`, 'is not a known field');
    if (out.schema !== undefined) {
      outputSchema = isZodSchema(out.schema) ? out.schema : fromShorthand(() => outputSpecToZod(out.schema), fail);
    }
    if (out.render !== undefined) {
      if (typeof out.render !== 'function') fail('output.render', 'must be a function (args, value) => content');
      render = out.render as Tool['output']['render'];
    }
  }

  const grace: unknown = def.abortGraceMs;
  if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0 || grace > MAX_ABORT_GRACE_MS)) {
    fail('abortGraceMs', `must be an integer from 0 to ${MAX_ABORT_GRACE_MS} (ms)`);
  }

  if (def.idempotent !== undefined && typeof def.idempotent !== 'boolean') fail('idempotent', 'must be true or false');

  for (const field of ['presentCall', 'presentResult'] as const) {
    if (def[field] !== undefined && typeof def[field] !== 'function') fail(field, 'must be a function returning a card or undefined');
  }

  let parametersJsonSchema: JsonObject;
  try {
    parametersJsonSchema = toModelJsonSchema(parameters);
  } catch (err) {
    return fail('parameters', `cannot be expressed as JSON Schema (${errorText(err)})`);
  }

  const tool: Tool = {
    name,
    description: def.description,
    parameters,
    parametersJsonSchema: Object.freeze(parametersJsonSchema),
    output: Object.freeze({ ...(outputSchema ? { schema: outputSchema } : {}), ...(render ? { render } : {}) }),
    execute: def.execute as Tool['execute'],
    ...(def.isConcurrencySafe !== undefined ? { isConcurrencySafe: def.isConcurrencySafe } : {}),
    ...(grace !== undefined && grace !== 0 ? { abortGraceMs: grace as number } : {}),
    ...(def.idempotent === true ? { idempotent: true } : {}),
    ...(def.presentCall ? { presentCall: wrapPresentCall(parameters, def.presentCall.bind(def) as (args: never) => unknown) } : {}),
    ...(def.presentResult
      ? { presentResult: wrapPresentResult(parameters, outputSchema, def.presentResult.bind(def) as (args: never, value: never) => unknown) }
      : {}),
  };
  return Object.freeze(tool) as Tool<ArgsOf<P>, ValueOf<O>, ArgsInputOf<P>>;
}

function fromShorthand<T>(build: () => T, fail: (field: string, problem: string) => never): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof ShorthandError) return fail(err.field, err.problem);
    throw err;
  }
}
