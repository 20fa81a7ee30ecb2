/**
 * Every message that says a limit was passed, built from the limit's name and value: the model
 * and a reviewer read these, so each names `limit=value` the same way wherever the limit was
 * enforced (the bridge, an isolate runner, the sandbox process supervisor). A situation
 * ({@link LimitEvent}) says what happened next; the phrase says what passing the limit means.
 * No imports: the sandbox worker loads this module too.
 */

/** The limits of a run, by name: the fields of the runtime's `RunLimits`. */
export type LimitName =
  | 'memoryMb'
  | 'cpuMs'
  | 'wallMs'
  | 'maxCalls'
  | 'maxInFlight'
  | 'maxOutputBytes'
  | 'maxLogBytes'
  | 'maxArgBytes'
  | 'maxArgDepth'
  | 'maxArgNodes'
  | 'maxResultBytes'
  | 'rssMb'
  | 'hostMs'
  | 'approvalWaitMs';

/** Every {@link LimitName}, in the order `RunLimits` declares them. */
export const LIMIT_NAMES: readonly LimitName[] = Object.freeze([
  'memoryMb',
  'cpuMs',
  'wallMs',
  'maxCalls',
  'maxInFlight',
  'maxOutputBytes',
  'maxLogBytes',
  'maxArgBytes',
  'maxArgDepth',
  'maxArgNodes',
  'maxResultBytes',
  'rssMb',
  'hostMs',
  'approvalWaitMs',
]);

/** Whether `name` is a limit's name. */
export function isLimitName(name: unknown): name is LimitName {
  return typeof name === 'string' && (LIMIT_NAMES as readonly string[]).includes(name);
}

/** What happened when a limit was passed. */
export type LimitEvent =
  /** The program passed it and the run was stopped (the default). `measured`: what was seen. */
  | { readonly by: 'program'; readonly measured?: string }
  /** The host killed the program's sandbox process at it. */
  | { readonly by: 'process-killed'; readonly measured?: string }
  /** The sandbox process died of it (V8 aborted it); `exit` says how. */
  | { readonly by: 'process-died'; readonly exit: string }
  /** The run waited this long for a sandbox process and never started (`wallMs`). */
  | { readonly by: 'queue'; readonly processes: number }
  /** One call was refused at the limit; the run goes on (argument caps) or ends (`maxCalls`). */
  | { readonly by: 'call'; readonly toolName: string; readonly measured?: string };

/** A run that ended at a limit: the shape of the runtime's `RunFailure` of kind `limit`. */
export interface LimitFailure {
  readonly kind: 'limit';
  readonly limit: LimitName;
  readonly value: number;
  readonly message: string;
}

/** `limit=value`, as every limit message names it. */
export function limitText(limit: LimitName | string, value: number): string {
  return `${limit}=${value}`;
}

/** What passing each limit means, said of the program (`lv` is `limit=value`). */
const PASSED: { readonly [L in LimitName]: (lv: string) => string } = {
  memoryMb: (lv) => `ran out of memory (${lv} MB)`,
  cpuMs: (lv) => `used more than ${lv} ms of CPU time`,
  wallMs: (lv) => `took longer than ${lv} ms of wall-clock time (approval waits excluded)`,
  maxCalls: (lv) => `made more than ${lv} tool calls`,
  maxInFlight: (lv) => `had more than ${lv} tool calls in flight`,
  maxOutputBytes: (lv) => `produced more than ${lv} bytes of output`,
  maxLogBytes: (lv) => `wrote more than ${lv} bytes of console output`,
  maxArgBytes: (lv) => `sent arguments larger than ${lv} bytes of JSON`,
  maxArgDepth: (lv) => `sent arguments nested deeper than ${lv} levels`,
  maxArgNodes: (lv) => `sent arguments with more than ${lv} values`,
  maxResultBytes: (lv) => `returned a value larger than ${lv} bytes as JSON`,
  rssMb: (lv) => `used more than ${lv} MB of resident memory in its sandbox process`,
  hostMs: (lv) => `made the host work more than ${lv} ms for its tool calls before they ran (reading and validating arguments, recording events)`,
  approvalWaitMs: (lv) => `waited more than ${lv} ms in all for people to approve its calls`,
};

/** Why one call was refused at a limit. */
const REFUSED: { readonly [L in LimitName]?: (lv: string) => string } = {
  maxCalls: (lv) => `the run made more than ${lv} tool calls`,
  maxArgBytes: (lv) => `its arguments are larger than ${lv} bytes of JSON`,
  maxArgDepth: (lv) => `its arguments are nested deeper than ${lv} levels`,
  maxArgNodes: (lv) => `its arguments have more than ${lv} values`,
};

const seen = (measured: string | undefined) => (measured ? ` (${measured})` : '');

/** The sentence for a limit passed, naming `limit=value`. */
export function limitMessage(limit: LimitName, value: number, event: LimitEvent = { by: 'program' }): string {
  const lv = limitText(limit, value);
  switch (event.by) {
    case 'program':
      return `The program ${PASSED[limit](lv)}${seen(event.measured)} and was stopped.`;
    case 'process-killed':
      return `The program ${PASSED[limit](lv)}${seen(event.measured)}; its sandbox process was killed and replaced.`;
    case 'process-died':
      return `The program ${PASSED[limit](lv)}; its sandbox process aborted (${event.exit}) and was replaced.`;
    case 'queue':
      return `No sandbox process became free within ${lv} ms (all ${event.processes} were running other programs); this program did not run.`;
    case 'call':
      return `The call to "${event.toolName}" was refused: ${(REFUSED[limit] ?? PASSED[limit])(lv)}${seen(event.measured)}.`;
  }
}

/** A run's failure at a limit, with its message. */
export function limitFailure(limit: LimitName, value: number, event?: LimitEvent): LimitFailure {
  return { kind: 'limit', limit, value, message: limitMessage(limit, value, event) };
}
