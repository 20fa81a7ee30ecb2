/**
 * The tool model: definition, registry, the pipeline, scheduling and events. This is the tools
 * layer's contract with the layers above it; the package root (../index.ts) re-exports the
 * public part by name, and the last block below is what only those layers use.
 */
export { defineTool, isCallableName } from './define-tool.js';
export { callableNameOf } from './callable-name.js';
export type { ArgsInputOf, ArgsOf, OutputSchemaInput, ParametersInput, ToolDefinition, ValueOf } from './define-tool.js';
export type { PreflightDecision, PreflightOptions, RenderOutput, Tool, ToolExecContext, ToolHost, ToolSchema, TurnCallOptions, TurnOptions } from './tool-types.js';
export type {
  ArraySpec,
  BooleanSpec,
  InferShorthand,
  InferShorthandInput,
  InferSpec,
  NumberSpec,
  ObjectSpec,
  ParamSpec,
  ParamsShorthand,
  StringSpec,
} from './shorthand-schema.js';
export { createToolHost, ON_REGISTER } from './host.js';
export type { ToolHostOptions } from './host.js';
export type { ExecuteMiddleware, HookDispatch, PostExecuteListener, PreExecuteListener, ToolGuard, ToolHooks } from './hooks.js';
export type { ApprovalChannel, ApprovalRequest } from './approval.js';
export { DURABLE_CALL, durableCallOf } from './durable-call.js';
export { APPROVAL_BUDGET } from './approval-budget.js';
export type { ApprovalBudget } from './approval-budget.js';
export type { DurableCall, DurableCallOptions, DurableDecision } from './durable-call.js';
export { DEFAULT_APPROVAL_TIMEOUT_MS } from './approval.js';
export { decision } from './decision.js';
export { CallScheduler } from './scheduler.js';
export { StepScheduler } from './step-scheduler.js';
export { errorText, InvalidOptionError, PtcError, ToolCallError, ToolDefinitionError, ToolRegistrationError } from './errors.js';
export { deepFreeze, materializeJson, NotJsonError, toJson } from './json.js';
export type { JsonObject, JsonValue } from './json.js';
export { ValidationError } from './materialize.js';
export { eventOrigin, LOG_LEVELS, tokenIdOf } from './events.js';
export { MAX_LOG_EVENTS, MAX_PROGRESS_EVENTS, MAX_REPORT_CHARS, PROGRESS_INTERVAL_MS } from './call-reports.js';
export type { LogEntry, ProgressUpdate } from './call-reports.js';
export type {
  DecisionBy,
  EventOrigin,
  EventSink,
  JobEndEvent,
  JobProgressEvent,
  JobProgressInfo,
  JobStartEvent,
  PtcCallRefusedEvent,
  PtcRunSuspendedEvent,
  PtcRunResumedEvent,
  PendingApprovalInfo,
  PtcDispatchEvent,
  PtcRunEndEvent,
  PtcRunStartEvent,
  ToolCallEvent,
  ToolDecisionEvent,
  LogLevel,
  ToolEvent,
  ToolLogEvent,
  ToolProgressEvent,
  ToolResultEvent,
  UnstampedEvent,
} from './events.js';
export { jsonlFileSink, memoryJsonlSink, readJsonl } from './jsonl.js';
export { createTraceWriter, GENESIS_HASH, TRACE_FORMAT, traceFileSink } from './trace-chain.js';
export type { TraceHead, TraceWriter, TraceWriterOptions } from './trace-chain.js';
export { hashLine, MIN_TRACE_KEY_BYTES } from './trace-hash.js';
export type { TraceHashName, TraceKey } from './trace-hash.js';
export { verifyTrace } from './trace-verify.js';
export type { TraceProblem, TraceProblemKind, TraceVerification, VerifyTraceOptions } from './trace-verify.js';
export { readTraceHead, TRACE_LINK_EVENTS, verifyTraceSet } from './trace-links.js';
export type { TraceFile, TraceLink, TraceLinkStatus, TraceSetVerification } from './trace-links.js';
export { redactResumeTokens } from './trace-redact.js';
export type { JsonlProblem } from './jsonl.js';
export { unwrapResult } from './unwrap-result.js';
export { selectToolSchemas, ToolSelectionError } from './select-tools.js';
export type { ToolSelection } from './select-tools.js';
export { contentBlockText, modelContent, modelText } from './model-content.js';
export { checkContent } from './render.js';
export { reportSuspension, resumeRun, splitSuspension } from './run-suspension.js';
export type { OnSuspended, ResumedRun, ResumeRunOptions, RunResumer, RunSuspension, SuspendedCall } from './run-suspension.js';
export { EVENT_LOG_FORMAT, readEvent, replaySession, SessionViewBuilder, watchSession } from './replay/index.js';
export type {
  CallStatus,
  CallView,
  DecisionView,
  JobView,
  LogFormat,
  PresenterSource,
  ReadEventResult,
  ReplayedSession,
  ReplayOptions,
  ReplayProblem,
  ResultView,
  RunView,
  SessionView,
  SessionWatch,
} from './replay/index.js';
export { cardSchema, childCallStatusSchema, codeChildCallSchema, genericCard, pendingCardSchema, resultCardSchema } from './cards/index.js';
export type { Card, CardKind, CodeChildCall, GenericCard, PendingCard, PresentCall, PresentResult, ResultCard } from './cards/index.js';
export {
  backgroundHandleSchema,
  createJobTools,
  createMemoryJobStore,
  DEFAULT_JOB_OUTPUT_BYTES,
  DEFAULT_JOB_READ_BYTES,
  isBackgroundHandle,
  isJobStore,
  JOB_ID,
  jobInfoSchema,
  JobsNeedAsyncError,
  JobStartError,
  JobStoreError,
  LEASE_LOST_ERROR,
  MAX_JOB_READ_BYTES,
  MAX_JOB_WAIT_MS,
  sliceRing,
  UnknownJobError,
} from './jobs/index.js';
export type { BackgroundHandle, JobInfo, JobManager, JobManagerOptions, JobOutcome, JobReadResult, JobRunContext, JobStartOptions, JobStatus, JobStore, StoppedJob, StoredJob } from './jobs/index.js';
export { declareJsonSchema, isZodObject, isZodSchema, toModelJsonSchema } from './zod-util.js';
export type {
  AgentRef,
  ApprovalEvidence,
  CallOptions,
  ContentBlock,
  EmbeddedResource,
  ResourceLinkBlock,
  DeniedBy,
  Disposable,
  PostToolDecision,
  PreToolDecision,
  ProviderProgramOrigin,
  ToolCall,
  ToolErrorKind,
  ToolExecution,
  ToolExecutionMode,
  ToolOrigin,
  ToolResult,
} from './types.js';

// For the package's other layers only; the root does not re-export these.
export { subscribeAbort } from './abort-subscription.js';
export { parseArgsJson } from './args-snapshot.js';
export { readableJson } from './json-text.js';
export { redactSecrets, redactUrl, secretEnvValues } from './redact-secrets.js';
export type { RedactOptions } from './redact-secrets.js';
export { takeJsonText } from './json-slices.js';
export { RESULT_TEXT_STREAM } from './result-text-stream.js';
export type { ResultTextStream, ResultTextStreamOptions } from './result-text-stream.js';
export { REGISTERS_ITSELF } from './registry.js';
export { visibleText } from './visible-text.js';
export type { VisibleTextOptions } from './visible-text.js';
