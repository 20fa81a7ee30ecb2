/** Sandbox-process runner (the default isolation): isolates inside supervised child processes. */
export { createProcessRunner } from './process-runner.js';
export { checkRunsPerProcess, DEFAULT_RUNS_PER_PROCESS, MAX_RUNS_PER_PROCESS } from './runs-per-process.js';
export type { ProcessRunner, ProcessRunnerOptions, ProcessRunnerStats } from './process-runner.js';
export type { ProcessRunOutcome } from './process-run.js';
export type { PooledProcess, ProcessEvent } from './process-pool.js';
export { resolveWorkerEntry } from './worker-entry.js';
