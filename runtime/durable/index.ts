/** Durable runs: journals, replay, suspension and resume of run_code programs (docs/run-life.md). */
export { DurableRuns, resumePlanOf, RunResumeError } from './durable-runs.js';
export type { DurableOutcome, DurableRunResult, DurableStart, PendingCall, ResumeOptions, ResumePlan, RunCodeSuspended } from './durable-runs.js';
export { resolveDurableOptions } from './durable-options.js';
export type { DurableOptions, DurableSecret, ResolvedDurable } from './durable-options.js';
export { toolsetFingerprint } from './fingerprints.js';
export { JournalFullError } from './journal.js';
export { decodeJournalEntry } from './journal-entry.js';
export type { JournalEntry } from './journal-entry.js';
