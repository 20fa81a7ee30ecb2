/** Small factories shared by the tools/ tests (not part of the build). */
import { createToolHost, type ToolHostOptions } from './host.js';
import { defineTool } from './define-tool.js';
import type { ToolEvent } from './events.js';

/** A host that records every event. */
export function recordingHost(options: ToolHostOptions = {}) {
  const events: ToolEvent[] = [];
  const host = createToolHost({ ...options, onEvent: (e) => events.push(e) });
  return { host, events };
}

/** The DESIGN.md example tool: `{ path: string; limit?: number }` -> string. */
export function readFileTool(execute: (args: { path: string; limit?: number }) => unknown = (a) => `contents of ${a.path}`) {
  return defineTool({
    name: 'read_file',
    description: 'Read a file from disk.',
    parameters: {
      path: { type: 'string', required: true, description: 'Absolute path' },
      limit: { type: 'number' },
    },
    output: { schema: { type: 'string' } },
    execute: (args) => execute(args) as string,
  });
}

/** Resolves after `ms` real milliseconds. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A promise with its resolver exposed. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** `Object.prototype`'s own names before any test ran. */
export const PROTO_NAMES: readonly string[] = Object.getOwnPropertyNames(Object.prototype).sort();
// A deep merge that follows inherited names also writes onto built-in functions
// (`{"valueOf":{"constructor":{"x":1}}}` sets Function.x): plain data by the rule (only `__proto__`
// and `constructor.prototype` reach a prototype), but undone between runs.
const STATICS: [object, string[]][] = [Object, Function, Object.prototype.valueOf, Object.prototype.toString].map((o) => [o, Object.getOwnPropertyNames(o)]);

/** Removes what a test added to `Object.prototype` and the built-ins a deep merge reaches. */
export function restorePrototypes(): void {
  for (const name of Object.getOwnPropertyNames(Object.prototype)) if (!PROTO_NAMES.includes(name)) delete (Object.prototype as Record<string, unknown>)[name];
  for (const [o, names] of STATICS) for (const name of Object.getOwnPropertyNames(o)) if (!names.includes(name)) delete (o as Record<string, unknown>)[name];
}

/** The naive deep merge of a careless tool: follows inherited names, so `__proto__` pollutes. */
export function deepMerge(target: Record<string, unknown>, source: unknown): void {
  if (typeof source !== 'object' || source === null) return;
  for (const key of Object.keys(source)) {
    const value = (source as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      if ((typeof target[key] !== 'object' && typeof target[key] !== 'function') || target[key] === null) target[key] = {};
      deepMerge(target[key] as Record<string, unknown>, value);
    } else target[key] = value;
  }
}
