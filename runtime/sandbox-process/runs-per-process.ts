/** `runsPerProcess`: runs of one group a sandbox process holds at once (docs/run-life.md). */
import { InvalidOptionError } from '../../tools/index.js';

/** Default of `ProcessRunnerOptions.runsPerProcess`. */
export const DEFAULT_RUNS_PER_PROCESS = 4;
/** Most runs one sandbox process may hold at once. */
export const MAX_RUNS_PER_PROCESS = 8;

/** Checks `runsPerProcess` (a whole number 1-8), naming where it was given. */
export function checkRunsPerProcess(value: unknown, where: string, option = 'runsPerProcess'): number {
  if (value === undefined) return DEFAULT_RUNS_PER_PROCESS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_RUNS_PER_PROCESS) {
    throw new InvalidOptionError({ where, option, value, expected: `a whole number from 1 to ${MAX_RUNS_PER_PROCESS}` });
  }
  return value;
}
