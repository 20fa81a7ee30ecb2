/**
 * `createRunCodeTool`: the `run_code` tool. Its options are checked here, its runner is loaded on
 * first use, and each call runs the phases of run-phases.ts in order (normalize, typecheck,
 * transpile, run, report); the types are in run-code-types.ts.
 *
 * The visible tools are every registered tool except run_code itself, read from the host at
 * each run; the declarations (and the callable-name mapping the bridge uses) are regenerated
 * when that set changes. The description carries them too, for the host given in the options
 * or, failing that, the last host that ran the tool.
 */
import type { GeneratedToolTypes } from '../../codegen/index.js';
import { defineTool, InvalidOptionError, ON_REGISTER, type AgentRef, type JsonValue, type Tool, type ToolExecContext, type ToolHost } from '../../tools/index.js';
import type { ProgramRunner } from '../program-runner.js';
import { createDescriber } from './description.js';
import { markRunCodeTool, resolveDescriptionBudget, searchToolOf, spillReadToolOf, toolTypesOf, visibleTools } from '../discovery/index.js';
import { renderRunCode } from './render.js';
import { presentRunCode } from './present-run-code.js';
import { resolveRunLimits } from './limits.js';
import { loadRunner, resolveIsolation, type RunnerCapacity } from './runner-factory.js';
import { checkRunsPerProcess } from '../sandbox-process/runs-per-process.js';
import { checkOsSandboxOption } from './os-sandbox-option.js';
import { isRejected, normalize, report, run, runGroup, transpile, typecheck, type Checked } from './run-phases.js';
import { DurableRuns, resolveDurableOptions, resumePlanOf, toolsetFingerprint, type DurableOutcome, type ResumeOptions, type RunCodeSuspended } from '../durable/index.js';
import type { RunCodeOptions, RunCodeRejected, RunCodeTool, RunCodeValue } from './run-code-types.js';
import { createSpillStore, isSharedSpillStore, recordingSpillStore } from './spill-store.js';
import { bindSpillRead, createSpillReadTool } from './spill-read-tool.js';
import { resolveTypecheckLimits, typecheckThread } from './typecheck-thread.js';
import { resolveTypecheckCache } from './typecheck-cache.js';

export type { CallCounts, ProgramDiagnostic, RunCodeCall, RunCodeOptions, RunCodeRejected, RunCodeStats, RunCodeTool, RunCodeValue } from './run-code-types.js';
export { MAX_PROGRAM_CHARS } from './run-phases.js';

let toolInstances = 0;

const NO_TOOLS = { declarations: '', toolNames: new Map<string, string>() };

/** How long an aborted run_code call waits for its run to wind down before reporting the abort. */
const RUN_ABORT_GRACE_MS = 2_000;

/** Creates the `run_code` tool. */
export function createRunCodeTool(options: RunCodeOptions = {}): RunCodeTool {
  const limits = resolveRunLimits(options.limits);
  const { mode: isolation, strict } = resolveIsolation(options.isolation);
  const typecheckMode = options.typecheck ?? 'reject';
  if (!['reject', 'warn', 'off'].includes(typecheckMode)) throw new InvalidOptionError({ where: 'createRunCodeTool', option: 'typecheck', value: typecheckMode, expected: '"reject", "warn" or "off"' });
  const typecheckLimits = resolveTypecheckLimits(options.typecheckLimits);
  const typecheckCache = resolveTypecheckCache(options.typecheckCache);
  checkCapacity(options.capacity);
  const discovery = options.discovery ?? 'auto';
  if (!['auto', 'full', 'index'].includes(discovery)) throw new InvalidOptionError({ where: 'createRunCodeTool', option: 'discovery', value: discovery, expected: '"auto", "full" or "index"' });
  const describe = createDescriber({ limits, discovery, budget: resolveDescriptionBudget(options.descriptionBudget) });
  const osSandbox = checkOsSandboxOption({ osSandbox: options.osSandbox, isolation, runner: options.runner });
  const name = options.name ?? 'run_code';
  const spills = options.spills ?? createSpillStore();
  if (options.spillRead !== undefined && typeof options.spillRead !== 'boolean') throw new InvalidOptionError({ where: 'createRunCodeTool', option: 'spillRead', value: options.spillRead, expected: 'true or false' });
  const spillRead = createSpillReadTool({ spills, maxOutputBytes: limits.maxOutputBytes });
  let runner: Promise<ProgramRunner> | undefined = options.runner ? Promise.resolve(options.runner) : undefined;
  let knownHost = options.host;
  let describing = false;
  // Runs of one agent through this tool share isolates and sandbox processes; no other runs do.
  const toolKey = `run_code:${++toolInstances}`;
  const groupOf = (exec: ToolExecContext): string | undefined => runGroup(toolKey, exec);

  // Declarations for the current visible tool set, regenerated when it changes.
  let cached: { tools: readonly Tool[]; types: GeneratedToolTypes } | undefined;
  const typesFor = (host: ToolHost): GeneratedToolTypes => {
    const visible = visibleTools(host, name);
    if (cached && cached.tools.length === visible.length && cached.tools.every((t, i) => t === visible[i])) return cached.types;
    const types = toolTypesOf(visible);
    cached = { tools: visible, types };
    return types;
  };

  if (typecheckMode !== 'off' && options.warmup !== false) {
    const warm = setTimeout(() => {
      try {
        typecheckThread(typecheckLimits.memoryMb).warmup(knownHost ? typesFor(knownHost) : NO_TOOLS);
      } catch {
        // A failed warm-up only means the first check pays the cold start.
      }
    }, 0);
    warm.unref?.();
  }

  const durable = options.durable === undefined ? undefined : new DurableRuns(resolveDurableOptions(options.durable), {
    name,
    host: () => knownHost,
    group: groupOf,
    transpile: async (body) => {
      const program = await transpile({ code: body, body, lineOffset: 0 });
      return isRejected(program) ? undefined : program;
    },
  });

  /**
   * The report of a finished run. With a shared spill store the cap spills into a recording store
   * (it decides synchronously), and the spills are written to the shared one before the answer.
   */
  const reportSpilling = async (input: Omit<Parameters<typeof report>[0], 'spills'>): Promise<RunCodeValue> => {
    if (!isSharedSpillStore(spills)) return report({ ...input, spills });
    const recording = recordingSpillStore();
    const value = report({ ...input, spills: recording });
    await Promise.all([...recording.kept].map(([id, kept]) => spills.put(id, kept.text, kept.owner ? { owner: kept.owner } : {})));
    return value;
  };

  /** A durable run's outcome as run_code's value: the suspension, or the report of a finished run. */
  const durableValue = async (outcome: DurableOutcome, checked: Checked, exec: ToolExecContext, runner: ProgramRunner, startedAt: number): Promise<RunCodeValue | RunCodeSuspended> => {
    if (outcome.kind === 'suspended') return outcome.value;
    return reportSpilling({ finished: outcome.finished, program: outcome.program, checked, limits: outcome.limits, ...(exec.agent ? { agent: exec.agent } : {}), startedAt, osSandbox: runner.osSandbox === 'bubblewrap' ? 'bubblewrap' : 'none' });
  };

  const execute = async ({ code }: { code: string }, exec: ToolExecContext): Promise<RunCodeValue | RunCodeRejected | RunCodeSuspended> => {
    const startedAt = performance.now();
    knownHost ??= exec.host;
    // A resume (runCode.resume): the journaled program, replayed, then on live.
    const resuming = durable === undefined ? undefined : resumePlanOf(exec);
    if (resuming !== undefined) {
      const runner = await activeRunner();
      const outcome = await durable!.continue(resuming, exec, runner);
      const diagnostics = resuming.plan.run.diagnostics;
      return durableValue(outcome, { diagnostics: diagnostics ? [...diagnostics] : undefined, ms: 0 }, exec, runner, startedAt);
    }
    const types = typesFor(exec.host);
    const normalized = await normalize(code, typecheckLimits, exec.agent ? { agent: exec.agent.id } : {});
    if (isRejected(normalized)) return normalized;
    const checked = await typecheck(normalized, types, { mode: typecheckMode, limits: typecheckLimits, ...(typecheckCache ? { cache: typecheckCache } : {}) }, { ...(exec.agent ? { agent: exec.agent } : {}), wallMs: limits.wallMs });
    if (isRejected(checked)) return checked;
    const program = await transpile(normalized);
    if (isRejected(program)) return program;
    const runner = await activeRunner();
    if (durable !== undefined) {
      const outcome = await durable.start({ runner, program, code, body: normalized.body, lineOffset: normalized.lineOffset, diagnostics: checked.diagnostics, exec, limits, toolNames: types.toolNames, declarations: types.declarations });
      return durableValue(outcome, checked, exec, runner, startedAt);
    }
    const group = groupOf(exec);
    const finished = await run({ runner, program, exec, limits, toolNames: types.toolNames, ...(group !== undefined ? { group } : {}), ...(checked.queuedMs ? { wallSpentMs: checked.queuedMs } : {}) });
    return reportSpilling({ finished, program, checked, limits, ...(exec.agent ? { agent: exec.agent } : {}), startedAt, osSandbox: runner.osSandbox === 'bubblewrap' ? 'bubblewrap' : 'none' });
  };

  /** The runner, loaded on first use; a failed load is tried again on the next run. */
  const activeRunner = (): Promise<ProgramRunner> => {
    runner ??= loadRunner(isolation, options.capacity, osSandbox, strict);
    return runner.catch((err: unknown) => {
      runner = undefined;
      throw err;
    });
  };

  // Background runs: a job on the host; the run's own signal is the job's (it outlives the call).
  // startAsync: with a shared job store, a refusal (a limit) or a store failure is this call's error.
  const backgroundable = (args: { code: string; background?: boolean }, exec: ToolExecContext) => {
    if (!args.background) return execute(args, exec);
    return exec.host.jobs.startAsync({
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
    output: { render: (_args, value) => renderRunCode(value as JsonValue, limits.maxOutputBytes) },
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
            return describe({ types, tools: cached!.tools }, { searchTool: searchToolOf(knownHost)?.name, spillRead: spillReadToolOf(knownHost)?.name }).text;
          } catch {
            return base.description;
          } finally {
            describing = false;
          }
        },
      },
      spills: { value: spills, enumerable: false },
      resume: {
        enumerable: false,
        value: (resumeOptions: ResumeOptions) => {
          if (durable === undefined) return Promise.reject(new InvalidOptionError({ where: 'runCode.resume', option: 'durable', value: undefined, expected: 'createRunCodeTool({ durable: { store, keys } }) to resume runs' }));
          return durable.resume(resumeOptions);
        },
      },
      runResult: {
        enumerable: false,
        value: (o: { runId: string; agent?: AgentRef }) => (durable === undefined ? Promise.reject(notDurable('runCode.runResult')) : durable.result(o?.runId, o?.agent)),
      },
      issueResumeToken: {
        enumerable: false,
        value: (runId: string) => (durable === undefined ? Promise.reject(notDurable('runCode.issueResumeToken')) : durable.issueResumeToken(runId)),
      },
      toolsetFingerprint: {
        enumerable: false,
        value: () => {
          if (!knownHost) return undefined;
          const types = typesFor(knownHost);
          return toolsetFingerprint(types.declarations, types.toolNames);
        },
      },
      spillRead: { value: spillRead, enumerable: false },
      // Registered without `options.host`: learn the host now, so the description lists the tools
      // before the first run. spill_read comes with it (unless `spillRead: false`), and goes with it.
      [ON_REGISTER]: {
        enumerable: false,
        value: (host: ToolHost) => {
          knownHost ??= host;
          return options.spillRead === false ? undefined : bindSpillRead(host, tool, spillRead);
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


function notDurable(where: string): InvalidOptionError {
  return new InvalidOptionError({ where, option: 'durable', value: undefined, expected: 'createRunCodeTool({ durable: { store, keys } })' });
}

function checkCapacity(capacity: RunnerCapacity | undefined): void {
  if (capacity === undefined) return;
  const { maxProcesses, poolSize, runsPerProcess } = capacity;
  if (runsPerProcess !== undefined) checkRunsPerProcess(runsPerProcess, 'createRunCodeTool', 'capacity.runsPerProcess');
  if (maxProcesses !== undefined && !(Number.isSafeInteger(maxProcesses) && maxProcesses >= 1)) {
    throw new InvalidOptionError({ where: 'createRunCodeTool', option: 'capacity.maxProcesses', value: maxProcesses, expected: 'a whole number of at least 1' });
  }
  if (poolSize !== undefined && !(Number.isSafeInteger(poolSize) && poolSize >= 0)) {
    throw new InvalidOptionError({ where: 'createRunCodeTool', option: 'capacity.poolSize', value: poolSize, expected: 'a whole number of at least 0' });
  }
}
