/** Sandbox-process runner (the default isolation): isolates inside supervised child processes. */
export { createProcessRunner } from './process-runner.js';
export type { ProcessRunner, ProcessRunnerOptions, ProcessRunnerStats } from './process-runner.js';
export type { ProcessRunOutcome } from './process-run.js';
export type { ProcessEvent } from './process-pool.js';
export { resolveWorkerEntry } from './worker-entry.js';
