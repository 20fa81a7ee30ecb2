/**
 * The limits of a run: host policy, set when the tool is created; nothing a model or its program
 * sends can raise them. Every limit, when hit, ends the run with an error naming the limit and
 * its value (argument caps are the exception: over one, that single call fails with a
 * `ToolCallError` in the program, and the run goes on).
 */
import { InvalidOptionError } from '../../tools/index.js';
import type { RunLimits } from '../program-runner.js';

/**
 * Defaults, chosen for model-written batch scripts on a shared machine:
 * - `memoryMb` 64: isolate heap; a program that needs more is doing the wrong thing.
 * - `cpuMs` 5 000: CPU time inside the isolate (time awaiting tools is not CPU time).
 * - `wallMs` 60 000: wall-clock time of the whole run, approval waits excluded.
 * - `maxCalls` 1 000 child calls per run; `maxInFlight` 8 at once.
 * - `maxOutputBytes` 16 384: logs + result that reach the model; more is spilled, never cut.
 * - `maxLogBytes` 1 MiB of captured console output (over it the run ends).
 * - `maxArgBytes` 1 MiB, `maxArgDepth` 64, `maxArgNodes` 100 000 per call's arguments.
 * - `maxResultBytes` 8 MiB for the value (or error) the program returns.
 * - `rssMb` 256: resident memory of a sandbox process (process isolation).
 * - `hostMs` 2 000: host work the run's calls cost before their tools run (less than the
 *   program's own `cpuMs`: a program must not make the host work harder than itself).
 * - `approvalWaitMs` 300 000: the run's total wait for people's approvals (5 minutes); past it
 *   its asks are denied as `unavailable` and the run goes on, so a run nobody answers does not
 *   keep its sandbox process for ever (`wallMs` pauses during those waits).
 */
export const DEFAULT_RUN_LIMITS: RunLimits = Object.freeze({
  memoryMb: 64,
  cpuMs: 5_000,
  wallMs: 60_000,
  maxCalls: 1_000,
  maxInFlight: 8,
  maxOutputBytes: 16_384,
  maxLogBytes: 1 << 20,
  maxArgBytes: 1 << 20,
  maxArgDepth: 64,
  maxArgNodes: 100_000,
  maxResultBytes: 8 << 20,
  rssMb: 256,
  hostMs: 2_000,
  approvalWaitMs: 300_000,
});

/** The largest value any limit may take (setTimeout's range). */
export const MAX_LIMIT_VALUE = 2_147_483_647;

/** A limit option was unknown or out of range; names the limit and the value given. */
export class RunLimitsError extends InvalidOptionError {
  override readonly name = 'RunLimitsError';
  constructor(
    readonly limit: string,
    readonly given: unknown,
    expected = `a positive integer up to ${MAX_LIMIT_VALUE}`,
  ) {
    super({ where: 'createRunCodeTool', option: limit === '' ? 'limits' : `limits.${limit}`, value: given, expected });
  }
}

/** Fills defaults and checks every limit (positive integers); unknown limit names are refused. */
export function resolveRunLimits(overrides: Partial<RunLimits> = {}): RunLimits {
  if (typeof overrides !== 'object' || overrides === null) throw new RunLimitsError('', overrides, 'an object of limits');
  const out: Record<string, number> = { ...DEFAULT_RUN_LIMITS };
  for (const [key, value] of Object.entries(overrides)) {
    if (!Object.hasOwn(DEFAULT_RUN_LIMITS, key)) throw new RunLimitsError(key, value, `a known limit name (known: ${Object.keys(DEFAULT_RUN_LIMITS).join(', ')})`);
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_LIMIT_VALUE) throw new RunLimitsError(key, value);
    out[key] = value;
  }
  return Object.freeze(out) as unknown as RunLimits;
}
