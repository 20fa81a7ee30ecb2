/**
 * `createRunCodeTool`: the `run_code` tool. One run, in order:
 * normalize (fences, `async () => {}` wrappers) -> type-check against the visible tools'
 * declarations -> transpile (esbuild, with a line map) -> open the bridge (fresh token) ->
 * `runner.run` -> close the bridge (token revoked, stragglers cancelled) -> cap the output.
 *
 * The visible tools are every registered tool except run_code itself, read from the host at
 * each run; the declarations (and the callable-name mapping the bridge uses) are regenerated
 * when that set changes. The description carries them too, for the host given in the options
 * or, failing that, the last host that ran the tool.
 */
import { MAX_CHECKED_PROGRAM_CHARS, normalizeProgram, type CodeDiagnostic, type GeneratedToolTypes } from '../../codegen/index.js';
import { limitText, openRunBridge } from '../../bridge/index.js';
import { defineTool, ON_REGISTER, type JsonValue, type Tool, type ToolExecContext, type ToolHost } from '../../tools/index.js';
import type { ProgramRunner, RunLimits, RunOutcome } from '../program-runner.js';
import { listCalls, type CallCounts, type RunCodeCall } from './call-list.js';
import { endOf, failureOf, programError } from './run-failure.js';
import { createDescriber, type DiscoveryMode } from './description.js';
import { markRunCodeTool, resolveDescriptionBudget, searchToolOf, toolTypesOf, visibleTools, type DescriptionBudget } from '../discovery/index.js';
import { renderRunCode } from './render.js';
import { presentRunCode } from './present-run-code.js';
import { withAbortGrace } from './abort-grace.js';
import { RunCodeError } from './errors.js';
import { resolveRunLimits } from './limits.js';
import { capOutput, type SpilledPart } from './output-cap.js';
import { loadRunner, type Isolation, type RunnerCapacity } from './runner-factory.js';
import { createSpillStore, type SpillStore } from './spill-store.js';
import { transpileProgram } from './transpile.js';
import { resolveTypecheckLimits, typecheckThread, type TypecheckLimits } from './typecheck-thread.js';

/** Options of {@link createRunCodeTool}. */
export interface RunCodeOptions {
  /** Limits of every run (see `DEFAULT_RUN_LIMITS`); the model cannot raise them. */
  readonly limits?: Partial<RunLimits>;
  /**
   * `'process'` (default): isolates in supervised sandbox processes. `'isolate'`: in this
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
   * unchecked. Defaults: `timeMs` 5 000 per check, `memoryMb` 512 for the thread's heap.
   */
  readonly typecheckLimits?: Partial<TypecheckLimits>;
  /** How many programs run at once, and how many sandbox processes (or isolates) stay warm. */
  readonly capacity?: RunnerCapacity;
  /** A runner to use instead of the one `isolation` names (the tool does not close it; `capacity` does not apply). */
  readonly runner?: ProgramRunner;
  /** Where output over `maxOutputBytes` is kept (default: a new in-memory store, `tool.spills`). */
  readonly spills?: SpillStore;
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
}

const NO_TOOLS = { declarations: '', toolNames: new Map<string, string>() };

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
  readonly rejected: string;
  readonly diagnostics: ProgramDiagnostic[];
}

/** The run_code tool, plus the spill store and a way to release its runner. */
export type RunCodeTool = Tool<{ code: string }, RunCodeValue | RunCodeRejected> & {
  /** Output over the cap, by spill id. */
  readonly spills: SpillStore;
  /** Stops the runner this tool created (isolates, sandbox processes). */
  close(): Promise<void>;
};


/** Longest program accepted, in characters (the type checker's own cap). */
export const MAX_PROGRAM_CHARS = MAX_CHECKED_PROGRAM_CHARS;

/** How long an aborted run_code call waits for its run to wind down before reporting the abort. */
const RUN_ABORT_GRACE_MS = 2_000;

/** Creates the `run_code` tool. */
export function createRunCodeTool(options: RunCodeOptions = {}): RunCodeTool {
  const limits = resolveRunLimits(options.limits);
  const isolation: Isolation = options.isolation ?? 'process';
  if (isolation !== 'process' && isolation !== 'isolate') throw new RangeError(`createRunCodeTool: isolation must be "process" or "isolate", got ${String(isolation)}`);
  const typecheck = options.typecheck ?? 'reject';
  if (!['reject', 'warn', 'off'].includes(typecheck)) throw new RangeError(`createRunCodeTool: typecheck must be "reject", "warn" or "off", got ${String(typecheck)}`);
  const typecheckLimits = resolveTypecheckLimits(options.typecheckLimits);
  checkCapacity(options.capacity);
  const discovery = options.discovery ?? 'auto';
  if (!['auto', 'full', 'index'].includes(discovery)) throw new RangeError(`createRunCodeTool: discovery must be "auto", "full" or "index", got ${String(discovery)}`);
  const describe = createDescriber({ limits, discovery, budget: resolveDescriptionBudget(options.descriptionBudget) });
  const name = options.name ?? 'run_code';
  const spills = options.spills ?? createSpillStore();
  let runner: Promise<ProgramRunner> | undefined = options.runner ? Promise.resolve(options.runner) : undefined;
  let knownHost = options.host;
  let describing = false;

  // Declarations for the current visible tool set, regenerated when it changes.
  let cached: { tools: readonly Tool[]; types: GeneratedToolTypes } | undefined;
  const typesFor = (host: ToolHost): GeneratedToolTypes => {
    const visible = visibleTools(host, name);
    if (cached && cached.tools.length === visible.length && cached.tools.every((t, i) => t === visible[i])) return cached.types;
    const types = toolTypesOf(visible);
    cached = { tools: visible, types };
    return types;
  };

  if (typecheck !== 'off' && options.warmup !== false) {
    const warm = setTimeout(() => {
      try {
        typecheckThread(typecheckLimits.memoryMb).warmup(knownHost ? typesFor(knownHost) : NO_TOOLS);
      } catch {
        // A failed warm-up only means the first check pays the cold start.
      }
    }, 0);
    warm.unref?.();
  }

  const execute = async ({ code }: { code: string }, exec: ToolExecContext): Promise<RunCodeValue | RunCodeRejected> => {
    const started = performance.now();
    knownHost ??= exec.host;
    const types = typesFor(exec.host);
    if (code.length > MAX_PROGRAM_CHARS) {
      return { rejected: 'The program was not run: it is too long.', diagnostics: [{ line: 1, column: 1, message: `The program has ${code.length} characters; at most ${MAX_PROGRAM_CHARS} are accepted.` }] };
    }
    const { body, lineOffset } = normalizeProgram(code);

    let diagnostics: ProgramDiagnostic[] | undefined;
    let typecheckMs = 0;
    if (typecheck !== 'off') {
      const t0 = performance.now();
      const checked = await typecheckThread(typecheckLimits.memoryMb).check(code, types, typecheckLimits.timeMs);
      typecheckMs = performance.now() - t0;
      if (!checked.ok) {
        const over = checked.limit === undefined ? '' : ` (${limitText(`typecheckLimits.${checked.limit}`, typecheckLimits[checked.limit])})`;
        const message = `The type check ${checked.reason}${over}${checked.limit === undefined ? '' : ': the program\'s types are too complex to check; simplify them'}.`;
        if (typecheck === 'reject') return { rejected: 'The program was not run: its type check could not be completed.', diagnostics: [{ line: 1, column: 1, message }] };
        diagnostics = [{ line: 1, column: 1, message: `${message} The program ran unchecked.` }];
      } else {
        const problems = checked.result.diagnostics.map(({ line, column, message }) => ({ line, column, message }));
        if (!checked.result.ok && typecheck === 'reject') return { rejected: 'The program was not run: fix these type errors and call run_code again.', diagnostics: problems };
        if (problems.length > 0) diagnostics = problems;
      }
    }

    const t1 = performance.now();
    const transpiled = transpileProgram(body);
    const transpileMs = performance.now() - t1;
    if (!transpiled.ok) {
      return {
        rejected: 'The program was not run: it has syntax errors.',
        diagnostics: transpiled.errors.map((e) => ({ line: e.line + lineOffset, column: e.column, message: e.message })),
      };
    }
    const modelLine = (jsLine: number | undefined) => {
      if (jsLine === undefined) return undefined;
      const bodyLine = transpiled.program.bodyLineOf(jsLine);
      return bodyLine === undefined ? undefined : bodyLine + lineOffset;
    };

    runner ??= loadRunner(isolation, options.capacity);
    const activeRunner = await runner.catch((err: unknown) => {
      runner = undefined; // try again on the next run
      throw err;
    });
    const bridge = openRunBridge({
      host: exec.host,
      parentCallId: exec.callId,
      ...(exec.agent ? { agent: exec.agent } : {}),
      signal: exec.signal,
      limits,
      toolNames: types.toolNames,
    });
    const t2 = performance.now();
    let outcome: RunOutcome;
    try {
      outcome = await withAbortGrace(
        activeRunner.run({ js: transpiled.program.js, toolNames: [...types.toolNames.keys()], limits, lineOffset: 0 }, bridge.guest, bridge.signal),
        bridge.signal,
      );
    } catch (err) {
      outcome = { ok: false, failure: { kind: 'crash', message: `the runner failed: ${(err as Error)?.message ?? String(err)}` }, cpuMs: 0, wallMs: performance.now() - t2 };
    }
    const runMs = performance.now() - t2;
    const failure = failureOf(outcome, bridge.stopReason, limits);
    const report = await bridge.close(failure ? endOf(failure) : { outcome: 'ok' });
    const { calls, omitted, counts } = listCalls(report.calls);

    if (failure) throw programError(failure, modelLine, report, calls, counts.total);
    const resultJson = (outcome as { resultJson: string }).resultJson;
    let capped: ReturnType<typeof capOutput>;
    try {
      capped = capOutput({ resultJson, logs: report.logs, maxOutputBytes: limits.maxOutputBytes, spills });
    } catch {
      throw new RunCodeError('crash', 'The sandbox running the program returned a result that is not JSON.');
    }
    const stats: RunCodeStats = {
      totalMs: round(performance.now() - started),
      typecheckMs: round(typecheckMs),
      transpileMs: round(transpileMs),
      runMs: round(runMs),
      queuedMs: round(report.queuedMs),
      cpuMs: round(outcome.cpuMs),
      calls: counts,
      approvalWaitMs: round(report.approvalWaitMs),
      childResultBytes: report.childResultBytes,
      outputBytes: capped.producedBytes,
      returnedBytes: capped.returnedBytes,
    };
    return { result: capped.result, logs: capped.logs, calls, ...(omitted > 0 ? { callsOmitted: omitted } : {}), stats, ...(diagnostics ? { diagnostics } : {}) };
  };

  // Background runs: a job on the host; the run's own signal is the job's (it outlives the call).
  const backgroundable = (args: { code: string; background?: boolean }, exec: ToolExecContext) => {
    if (!args.background) return execute(args, exec);
    return exec.host.jobs.start({
      kind: 'run_code',
      label: `run_code: ${args.code.trim().split('\n')[0]!.slice(0, 80)}`,
      ...(exec.agent ? { owner: exec.agent } : {}),
      run: ({ signal }) => execute({ code: args.code }, { ...exec, signal }),
    });
  };
  const codeParam = { type: 'string', required: true, description: 'TypeScript: the body of an async function; `return` gives the result.' } as const;
  const backgroundParams = {
    code: codeParam,
    background: { type: 'boolean', description: 'Run in the background: returns { kind: "background", jobId } at once; read the outcome with job_read.' },
  } as const;
  const base = defineTool({
    name,
    description: describe().text,
    // Without the option the model never sees a `background` parameter (the strict schema refuses it).
    parameters: (options.background ? backgroundParams : { code: codeParam }) as typeof backgroundParams,
    output: { render: (_args, value) => renderRunCode(value as JsonValue) },
    execute: (options.background ? backgroundable : execute) as (args: { code: string }, exec: ToolExecContext) => Promise<never>,
    presentCall: (args) => ({ card: 'code', phase: 'pending', source: args.code, calls: [] }),
    presentResult: (args, value) => presentRunCode(args.code, value as JsonValue),
    // An aborted run ends its bridge (children cancelled, `ptc/run-end`) within about half a
    // second: its events then come before run_code's own result in the trace.
    abortGraceMs: RUN_ABORT_GRACE_MS,
  });
  const tool = Object.defineProperties(
    { ...base },
    {
      description: {
        enumerable: true,
        get: () => {
          if (!knownHost || describing) return base.description;
          describing = true;
          try {
            const types = typesFor(knownHost);
            return describe({ types, tools: cached!.tools }, searchToolOf(knownHost)?.name).text;
          } catch {
            return base.description;
          } finally {
            describing = false;
          }
        },
      },
      spills: { value: spills, enumerable: false },
      // Registered without `options.host`: learn the host now, so the description lists the tools
      // before the first run.
      [ON_REGISTER]: {
        enumerable: false,
        value: (host: ToolHost) => {
          knownHost ??= host;
        },
      },
      close: {
        enumerable: false,
        value: async () => {
          if (options.runner || !runner) return;
          const r = runner;
          runner = undefined;
          await (await r.catch(() => undefined))?.close();
        },
      },
    },
  );
  const frozen = Object.freeze(tool);
  markRunCodeTool(frozen); // never visible to a program (no nested runs, no recursive descriptions)
  return frozen as unknown as RunCodeTool;
}


function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function checkCapacity(capacity: RunnerCapacity | undefined): void {
  if (capacity === undefined) return;
  const { maxProcesses, poolSize } = capacity;
  if (maxProcesses !== undefined && !(Number.isSafeInteger(maxProcesses) && maxProcesses >= 1)) {
    throw new RangeError(`createRunCodeTool: capacity.maxProcesses must be a whole number of at least 1, got ${String(maxProcesses)}`);
  }
  if (poolSize !== undefined && !(Number.isSafeInteger(poolSize) && poolSize >= 0)) {
    throw new RangeError(`createRunCodeTool: capacity.poolSize must be a whole number of at least 0, got ${String(poolSize)}`);
  }
}
