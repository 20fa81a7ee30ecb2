/**
 * The types of the run_code tool: its options, the value of a run (result, logs, calls, stats),
 * the value of a program rejected before it ran, and the tool itself.
 */
import type { CodeDiagnostic } from '../../codegen/index.js';
import type { AgentRef, JsonValue, Tool, ToolHost, ToolResult } from '../../tools/index.js';
import type { DurableOptions, DurableRunResult, ResumeOptions, RunCodeSuspended } from '../durable/index.js';
import type { ProgramRunner, RunLimits } from '../program-runner.js';
import type { CallCounts, RunCodeCall } from './call-list.js';
import type { SpilledPart } from './output-cap.js';
import type { DescriptionBudget } from '../discovery/index.js';
import type { DiscoveryMode } from './description.js';
import type { Isolation, RunnerCapacity } from './runner-factory.js';
import type { SpillReadTool } from './spill-read-tool.js';
import type { AnySpillStore } from './spill-store.js';
import type { TypecheckLimits } from './typecheck-thread.js';
import type { TypecheckCacheOption } from './typecheck-cache.js';
import type { OsSandboxKind, OsSandboxMode } from '../os-sandbox/index.js';

/** Options of {@link createRunCodeTool}. */
export interface RunCodeOptions {
  /** Limits of every run (see `DEFAULT_RUN_LIMITS`); the model cannot raise them. */
  readonly limits?: Partial<RunLimits>;
  /**
   * `'process'` (default): isolates in supervised sandbox processes; a process serves one agent
   * (with this tool) and holds up to `capacity.runsPerProcess` of its runs at once, each in a
   * fresh context of an isolate reused for a few clean runs (docs/run-code.md "What runs of one
   * agent share"). `{ strict: true }`: a sandbox process to itself while a run runs, and a
   * fresh isolate per run (the agent's processes serve its runs one after another: a crash ends
   * only its own run, and nothing of a run's isolate outlives it). `'isolate'`: in this
   * process, for trusted code: the program computes on this thread (at most `cpuMs` at a time),
   * an abort takes effect when that slice ends, a fatal V8 error ends this process, and a
   * hostile unhandled rejection can stall this thread (docs/run-code.md). Never for model code.
   */
  readonly isolation?: Isolation;
  /** `'reject'` (default): type errors are returned as the value and the program does not run; `'warn'`: it runs and the value lists them; `'off'`. */
  readonly typecheck?: 'reject' | 'warn' | 'off';
  /**
   * Limits of the type check, which runs on a worker thread (a program's types are model input:
   * a few lines of recursive types can take TypeScript minutes and gigabytes). Over one, the
   * check is abandoned: with `'reject'` the program does not run, with `'warn'` it runs
   * unchecked. Defaults: `timeMs` 5 000 per check, `memoryMb` 512 for the thread's heap,
   * `maxQueuedPerAgent` 64 checks of one agent waiting for the thread (one more is refused with a
   * `RunCodeError` of kind `'typecheck-busy'`). Checks are served round-robin by agent, and a
   * run's wait for the thread counts in its `wallMs` (docs/run-code.md "Type check").
   */
  readonly typecheckLimits?: Partial<TypecheckLimits>;
  /**
   * Results of type checks kept in memory (default: on, the 256 most recently used), keyed by
   * the SHA-256 of the TypeScript version, compiler options, declarations and program: a program
   * checked before against the same tools is not checked again. `false`: every program is checked.
   */
  readonly typecheckCache?: TypecheckCacheOption;
  /** How many programs run at once, and how many sandbox processes (or isolates) stay warm. */
  readonly capacity?: RunnerCapacity;
  /**
   * The OS sandbox around sandbox processes (Linux, bubblewrap: own user, network, mount, PID
   * and IPC namespaces, a minimal read-only root, no host environment; docs/run-code.md).
   * `'auto'` (default): used where it works, otherwise processes run without it, said once on
   * stderr and in every run's `stats.osSandbox`. `'require'`: `createRunCodeTool` throws
   * `OsSandboxUnavailableError` when it cannot be used. `'off'`. Applies to `isolation:
   * 'process'` only: with `'isolate'` programs run in this process, and `'require'` is refused.
   */
  readonly osSandbox?: OsSandboxMode;
  /** A runner to use instead of the one `isolation` names (the tool does not close it; `capacity` does not apply). */
  readonly runner?: ProgramRunner;
  /** Where output over `maxOutputBytes` is kept (default: a new in-memory store, `tool.spills`; its retention in docs/run-code.md). */
  readonly spills?: AnySpillStore;
  /**
   * Register `spill_read` beside run_code (default true): `host.register(runCode)` registers it
   * too (once per host; it goes when the last run_code relying on it is unregistered), so the
   * model can page through a spilled output. `false`: not registered (`tool.spillRead` is still
   * there to register yourself), and the description does not mention it.
   */
  readonly spillRead?: boolean;
  /** The host the tool will be registered in, so its description lists the tools before the first run. */
  readonly host?: ToolHost;
  /** The tool's name (default `run_code`). */
  readonly name?: string;
  /**
   * Let the model pass `background: true`: the whole run becomes a job on the host and the call
   * returns `{ kind: 'background', jobId }` at once; `job_read` later shows the run's value (or
   * its rejection, or its error). The program's child calls still carry the run's token and
   * parent call id and obey its limits; `job_kill` (or disposing the agent) aborts the run.
   */
  readonly background?: boolean;
  /**
   * Pay the type checker's cold start (0.5-1.5 s on its thread) soon after creation, off the
   * request path (default true when `typecheck` is on): loading TypeScript and its standard
   * library, and the declarations of `host`'s tools when `host` is given.
   */
  readonly warmup?: boolean;
  /**
   * How the description presents the tools (docs/run-code.md "Large catalogs"): `'full'` every
   * declaration, `'index'` one line per tool plus a pointer to `tool_search` (register
   * `createToolSearchTool()` beside it), `'auto'` (default) full up to
   * `descriptionBudget.indexAboveTokens`, index above. The type check uses the full declarations
   * in every mode.
   */
  readonly discovery?: DiscoveryMode;
  /** Budgets of the description in estimated tokens (default 10,000 for `auto`, 25,000 at most in any mode). */
  readonly descriptionBudget?: Partial<DescriptionBudget>;
  /**
   * Durable runs (docs/run-code.md "Durable runs"): each run is journaled; an approval channel may
   * answer `'defer'`, and the run then suspends (its process freed; run_code's value is
   * `{ suspended: { runId, pending, expiresAt, resumeToken } }`) until `runCode.resume` gives the
   * person's decisions, on this host or any other that shares the store, after a restart too.
   */
  readonly durable?: DurableOptions;
}

/** A problem in the program found before it ran. */
export type ProgramDiagnostic = Pick<CodeDiagnostic, 'line' | 'column' | 'message'>;

/** Statistics of one run. */
export interface RunCodeStats {
  /** Wall time of the whole run_code call, ms. */
  readonly totalMs: number;
  readonly typecheckMs: number;
  readonly transpileMs: number;
  /** Wall time inside the runner, ms (including `queuedMs`). */
  readonly runMs: number;
  /** Wall time waiting for a sandbox process to become free or to start (not counted against `wallMs`), ms. */
  readonly queuedMs: number;
  /** CPU time of the program in its isolate, ms. */
  readonly cpuMs: number;
  /** Child calls by outcome (complete, even when `calls` is shortened). */
  readonly calls: CallCounts;
  /** Wall time with a child waiting for a person (not counted against `wallMs`). */
  readonly approvalWaitMs: number;
  /** Bytes of JSON tool results the program received: kept out of the model's context. */
  readonly childResultBytes: number;
  /** Bytes of logs + result the program produced. */
  readonly outputBytes: number;
  /** Bytes of logs + result handed to the model (after spill). */
  readonly returnedBytes: number;
  /** What confined the sandbox process beyond the isolate: `'bubblewrap'` (the OS sandbox) or `'none'`. */
  readonly osSandbox: OsSandboxKind;
  /** Host work charged to the run's calls (`hostMs`), ms. */
  readonly hostMs: number;
}

export type { CallCounts, RunCodeCall } from './call-list.js';

/** The value of a run that ran. */
export interface RunCodeValue {
  readonly result: JsonValue | SpilledPart;
  readonly logs: string[] | SpilledPart;
  /** The child calls, at most `MAX_LISTED_CALLS` of them (the first and the last). */
  readonly calls: RunCodeCall[];
  /** How many calls the list leaves out (absent when none). */
  readonly callsOmitted?: number;
  readonly stats: RunCodeStats;
  /** Type problems, when `typecheck: 'warn'` let the program run anyway. */
  readonly diagnostics?: ProgramDiagnostic[];
}

/** The value when the program was rejected before it ran. */
export interface RunCodeRejected {
  /** What the model reads: why the program was not run and what to do. */
  readonly rejected: string;
  /**
   * Why, as a code: `'syntax'` it does not parse, `'types'` the type check found errors,
   * `'too-long'` over `MAX_PROGRAM_CHARS`, `'too-complex'` nested too deeply (or compiling to too much) to compile within bounds, `'typecheck-incomplete'` the check hit its limits or failed.
   */
  readonly reason: 'syntax' | 'types' | 'too-long' | 'too-complex' | 'typecheck-incomplete';
  readonly diagnostics: ProgramDiagnostic[];
}

/** The run_code tool, plus the spill store, its spill_read and a way to release its runner. */
export type RunCodeTool = Tool<{ code: string }, RunCodeValue | RunCodeRejected | RunCodeSuspended> & {
  /**
   * Resumes a suspended durable run with a person's decisions: run_code's result (the program's
   * final value, its failure, or a new suspension), through the host's pipeline as a call of
   * run_code with the run's original call id. Throws `RunResumeError` when the run cannot be
   * resumed (every token problem reads the same). Needs the `durable` option.
   */
  resume(options: ResumeOptions): Promise<ToolResult>;
  /**
   * Where a durable run stands, for the agent it ran for (`unknown` for anyone else): its final
   * value once resumed to its end, or what it still waits for. Needs the `durable` option.
   */
  runResult(options: { readonly runId: string; readonly agent?: AgentRef }): Promise<DurableRunResult>;
  /**
   * A new resume token for a suspended run, signed with the current key, for an operator who
   * holds the key but not the app's token (`ptc runs approve`): refused (`RunResumeError`) unless
   * one of this tool's keys is one the run was started under. Needs the `durable` option.
   */
  issueResumeToken(runId: string): Promise<string>;
  /** Output over the cap, by spill id. */
  readonly spills: AnySpillStore;
  /** The `spill_read` tool over {@link RunCodeTool.spills} (registered with run_code unless `spillRead: false`). */
  readonly spillRead: SpillReadTool;
  /** Stops the runner this tool created (isolates, sandbox processes). */
  close(): Promise<void>;
};
