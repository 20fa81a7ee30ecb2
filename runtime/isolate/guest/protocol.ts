/**
 * What the host and the guest (the JavaScript in this folder, run inside each isolate) exchange.
 * Only strings and numbers cross, in flat lists, so isolated-vm copies nothing but primitives.
 * The guest's JSDoc names these types, so `tsc` checks both sides against this one file
 * (guest-lint.test.ts type-checks the guest).
 *
 * Guest -> host: `$0.applySync(undefined, DispatchArgs, options)`, a synchronous call back into
 * the host during the host's own slice; the host only queues the message and returns.
 * Host -> guest: `entry.applySync(undefined, EntryArgs, { timeout })`, a slice: the program
 * resumes in the microtasks V8 runs before the call returns.
 *
 * Everything the guest sends is checked by the host (isolate-run.ts): the guest runs in the same
 * heap as hostile code, so its messages are data to validate, not a trusted channel.
 */

/** A console level: the methods of the guest's `console`. */
export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

/** The console levels, in the order the guest defines its methods. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze(['log', 'info', 'warn', 'error', 'debug']);

/**
 * The calls of one microtask turn, flat: `[id, name, argsJson, ...]`. Ids are positive integers
 * that only grow; names are callable names as the program wrote them; arguments are JSON text.
 */
export type CallItems = (number | string)[];

/** A guest -> host message: its kind and its items. */
export interface GuestMessages {
  /** Calls the program made (at most {@link MAX_CALL_BATCH} calls per message). */
  calls: CallItems;
  /** One console line. */
  log: [level: LogLevel, text: string];
  /** A cap the guest enforces itself was passed: the run ends. */
  limit: [limit: 'maxLogBytes', value: number];
  /** The program ended. */
  end: EndItems;
}

/** How the program ended: its result as JSON text, what it threw (with where), a syntax error, or a cap. */
export type EndItems =
  | [what: 'return', json: string]
  | [what: 'throw', message: string, line: number, column: number]
  | [what: 'syntax', message: string]
  | [what: 'limit', limit: 'maxResultBytes', value: number, message: string];

/** The kinds of {@link GuestMessages}. */
export type GuestMessageKind = keyof GuestMessages;

/**
 * The argument list of one guest -> host call. A single call (every sequential call) crosses
 * as `call1` and three primitives, with no list to copy; `warm` is the warm-up's own message,
 * sent while the isolate is being prepared (the host ignores it).
 */
export type DispatchArgs =
  | { [K in GuestMessageKind]: [kind: K, items: GuestMessages[K]] }[GuestMessageKind]
  | [kind: 'call1', id: number, name: string, argsJson: string]
  | [kind: 'warm'];

/** Calls in one `calls` message at most. */
export const MAX_CALL_BATCH = 1024;

/**
 * Outcomes of calls, flat: `[id, ok, jsonOrToolName, message, ...]`; `ok` 1 with the result's
 * JSON text (and `''`), or 0 with the tool name and the `ToolCallError` message. From a sandbox
 * process's host also {@link OUTCOME_PART} (a part of a large array result: whole items,
 * comma-separated, and `''`) and {@link OUTCOME_PARTS} (the result is the parts sent: `''`, `''`).
 */
export type OutcomeBatch = (string | number)[];

/** `ok` of a part of a large array result, parsed in the isolate as it arrives (tools/result-text-stream.ts). */
export const OUTCOME_PART = 3;
/** `ok` of the outcome whose value is the parts sent before it. */
export const OUTCOME_PARTS = 2;

/**
 * What the program gets for `start`: its source, the callable tool names and the caps, as JSON,
 * and for a durable run its determinism (`{ seed, clockMs }` as JSON; `''` otherwise).
 */
export type StartData = [js: string, toolNamesJson: string, capsJson: string, determinismJson?: string];

/** The caps the guest enforces itself (from the run's limits; `capsJson` of {@link StartData}). */
export interface GuestCaps {
  readonly maxLogBytes: number;
  readonly maxResultBytes: number;
  readonly maxArgBytes: number;
  readonly maxArgDepth: number;
  readonly maxArgNodes: number;
  /** Sleeps that may wait at once (codegen/sleep.ts MAX_SLEEPS_AT_ONCE): one more is refused in the guest. */
  readonly maxSleeps: number;
}

/** The first argument of `entry`. */
export type EntryOp = EntryArgs[0];

/**
 * The argument list of one host -> guest call of `entry`. `deliver1` is a batch of one outcome
 * as four primitives (no list to copy). In a durable run each batch carries the clock the
 * program reads during its slice (`clockMs`).
 */
export type EntryArgs =
  | [op: 'warm']
  | [op: 'start', data: StartData]
  | [op: 'deliver', batch: OutcomeBatch, clockMs?: number]
  | [op: 'deliver1', id: number, ok: 0 | 1 | 2 | 3, jsonOrToolName: string, message: string, clockMs?: number];

/** What `entry` returns: -1 once the program ended, else how many of its calls are pending. */
export type EntryResult = number;

/** Lines the `AsyncFunction` constructor puts before the body (`(async function anonymous(\n) {\n`). */
export const PROGRAM_HEADER_LINES = 2;

/** The `sourceURL` of the program's code, so its stack frames can be told from everything else. */
export const PROGRAM_URL = 'ptc-program.js';

/** The file name the bootstrap is compiled under. */
export const BOOTSTRAP_URL = 'ptc-bootstrap.js';
