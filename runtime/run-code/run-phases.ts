/**
 * One run of run_code, phase by phase. Each phase is a function with a typed result, so each
 * can be read, timed and tested on its own:
 *   normalize (length, fences, `async () => {}` wrappers)
 *   -> typecheck (against the visible tools' declarations, on its own thread)
 *   -> transpile (esbuild, with a line map back to the model's code)
 *   -> run (a fresh bridge and token, the runner, the bridge closed: token revoked, stragglers cancelled)
 *   -> report (the failure the model reads, or the value with its output capped).
 * A phase that refuses the program returns a {@link RunCodeRejected} value: the program did not run.
 */
import { MAX_CHECKED_PROGRAM_CHARS, normalizeNeedsParse, normalizeProgram, type GeneratedToolTypes } from '../../codegen/index.js';
import { limitText, openRunBridge, type RunBridge, type RunReport } from '../../bridge/index.js';
import type { OsSandboxKind } from '../os-sandbox/index.js';
import { errorText, type AgentRef, type ToolExecContext } from '../../tools/index.js';
import type { GuestBridge, ProgramRunner, RunDeterminism, RunLimits, RunOutcome } from '../program-runner.js';
import { withAbortGrace } from './abort-grace.js';
import { listCalls } from './call-list.js';
import { RunCodeError } from './errors.js';
import { capOutput } from './output-cap.js';
import { endOf, failureOf, programError, type Failure } from './run-failure.js';
import type { ProgramDiagnostic, RunCodeRejected, RunCodeStats, RunCodeValue } from './run-code-types.js';
import type { SpillStore } from './spill-store.js';
import { transpileProgram } from './transpile.js';
import { typecheckThread, type TypecheckLimits, type TypecheckQueueOptions } from './typecheck-thread.js';
import type { TypecheckCache } from './typecheck-cache.js';

/** Longest program accepted, in characters (the type checker's own cap). */
export const MAX_PROGRAM_CHARS = MAX_CHECKED_PROGRAM_CHARS;

/** Whether a phase refused the program. */
export function isRejected(value: object): value is RunCodeRejected {
  return 'rejected' in value;
}

/** The program's body and where it starts in the model's code. */
export interface NormalizedCode {
  /** The model's code as sent (what the type check reads). */
  readonly code: string;
  /** The body of the async function, unwrapped from a fence or an `async () => {}`. */
  readonly body: string;
  /** Lines of the model's code before the body's first line. */
  readonly lineOffset: number;
}

/**
 * Longest program unwrapped on the host's thread. Unwrapping a fenced or wrapped program parses
 * it with TypeScript, about 1 ms per KB here: a 187 KB `async () => { ... }` held the host's
 * thread 150-240 ms, for every call that sent one. Longer ones are unwrapped on the type-check
 * thread (which loads TypeScript once, on first use).
 */
export const MAX_HOST_NORMALIZE_CHARS = 16 * 1024;

/** Phase 1: refuses an over-long program and unwraps the body (a long one off the host's thread, in the run's queue). */
export async function normalize(code: string, limits: TypecheckLimits, queue: TypecheckQueueOptions = {}): Promise<NormalizedCode | RunCodeRejected> {
  if (code.length > MAX_PROGRAM_CHARS) {
    return { rejected: 'The program was not run: it is too long.', reason: 'too-long', diagnostics: [{ line: 1, column: 1, message: `The program has ${code.length} characters; at most ${MAX_PROGRAM_CHARS} are accepted.` }] };
  }
  if (code.length > MAX_HOST_NORMALIZE_CHARS && normalizeNeedsParse(code)) {
    const normalized = await typecheckThread(limits.memoryMb).normalize(code, limits.timeMs, { maxQueued: limits.maxQueuedPerAgent, ...queue });
    // (The thread failed, ran out of time or was busy: the text as written, whose run reports what is wrong.)
    return normalized === undefined ? { code, body: code, lineOffset: 0 } : { code, ...normalized };
  }
  const { body, lineOffset } = normalizeProgram(code);
  return { code, body, lineOffset };
}

/** How the type check is done (run_code's `typecheck`, `typecheckLimits` and `typecheckCache` options). */
export interface TypecheckSettings {
  readonly mode: 'reject' | 'warn' | 'off';
  readonly limits: TypecheckLimits;
  /** Results of earlier checks (absent: every program is checked). */
  readonly cache?: TypecheckCache;
}

/** Whose check it is, and how long it may wait for the thread. */
export interface TypecheckRun {
  /** The run's agent: its checks wait in its own queue, served round-robin with other agents'. */
  readonly agent?: AgentRef;
  /** The run's `wallMs`: the wait for the thread counts against it. */
  readonly wallMs: number;
}

/** A program that may run, with the type problems `'warn'` lets through. */
export interface Checked {
  readonly diagnostics: ProgramDiagnostic[] | undefined;
  readonly ms: number;
  /** Wall time waiting for the type-check thread (counted in the run's `wallMs`). */
  readonly queuedMs?: number;
}

/**
 * Phase 2: type-checks the model's code against the tools' declarations (or finds the result of
 * the same check in the cache). Throws a {@link RunCodeError} when the queue refuses the check:
 * `'typecheck-busy'` (the agent's `maxQueuedPerAgent`) or `'limit'` (the run's `wallMs` passed
 * while it waited).
 */
export async function typecheck(program: NormalizedCode, types: GeneratedToolTypes, settings: TypecheckSettings, run: TypecheckRun = { wallMs: Number.POSITIVE_INFINITY }): Promise<Checked | RunCodeRejected> {
  if (settings.mode === 'off') return { diagnostics: undefined, ms: 0 };
  const t0 = performance.now();
  const key = settings.cache?.keyOf(program.code, types);
  const hit = key === undefined ? undefined : settings.cache!.get(key);
  const checked = hit !== undefined ? { ok: true as const, result: hit, queuedMs: 0 } : await typecheckThread(settings.limits.memoryMb).check(program.code, types, settings.limits.timeMs, {
    ...(run.agent ? { agent: run.agent.id } : {}),
    maxQueued: settings.limits.maxQueuedPerAgent,
    waitLimitMs: run.wallMs,
  });
  const ms = performance.now() - t0;
  if (!checked.ok && 'refused' in checked) {
    if (checked.refused === 'busy') {
      const cap = settings.limits.maxQueuedPerAgent;
      throw new RunCodeError('typecheck-busy', `The program was not run: the type checker is busy: ${checked.reason}. Wait for a run to finish, then call run_code again.`, { limit: 'typecheckLimits.maxQueuedPerAgent', value: cap });
    }
    throw new RunCodeError('limit', `The run was stopped by the limit ${limitText('wallMs', run.wallMs)}: it waited that long for the type checker (busy with other runs' checks); this program did not run.`, { limit: 'wallMs', value: run.wallMs });
  }
  if (!checked.ok) {
    const over = checked.limit === undefined ? '' : ` (${limitText(`typecheckLimits.${checked.limit}`, settings.limits[checked.limit])})`;
    const message = `The type check ${checked.reason}${over}${checked.limit === undefined ? '' : ": the program's types are too complex to check; simplify them"}.`;
    if (settings.mode === 'reject') return { rejected: 'The program was not run: its type check could not be completed.', reason: 'typecheck-incomplete', diagnostics: [{ line: 1, column: 1, message }] };
    return { diagnostics: [{ line: 1, column: 1, message: `${message} The program ran unchecked.` }], ms, queuedMs: checked.queuedMs };
  }
  if (key !== undefined && hit === undefined) settings.cache!.set(key, checked.result);
  const problems = checked.result.diagnostics.map(({ line, column, message }) => ({ line, column, message }));
  if (!checked.result.ok && settings.mode === 'reject') {
    // A program that does not parse has no types to speak of: say what it is. (Code 0 is a check
    // of our own or the "… and N more" line: it says nothing either way.)
    const coded = checked.result.diagnostics.filter((d) => d.category === 'error' && d.code !== 0);
    const syntax = coded.length > 0 && coded.every((d) => isSyntaxError(d.code));
    if (syntax) return { rejected: 'The program was not run: fix these syntax errors and call run_code again.', reason: 'syntax', diagnostics: problems };
    return { rejected: 'The program was not run: fix these type errors and call run_code again.', reason: 'types', diagnostics: problems };
  }
  return { diagnostics: problems.length > 0 ? problems : undefined, ms, queuedMs: checked.queuedMs };
}

/**
 * TypeScript numbers its syntax and grammar errors 1000-1999 (`TS1109: Expression expected`);
 * the checker reports only those when a program does not parse.
 */
function isSyntaxError(code: number): boolean {
  return code >= 1000 && code < 2000;
}

/** A program ready to run. */
export interface Transpiled {
  /** JavaScript: the body of an async function. */
  readonly js: string;
  /** The model's line for a line of `js` (undefined when it has none). */
  readonly modelLine: (jsLine: number | undefined) => number | undefined;
  readonly ms: number;
}

/** Phase 3: TypeScript to JavaScript, with the map from its lines back to the model's (esbuild's work is off this thread). */
export async function transpile(program: NormalizedCode): Promise<Transpiled | RunCodeRejected> {
  const t0 = performance.now();
  const transpiled = await transpileProgram(program.body);
  const ms = performance.now() - t0;
  if (!transpiled.ok && transpiled.kind === 'limit') {
    return { rejected: 'The program was not run: it is too deeply nested to compile.', reason: 'too-complex', diagnostics: [{ line: (transpiled.line ?? 1) + program.lineOffset, column: 1, message: transpiled.message }] };
  }
  if (!transpiled.ok) {
    return {
      rejected: 'The program was not run: it has syntax errors.',
      reason: 'syntax',
      diagnostics: transpiled.errors.map((e) => ({ line: e.line + program.lineOffset, column: e.column, message: e.message })),
    };
  }
  const { js, bodyLineOf } = transpiled.program;
  const modelLine = (jsLine: number | undefined) => {
    if (jsLine === undefined) return undefined;
    const bodyLine = bodyLineOf(jsLine);
    return bodyLine === undefined ? undefined : bodyLine + program.lineOffset;
  };
  return { js, modelLine, ms };
}

/** What {@link run} needs. */
export interface RunInput {
  readonly runner: ProgramRunner;
  readonly program: Transpiled;
  /** The run_code call's context: host, call id (the children's parent), agent, signal. */
  readonly exec: ToolExecContext;
  readonly limits: RunLimits;
  /** Callable name -> tool name, for the visible tools. */
  readonly toolNames: ReadonlyMap<string, string>;
  /** `RunRequest.group`: who may share an isolate or a sandbox process with this run (see {@link runGroup}). */
  readonly group?: string;
  /** A durable run (runtime/durable): stable call ids, determinism, and the relay the runner talks to instead of the bridge. */
  readonly durable?: DurableRunInput;
  /** Wall time the run already spent waiting before it started (the type-check queue), counted against `wallMs`. */
  readonly wallSpentMs?: number;
}

/** What a durable run adds to {@link run}. */
export interface DurableRunInput {
  readonly idTag: string;
  readonly determinism: RunDeterminism;
  /** The GuestBridge the runner gets, made around the run's bridge. */
  readonly relay: (bridge: RunBridge) => GuestBridge;
}

/** A run that is over: its result or its failure, and what the bridge recorded. */
export type FinishedRun = {
  readonly report: RunReport;
  /** CPU time of the program in its isolate, ms. */
  readonly cpuMs: number;
  /** Wall time inside the runner, ms. */
  readonly ms: number;
} & ({ readonly ok: true; readonly resultJson: string } | { readonly ok: false; readonly failure: Failure });

/**
 * The group of a run (docs/run-life.md "Groups, slots and isolates"): the run_code tool instance
 * (`toolKey`) plus the run's agent. A run without an agent has none: it shares processes with
 * other runs without one, one at a time, each in a fresh isolate (as before groups existed), so
 * it neither shares an isolate nor pays a process start of its own.
 */
export function runGroup(toolKey: string, exec: ToolExecContext): string | undefined {
  return exec.agent === undefined ? undefined : `${toolKey}\u0000agent:${exec.agent.id}`;
}

/** Phase 4: opens the bridge, runs the program, closes the bridge (never throws for the program's sake). */
export async function run({ runner, program, exec, limits, toolNames, durable, wallSpentMs, group }: RunInput): Promise<FinishedRun> {
  const bridge = openRunBridge({
    host: exec.host,
    parentCallId: exec.callId,
    ...(exec.agent ? { agent: exec.agent } : {}),
    signal: exec.signal,
    limits,
    toolNames,
    ...(durable ? { idTag: durable.idTag } : {}),
    ...(wallSpentMs ? { wallSpentMs } : {}),
  });
  const t0 = performance.now();
  let outcome: RunOutcome;
  try {
    const guest = durable ? durable.relay(bridge) : bridge.guest;
    const request = { js: program.js, toolNames: [...toolNames.keys()], limits, lineOffset: 0, ...(durable ? { determinism: durable.determinism } : {}), ...(group !== undefined ? { group } : {}) };
    outcome = await withAbortGrace(runner.run(request, guest, bridge.signal), bridge.signal);
  } catch (err) {
    outcome = { ok: false, failure: { kind: 'crash', message: `the runner failed: ${errorText(err)}` }, cpuMs: 0, wallMs: performance.now() - t0 };
  }
  const ms = performance.now() - t0;
  const failure = failureOf(outcome, bridge.stopReason, limits);
  const report = await bridge.close(failure ? endOf(failure) : { outcome: 'ok' });
  const { cpuMs } = outcome;
  if (failure !== undefined || !outcome.ok) return { ok: false, failure: failure ?? { kind: 'crash', message: 'the runner ended without a result' }, report, cpuMs, ms };
  return { ok: true, resultJson: outcome.resultJson, report, cpuMs, ms };
}

/** What {@link report} needs besides the run. */
export interface ReportInput {
  readonly finished: FinishedRun;
  readonly program: Transpiled;
  readonly checked: Checked;
  readonly limits: RunLimits;
  readonly spills: SpillStore;
  /** The agent the run_code call ran for: the owner of its spills. */
  readonly agent?: AgentRef;
  /** When the run_code call started (`performance.now()`). */
  readonly startedAt: number;
  /** What confined the sandbox process beyond the isolate. */
  readonly osSandbox: OsSandboxKind;
}

/**
 * Phase 5: the run's value, with logs and result capped at `maxOutputBytes` (spilled, not cut);
 * or, for a failed run, the {@link RunCodeError} the model reads (thrown).
 */
export function report({ finished, program, checked, limits, spills, agent, startedAt, osSandbox }: ReportInput): RunCodeValue {
  const bridgeReport = finished.report;
  const { calls, omitted, counts } = listCalls(bridgeReport.calls);
  if (!finished.ok) throw programError({ failure: finished.failure, modelLine: program.modelLine, report: bridgeReport, calls, total: counts.total });
  let capped: ReturnType<typeof capOutput>;
  try {
    const { diagnostics } = checked;
    capped = capOutput({ resultJson: finished.resultJson, logs: bridgeReport.logs, maxOutputBytes: limits.maxOutputBytes, spills, ...(agent ? { owner: agent } : {}), calls, counts, ...(diagnostics ? { diagnostics } : {}) });
  } catch {
    throw new RunCodeError('crash', 'The sandbox running the program returned a result that is not JSON.');
  }
  const stats: RunCodeStats = {
    totalMs: round(performance.now() - startedAt),
    typecheckMs: round(checked.ms),
    transpileMs: round(program.ms),
    runMs: round(finished.ms),
    queuedMs: round(bridgeReport.queuedMs),
    cpuMs: round(finished.cpuMs),
    calls: counts,
    approvalWaitMs: round(bridgeReport.approvalWaitMs),
    childResultBytes: bridgeReport.childResultBytes,
    outputBytes: capped.producedBytes,
    returnedBytes: capped.returnedBytes,
    osSandbox,
    hostMs: round(bridgeReport.hostMs),
  };
  const { diagnostics } = checked;
  return { result: capped.result, logs: capped.logs, calls, ...(omitted > 0 ? { callsOmitted: omitted } : {}), stats, ...(diagnostics ? { diagnostics } : {}) };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
