/**
 * The two interfaces every part of the tool model shares: a defined {@link Tool} and the
 * {@link ToolHost} that runs it, with the shapes their signatures name (schemas, turn and
 * preflight options). Types only. A tool's exec context names its host and the host registers
 * tools, so both live here, in a file that imports only leaf modules: the files that implement
 * them (define-tool, host, registry, pipeline, preflight, run-turn) import this one and never
 * each other for a type (test/package-surface.test.ts fails on any import cycle in tools/).
 */
import type { z } from 'zod';
import type { PresentCall, PresentResult } from './cards/present.js';
import type { LogEntry, ProgressUpdate } from './call-reports.js';
import type { EventSink, ToolEvent, UnstampedEvent } from './events.js';
import type { ToolHooks } from './hooks.js';
import type { JobManager } from './jobs/job-types.js';
import type { JsonObject, JsonValue } from './json.js';
import type {
  AgentRef,
  ApprovalEvidence,
  CallOptions,
  ContentBlock,
  Disposable,
  ProviderProgramOrigin,
  ToolCall,
  ToolExecutionMode,
  ToolOrigin,
  ToolResult,
} from './types.js';

/**
 * A defined tool, frozen. Runtime fields are typed over JSON; the type parameters carry the
 * author's types for codegen and type-level tests.
 */
export interface Tool<Args = unknown, Value = unknown, ArgsInput = Args> {
  readonly name: string;
  readonly description: string;
  /** Zod form of the parameters (strict object for shorthand). */
  readonly parameters: z.ZodObject;
  /** Model-facing JSON Schema of the parameters, computed once. */
  readonly parametersJsonSchema: JsonObject;
  readonly output: {
    readonly schema?: z.ZodType;
    readonly render?: (args: JsonValue, value: JsonValue) => RenderOutput;
  };
  readonly execute: (args: JsonValue, exec: ToolExecContext) => unknown;
  /** As given; only exactly `true` (or a function returning exactly `true`) means parallel. */
  readonly isConcurrencySafe?: unknown;
  /** How long the pipeline waits for `execute` to settle after an abort (see ToolDefinition). */
  readonly abortGraceMs?: number;
  /** Safe to run again with the same idempotency key (see ToolDefinition). */
  readonly idempotent?: boolean;
  /** The author's `presentCall`, wrapped: soft-validated, never throws, `undefined` means generic. */
  readonly presentCall?: PresentCall;
  /** The author's `presentResult`, wrapped likewise. */
  readonly presentResult?: PresentResult;
  /** Type-level only: never set at runtime. */
  readonly __types?: { readonly args: Args; readonly argsInput: ArgsInput; readonly value: Value };
}

/** What `execute` gets besides its args. */
export interface ToolExecContext {
  readonly callId: string;
  readonly toolName: string;
  /** Aborted when the call, its turn or its PTC run is cancelled. */
  readonly signal: AbortSignal;
  readonly agent?: AgentRef;
  readonly origin: ToolOrigin;
  /** The host running the call (the PTC bridge calls back into it). */
  readonly host: ToolHost;
  /**
   * Set for a call of a durable run: the same for this call across replays and resumes of its
   * run, never for another call. Pass it to the API the tool changes (payments, messages) so
   * that a call run again after a crash has an effect once. Tools that do declare
   * `idempotent: true` (see `defineTool`).
   */
  readonly idempotencyKey?: string;
  /**
   * Reports progress while the call runs: a `tool/progress` event (throttled; `progress` must
   * increase), and `notifications/progress` to an MCP client that asked for it. See call-reports.ts.
   */
  progress(update: ProgressUpdate): void;
  /** Logs a line while the call runs: a `tool/log` event (bounded), and `notifications/message` to an MCP client. */
  log(entry: LogEntry): void;
}

/** Content returned by `output.render`: blocks, or a string as one text block. */
export type RenderOutput = readonly ContentBlock[] | string;

/** One tool as the model sees it. */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
}

/** The host: registry, hooks, events, and the pipeline entry points. */
export interface ToolHost {
  /** Registers a tool or tools (all or none). Duplicate names are refused. */
  register(tool: Tool | readonly Tool[]): Disposable;
  /** Model-facing schemas from the allowlist: name, description, parameters (JSON Schema). */
  schemas(): ToolSchema[];
  /** Registered tools, in registration order. */
  tools(): Tool[];
  /** The tool registered under a name. */
  get(name: string): Tool | undefined;
  /** Parallel or exclusive for this call; fail-closed. */
  executionMode(call: Pick<ToolCall, 'name' | 'args'>): ToolExecutionMode;
  /** Extension points, each registration returns a disposable. */
  readonly hooks: ToolHooks;
  /** Runs one call through the pipeline. Never throws for a failed call. */
  call(call: ToolCall, options?: CallOptions): Promise<ToolResult>;
  /**
   * What `call` would decide before the body (lookup, args, pre-execute listeners, guards),
   * without emitting an event, asking the approval channel or running anything. For adapters
   * whose framework asks a person itself; the answer goes back as `CallOptions.approved`.
   * Listeners run again at the real call, so they must be pure. Never throws.
   */
  preflight(call: ToolCall, options?: PreflightOptions): Promise<PreflightDecision>;
  /** Runs a model turn: rolling pool for parallel calls, exclusive barriers, results in call order. */
  runTurn(calls: readonly ToolCall[], options?: TurnOptions): Promise<ToolResult[]>;
  /** Emits an event to the sink with the next `seq` (for layers such as the PTC bridge). */
  emit(event: UnstampedEvent): ToolEvent;
  /** Adds a sink; returns a disposable that removes it. */
  onEvent(sink: EventSink): Disposable;
  readonly maxConcurrency: number;
  /** Background jobs: `jobs.start({ kind, label, owner, run })`, `jobs.disposeOwner(agent)`. */
  readonly jobs: JobManager;
  /** Ends the host's background work: kills every running job and refuses new ones. Idempotent. */
  close(): void;
}

/** What one call of a turn may carry of its own (see {@link TurnOptions.perCall}). */
export interface TurnCallOptions {
  /** The call came from a provider's sandbox (a `tool_use` with a `caller`), not the model itself. */
  readonly origin?: ProviderProgramOrigin;
  /** A person approved this call in the framework's own flow. */
  readonly approved?: ApprovalEvidence;
  /**
   * Why the adapter already knows this call must not run (a provider's caller it cannot vouch
   * for): the call is recorded, with its origin, and refused as `invalid-call` with this text.
   */
  readonly refusal?: string;
}

/** Options of one turn. */
export interface TurnOptions {
  readonly agent?: CallOptions['agent'];
  readonly signal?: CallOptions['signal'];
  /**
   * Options of single calls, by call id: an origin or approval evidence that belongs to one
   * call, never to the whole turn. A `Map`, because ids are the model's strings.
   */
  readonly perCall?: ReadonlyMap<string, TurnCallOptions>;
}

/** Options of {@link ToolHost.preflight}: the same agent and origin the real call will carry. */
export interface PreflightOptions {
  readonly agent?: AgentRef;
  /** A direct call's origin: the model (default) or a provider's sandbox. Programs' calls are never preflighted. */
  readonly origin?: { readonly kind: 'model' } | ProviderProgramOrigin;
}

/** What the pipeline would decide about a call before its body (steps 1-4). Frozen. */
export type PreflightDecision =
  | { readonly type: 'allow' }
  | { readonly type: 'deny'; readonly by: 'listener' | 'guard'; readonly reason: string }
  | { readonly type: 'ask'; readonly reason: string }
  | { readonly type: 'invalid'; readonly kind: 'unknown-tool' | 'invalid-args' | 'invalid-call'; readonly message: string };
