/** Stores for state that outlives a request: durable runs' journals (more backends: ptc-runtime/redis). */
export { createMemoryRunStore } from './memory-run-store.js';
export { createFileRunStore } from './file-run-store.js';
export type { FileRunStoreOptions } from './file-run-store.js';
export { RunStoreConflictError, RunStoreError, RunStoreFencedError, TERMINAL_RUN_STATUSES } from './run-store.js';
export type { PendingApproval, RunClaim, RunMeta, RunSettlement, RunStatus, RunStore, RunSummary, StoredRun } from './run-store.js';
export { createMemoryTraceHeadStore } from './trace-head-store.js';
export type { TraceHeadStore } from './trace-head-store.js';
