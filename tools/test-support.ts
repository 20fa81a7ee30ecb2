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
