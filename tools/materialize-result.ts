/**
 * Step 7 for a value of any size: {@link materializeValue}'s copy, validation and freeze, done
 * at once for a value of up to `ONE_GO_NODES` values and in slices for a larger one
 * (json-slices.ts), so that a tool returning 100,000 rows does not hold the host's event loop
 * for the 0.2-0.4 s that copying, validating and freezing them takes.
 *
 * Validation of a large value: an output schema that is an array (`z.array(row)`, or the
 * shorthand `{ type: 'array', items }`) is run item by item, in slices, then the array's own
 * checks (length, refinements) on the parsed items; any other schema is one zod run over the
 * whole value (about 30 ms for 10 MB of rows here), in zod's stop-early mode as for any large
 * document. The value is whole, validated and frozen before anything later (post-execute
 * listeners, events, the program) sees it.
 */
import { z } from 'zod';
import { copyJsonInSlices, freezeJsonInSlices, materializeJsonInSlices, type Sliced } from './json-slices.js';
import type { JsonValue } from './json.js';
import { asValidationError, materializeValue, parsedOf, runStoppingEarly, validateCopy, validationFailure, type Parsed } from './materialize.js';
import { TimeSlices } from './time-slices.js';
import type { ResultTextStream } from './result-text-stream.js';

/**
 * Copies, validates and freezes a tool's value like {@link materializeValue} (and throws or
 * rejects with the same errors), in slices when it is large. `withText`: the value's JSON text is
 * needed (a PTC program's, or a model's content: render.ts `withTextFor`), which a large value's
 * walk then makes too (`takeJsonText`); `stream` gets a large array's text as it is made
 * (result-text-stream.ts).
 */
export function materializeResultValue(schema: z.ZodType | undefined, raw: unknown, withText: boolean, stream?: ResultTextStream): Sliced<JsonValue> {
  if (raw === undefined) return materializeValue(schema, raw);
  if (!schema) return settle(() => materializeJsonInSlices(raw, 'value', withText, stream));
  const copied = settle(() => copyJsonInSlices(raw, 'value'));
  if (!(copied instanceof Promise)) return validateCopy(schema, copied, 'value');
  return copied.then(async ({ json }) => {
    const slices = new TimeSlices();
    const parsed = await parseInSlices(schema, json, slices);
    if (!parsed.success) throw validationFailure(parsed.error.issues, 'value', true);
    return freezeJsonInSlices(parsed.data, 'value', withText, slices, stream).catch((err: unknown) => Promise.reject(asValidationError(err)));
  });
}

/** A sliced walk whose NotJsonError (at once or later) becomes the ValidationError the pipeline reports. */
function settle<T>(walk: () => Sliced<T>): Sliced<T> {
  let out: Sliced<T>;
  try {
    out = walk();
  } catch (err) {
    throw asValidationError(err);
  }
  return out instanceof Promise ? out.catch((err: unknown) => Promise.reject(asValidationError(err))) : out;
}

/** The parsed outputs of an array schema's items, kept per schema: the same array check over items already parsed. */
const SHELLS = new WeakMap<z.ZodType, z.ZodType>();

/** Validates a large fresh copy in zod's stop-early mode; an array schema item by item, pausing between slices. */
async function parseInSlices(schema: z.ZodType, value: JsonValue, slices: TimeSlices): Promise<Parsed> {
  const def = schema._zod.def as { type: string; element?: z.ZodType };
  if (def.type !== 'array' || def.element === undefined || !Array.isArray(value)) return parsedOf(runStoppingEarly(schema, value));
  const items: unknown[] = new Array(value.length);
  const issues: z.core.$ZodRawIssue[] = [];
  for (let i = 0; i < value.length; i++) {
    const result = runStoppingEarly(def.element, value[i]);
    if (result.issues.length > 0) {
      issues.push(...z.core.util.prefixIssues(i, result.issues));
      // As zod's own array: the first item with an issue that aborts ends the parse.
      if (z.core.util.aborted(result)) break;
    }
    items[i] = result.value;
    if ((i & 31) === 31 && slices.due()) await slices.pause();
  }
  if (issues.length > 0) return parsedOf({ value: items, issues });
  // The array's own checks (length bounds, refinements) see the parsed items, as zod's would.
  let shell = SHELLS.get(schema);
  if (shell === undefined) {
    shell = z.core.clone(schema, { ...schema._zod.def, element: z.any() } as never) as z.ZodType;
    SHELLS.set(schema, shell);
  }
  return parsedOf(runStoppingEarly(shell, items));
}
