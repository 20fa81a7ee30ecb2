/**
 * The runtime: the `run_code` tool, its limits and spill store, `tool_search` for large
 * catalogs, and the seam to the isolate runners (in this process, or in supervised sandbox
 * processes).
 */
export { createRunCodeTool, MAX_PROGRAM_CHARS } from './run-code/run-code-tool.js';
export type { CallCounts, ProgramDiagnostic, RunCodeCall, RunCodeOptions, RunCodeRejected, RunCodeStats, RunCodeTool, RunCodeValue } from './run-code/run-code-tool.js';
export type { DiscoveryMode, RunCodeDescription } from './run-code/description.js';
export { createToolSearchTool, defaultToolRanker, DEFAULT_DESCRIPTION_BUDGET, estimateTokens, MAX_SUMMARY_CHARS, MIN_DESCRIPTION_TOKENS, summaryOf, TOOL_SEARCH_LIMITS } from './discovery/index.js';
export type { DescriptionBudget, ToolRanker, ToolRanking, ToolSearchMatch, ToolSearchOptions, ToolSearchTool, ToolSearchValue } from './discovery/index.js';
export { MAX_LISTED_CALLS } from './run-code/call-list.js';
export { DEFAULT_RUN_LIMITS, MAX_LIMIT_VALUE, resolveRunLimits, RunLimitsError } from './run-code/limits.js';
export { DEFAULT_TYPECHECK_LIMITS, TypecheckLimitsError } from './run-code/typecheck-thread.js';
export type { TypecheckLimits } from './run-code/typecheck-thread.js';
export { createSpillStore, DEFAULT_SPILL_RETENTION, isSharedSpillStore, newSpillId } from './run-code/spill-store.js';
export type { AnySpillStore, SharedSpillStore, SpillEntry, SpillHandle, SpillStore, SpillStoreOptions } from './run-code/spill-store.js';
export { SPILL_READ_TOOL_NAME, SpillReadArgumentError, UnknownSpillError } from './run-code/spill-read-tool.js';
export type { SpillReadTool } from './run-code/spill-read-tool.js';
export { createRunResultTool } from './run-code/run-result-tool.js';
export type { RunResultToolOptions } from './run-code/run-result-tool.js';
export type { SpillPage } from './run-code/spill-page.js';
export type { SpilledPart } from './run-code/output-cap.js';
export { RunCodeError, RunnerUnavailableError } from './run-code/errors.js';
export type { RunCodeFailureKind } from './run-code/errors.js';
export type { Isolation, StrictIsolation } from './run-code/runner-factory.js';
export { transpileProgram } from './run-code/transpile.js';
export type { TranspiledProgram, TranspileError } from './run-code/transpile.js';
export type { GuestBridge, GuestCallOutcome, ProgramRunner, RunFailure, RunLimits, RunOutcome, RunRequest } from './program-runner.js';
export { createIsolateRunner, RunRequestError } from './isolate/index.js';
export type { IsolateRunner, IsolateRunnerOptions, IsolateRunnerStats, IsolateRunOutcome, LateCallAwareBridge, LateCallEvent, RunStartup } from './isolate/index.js';
export { createProcessRunner } from './sandbox-process/index.js';
export { OsSandboxOptionError, OsSandboxUnavailableError } from './os-sandbox/index.js';
export type { OsSandboxKind, OsSandboxMode } from './os-sandbox/index.js';
export type { ProcessEvent, ProcessRunner, ProcessRunnerOptions, ProcessRunnerStats, ProcessRunOutcome } from './sandbox-process/index.js';
export { createFileRunStore, createMemoryRunStore, createMemoryTraceHeadStore, RunStoreConflictError, RunStoreError, RunStoreFencedError, TERMINAL_RUN_STATUSES } from './stores/index.js';
export type { FileRunStoreOptions, PendingApproval, RunClaim, RunMeta, RunSettlement, RunStatus, RunStore, RunSummary, StoredRun, TraceHeadStore } from './stores/index.js';
export { decodeJournalEntry, JournalFullError, RunResumeError } from './durable/index.js';
export type { DurableOptions, DurableRunResult, DurableSecret, JournalEntry, PendingCall, ResumeOptions, RunCodeSuspended } from './durable/index.js';
