/**
 * Materialization of large values without holding the host's event loop: a value of more than
 * {@link ONE_GO_NODES} values is copied (or checked) and frozen in slices of a few milliseconds
 * (json-walk.ts, time-slices.ts), and, when its text is needed (a program's call; a model's call,
 * whose content is that text: render.ts `withTextFor`), its JSON text is made in the same walk,
 * from the fresh copy, and kept for the bridge or the content ({@link takeJsonText}), so the
 * value is not walked once more in one go to make it. Smaller values take the one-go walk, as before: the attempt is
 * bounded by the node budget, so finding out that a value is large costs at most that many values.
 *
 * What is accepted, refused, and with which path, is the same either way: both walks read every
 * member through the same checks. The snapshot is complete and frozen before the promise
 * resolves, so every later step (validation, post-execute listeners, events, the program) sees
 * it whole.
 */
import { SpineText, Walk, type WalkBudget } from './json-walk.js';
import type { JsonValue } from './json.js';
import type { ResultTextStream } from './result-text-stream.js';
import { TimeSlices } from './time-slices.js';

/** Values walked in one go at most; a larger value is walked in slices (about 5-10 ms of work here). */
export const ONE_GO_NODES = 65_536;

/** A value now, or, for a large one, once its slices are done. */
export type Sliced<T> = T | Promise<T>;

/** The JSON text made while a large value was materialized, its UTF-8 length, and how long making it took (ms). */
export interface MadeText {
  readonly text: string;
  readonly bytes: number;
  readonly ms: number;
}

/** JSON text of large snapshots, made in their materialization (taken once: by the bridge, or for a model's content). */
const TEXTS = new WeakMap<object, MadeText>();

/**
 * The JSON text (`JSON.stringify(value)`) that the materialization of a large value made, with
 * the time making it took; undefined for any other value. Taken once: the text is
 * dropped here as it is handed out.
 */
export function takeJsonText(value: JsonValue | undefined): MadeText | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const made = TEXTS.get(value);
  if (made !== undefined) TEXTS.delete(value);
  return made;
}

/**
 * `materializeJson` (copy, check, freeze) for a value of any size: at once up to
 * {@link ONE_GO_NODES} values, else in slices. `withText`: keep its JSON text for {@link takeJsonText}
 * (large values only; a small one's text is cheap to make when needed).
 * The text is taken by {@link takeJsonText}. `stream`: also hand a top-level array's text on as it is
 * made (result-text-stream.ts; with `withText` only).
 */
export function materializeJsonInSlices(value: unknown, path: string, withText: boolean, stream?: ResultTextStream): Sliced<JsonValue> {
  const walk = new Walk(path, true, true);
  const inOneGo = walk.withinBudget(() => walk.copy(value), ONE_GO_NODES);
  if (!isOver(inOneGo)) return inOneGo;
  return (async () => {
    const text = withText ? new SpineText(stream) : undefined;
    const json = await walk.copyLarge(value as object, new TimeSlices(), text);
    if (text !== undefined) keepText(json, text);
    return json;
  })();
}

/** `toJsonCounted` (a fresh, unfrozen strict copy, and its number of values) for a value of any size. */
export function copyJsonInSlices(value: unknown, path: string): Sliced<{ readonly json: JsonValue; readonly nodes: number }> {
  const walk = new Walk(path, false, true);
  const inOneGo = walk.withinBudget(() => walk.copy(value), ONE_GO_NODES);
  if (!isOver(inOneGo)) return { json: inOneGo, nodes: walk.nodes };
  return walk.copyLarge(value as object, new TimeSlices(), undefined).then((json) => ({ json, nodes: walk.nodes }));
}

/** `freezeJson` (check in place, freeze) in slices, for a value already known to be large; `withText` as above. */
export async function freezeJsonInSlices(value: unknown, path: string, withText: boolean, slices = new TimeSlices(), stream?: ResultTextStream): Promise<JsonValue> {
  const text = withText ? new SpineText(stream) : undefined;
  await new Walk(path, true, true).checkInSlices(value, slices, text);
  if (text !== undefined) keepText(value as JsonValue, text);
  return value as JsonValue;
}

function keepText(json: JsonValue, text: SpineText): void {
  if (typeof json !== 'object' || json === null) return;
  const joined = text.join();
  TEXTS.set(json, { text: joined, bytes: text.bytes, ms: text.stringifyMs });
}

function isOver<T>(result: T | WalkBudget): result is WalkBudget {
  return Walk.isOverBudget(result);
}
