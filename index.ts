/**
 * ptc-runtime: programmatic tool calling. The package root is the tool model: defining tools,
 * the host and its pipeline, events, traces, jobs, cards and replay. It never loads isolated-vm,
 * child processes or the TypeScript compiler: run_code lives in `ptc-runtime/runtime`, codegen
 * in `ptc-runtime/codegen`, the integrations in their own subpaths (`ptc-runtime/mcp`,
 * `/cordis`, `/otel`, `/ai-sdk`, `/openai-agents`, `/langchain`, `/anthropic`).
 *
 * The names are chosen from tools/index.ts (the tool model's contract with the package's other
 * layers, which also carries a few helpers only those layers use). `ptc-runtime/tools` is this
 * same file. Every name here is pinned in test/fixtures/public-api.txt: a change to the surface
 * is a reviewed diff (`npm run api:update`).
 */

// Defining tools
export { defineTool, isCallableName, isZodObject, isZodSchema, toModelJsonSchema } from './tools/index.js';
export type {
  ArgsInputOf,
  ArgsOf,
  ArraySpec,
  BooleanSpec,
  InferShorthand,
  InferShorthandInput,
  InferSpec,
  NumberSpec,
  ObjectSpec,
  OutputSchemaInput,
  ParametersInput,
  ParamSpec,
  ParamsShorthand,
  RenderOutput,
  StringSpec,
  Tool,
  ToolDefinition,
  ToolExecContext,
  ValueOf,
} from './tools/index.js';

// The host, its hooks and approval
export { createToolHost, decision, DEFAULT_APPROVAL_TIMEOUT_MS, ON_REGISTER } from './tools/index.js';
export type {
  ApprovalChannel,
  ApprovalRequest,
  DurableDecision,
  ExecuteMiddleware,
  HookDispatch,
  PostExecuteListener,
  PreExecuteListener,
  PreflightDecision,
  PreflightOptions,
  ToolGuard,
  ToolHooks,
  ToolHost,
  ToolHostOptions,
  ToolSchema,
  TurnCallOptions,
  TurnOptions,
} from './tools/index.js';

// Calls, decisions and results
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
} from './tools/index.js';

// Scheduling
export { CallScheduler, StepScheduler } from './tools/index.js';

// What the model reads
export { contentBlockText, modelContent, modelText, selectToolSchemas, unwrapResult } from './tools/index.js';
export type { ToolSelection } from './tools/index.js';

// A durable run's suspension as the adapters give it to the app, and its resume (docs/agent-loop.md)
export { resumeRun, splitSuspension } from './tools/index.js';
export type { OnSuspended, ResumedRun, ResumeRunOptions, RunResumer, RunSuspension, SuspendedCall } from './tools/index.js';

// JSON values
export { deepFreeze, materializeJson, toJson } from './tools/index.js';
export type { JsonObject, JsonValue } from './tools/index.js';

// Errors
export {
  errorText,
  InvalidOptionError,
  JobsNeedAsyncError,
  JobStartError,
  JobStoreError,
  NotJsonError,
  PtcError,
  ToolCallError,
  ToolDefinitionError,
  ToolRegistrationError,
  ToolSelectionError,
  UnknownJobError,
  ValidationError,
} from './tools/index.js';

// Events, session logs and traces
export {
  createTraceWriter,
  eventOrigin,
  GENESIS_HASH,
  hashLine,
  jsonlFileSink,
  memoryJsonlSink,
  MIN_TRACE_KEY_BYTES,
  readJsonl,
  readTraceHead,
  tokenIdOf,
  TRACE_FORMAT,
  TRACE_LINK_EVENTS,
  traceFileSink,
  LOG_LEVELS,
  MAX_LOG_EVENTS,
  MAX_PROGRESS_EVENTS,
  MAX_REPORT_CHARS,
  PROGRESS_INTERVAL_MS,
  verifyTrace,
  verifyTraceSet,
} from './tools/index.js';
export type {
  DecisionBy,
  EventOrigin,
  EventSink,
  JobEndEvent,
  JobProgressEvent,
  JobProgressInfo,
  JobStartEvent,
  JsonlProblem,
  PtcCallRefusedEvent,
  PtcRunSuspendedEvent,
  PtcRunResumedEvent,
  PendingApprovalInfo,
  PtcDispatchEvent,
  PtcRunEndEvent,
  PtcRunStartEvent,
  ToolCallEvent,
  ToolDecisionEvent,
  LogEntry,
  LogLevel,
  ProgressUpdate,
  ToolEvent,
  ToolLogEvent,
  ToolProgressEvent,
  ToolResultEvent,
  TraceFile,
  TraceHashName,
  TraceHead,
  TraceKey,
  TraceLink,
  TraceLinkStatus,
  TraceProblem,
  TraceProblemKind,
  TraceSetVerification,
  TraceVerification,
  TraceWriter,
  TraceWriterOptions,
  UnstampedEvent,
  VerifyTraceOptions,
} from './tools/index.js';

// Session replay
export { EVENT_LOG_FORMAT, readEvent, replaySession, SessionViewBuilder, watchSession } from './tools/index.js';
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
} from './tools/index.js';

// UI cards
export { cardSchema, childCallStatusSchema, codeChildCallSchema, genericCard, pendingCardSchema, resultCardSchema } from './tools/index.js';
export type { Card, CardKind, CodeChildCall, GenericCard, PendingCard, PresentCall, PresentResult, ResultCard } from './tools/index.js';

// Background jobs
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
  LEASE_LOST_ERROR,
  MAX_JOB_READ_BYTES,
  MAX_JOB_WAIT_MS,
} from './tools/index.js';
export type {
  BackgroundHandle,
  JobInfo,
  JobManager,
  JobManagerOptions,
  JobOutcome,
  JobReadResult,
  JobRunContext,
  JobStartOptions,
  JobStatus,
  JobStore,
  StoppedJob,
  StoredJob,
} from './tools/index.js';
