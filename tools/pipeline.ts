/**
 * The pipeline for one call (DESIGN.md steps 1-9). It never throws for a failed call: unknown
 * tool, invalid args, denial, a throwing body, an invalid value, a block — each is a
 * `ToolResult` with `isError`, so the model can read it and correct itself. Every call emits
 * `tool/call`, then `tool/decision` (policy, and approval after an ask) when it got that far,
 * then `tool/result`, in that order.
 */
import type { Tool, ToolExecContext } from './define-tool.js';
import { clipText, errorText } from './errors.js';
import { eventOrigin, type DecisionBy, type UnstampedEvent } from './events.js';
import type { HookLists } from './hooks.js';
import { toJson, type JsonValue } from './json.js';
import { materializeValue, tryMaterializeArgs, ValidationError } from './materialize.js';
import { applyPostExecute, type ResultDraft } from './post-execute.js';
import { decidePreExecute } from './pre-execute.js';
import { requestApproval, type ApprovalChannel } from './approval.js';
import { subscribeAbort } from './abort-subscription.js';
import { callProblems, isAgentRef, MODEL_ORIGIN, readApprovalEvidence, readOrigin } from './call-options.js';
import { renderContent, textContent } from './render.js';
import type { ToolHost } from './host.js';
import type { CallOptions, ToolCall, ToolErrorKind, ToolExecution, ToolOrigin, ToolResult } from './types.js';

/** What the pipeline needs from its host. */
export interface PipelineEnv {
  readonly host: ToolHost;
  readonly lookup: (name: unknown) => Tool | undefined;
  readonly toolNames: () => string[];
  readonly hooks: HookLists;
  readonly approval: ApprovalChannel | undefined;
  readonly approvalTimeoutMs: number;
  readonly emit: (event: UnstampedEvent) => void;
  readonly now: () => number;
}

const NEVER_ABORTED = new AbortController().signal;

/** A JSON copy of untrusted args for the log (prototype keys kept as data), or a note when they are not JSON. */
function loggableArgs(args: unknown): JsonValue {
  try {
    return toJson(args === undefined ? {} : args, '$', { prototypeKeys: 'keep' });
  } catch (err) {
    return { unloggable: errorText(err) };
  }
}

function freezeResult(result: ToolResult): ToolResult {
  return Object.freeze({ ...result, additionalContexts: Object.freeze([...result.additionalContexts]) });
}

/**
 * Runs one call through every step and returns its frozen result. `refusal`: the caller (a turn)
 * already knows the call must not run; it is recorded and refused as an `invalid-call`.
 */
export async function runPipeline(env: PipelineEnv, call: ToolCall, options: CallOptions = {}, refusal?: string): Promise<ToolResult> {
  const started = env.now();
  const callId = typeof call?.id === 'string' ? call.id : String(call?.id);
  const rawName: unknown = call?.name;
  const toolName = typeof rawName === 'string' ? rawName : String(rawName);
  const givenOrigin = options.origin;
  const givenApproval = options.approved;
  // A malformed origin is refused below; until then (and in its own record) the call is a model's.
  const origin = givenOrigin === undefined ? MODEL_ORIGIN : readOrigin(givenOrigin);
  const signal = options.signal ?? NEVER_ABORTED;
  const agent = options.agent;
  const logOrigin = eventOrigin(origin ?? MODEL_ORIGIN);

  const finish = (result: ToolResult, post: ResultDraft['applied'] = []): ToolResult => {
    const frozen = freezeResult(result);
    env.emit({
      type: 'tool/result',
      callId,
      toolName,
      isError: frozen.isError,
      ...(frozen.value !== undefined ? { value: frozen.value } : {}),
      content: frozen.content,
      additionalContexts: frozen.additionalContexts,
      ...(frozen.denied ? { denied: frozen.denied } : {}),
      ...(frozen.blocked ? { blocked: frozen.blocked } : {}),
      ...(frozen.error ? { error: frozen.error } : {}),
      post,
      durationMs: env.now() - started,
    });
    return frozen;
  };
  const failure = (kind: ToolErrorKind, message: string, extra: Partial<ToolResult> = {}): ToolResult =>
    finish({ callId, toolName, isError: true, content: textContent(message), additionalContexts: [], error: { kind, message }, ...extra });

  // Every event and result of a call is keyed by its id: a call without one cannot be audited.
  if (typeof call?.id !== 'string' || call.id === '') {
    env.emit({ type: 'tool/call', callId, toolName, args: loggableArgs(call?.args), argsValid: false, origin: logOrigin, ...(agent ? { agent } : {}) });
    return failure('invalid-call', callProblems.noId(toolName, call?.id));
  }

  if (refusal !== undefined) {
    env.emit({ type: 'tool/call', callId, toolName, args: loggableArgs(call?.args), argsValid: false, origin: logOrigin, ...(isAgentRef(agent) ? { agent } : {}) });
    return failure('invalid-call', refusal);
  }

  // Approval asks for the agent and jobs are scoped to it: a malformed one is refused, never
  // taken as "some agent" by one step and "no agent" by another.
  if (agent !== undefined && !isAgentRef(agent)) {
    env.emit({ type: 'tool/call', callId, toolName, args: loggableArgs(call?.args), argsValid: false, origin: logOrigin });
    return failure('invalid-call', callProblems.malformedAgent(toolName));
  }
  // Where a call came from, and a person's approval of it, decide what the trace says and
  // whether an ask is answered: a malformed one is refused, never read as "none".
  if (origin === undefined) {
    env.emit({ type: 'tool/call', callId, toolName, args: loggableArgs(call?.args), argsValid: false, origin: logOrigin, ...(agent ? { agent } : {}) });
    return failure('invalid-call', callProblems.malformedOrigin(toolName));
  }
  const approved = givenApproval === undefined ? undefined : readApprovalEvidence(givenApproval);
  if (givenApproval !== undefined && (approved === undefined || origin.kind === 'ptc')) {
    env.emit({ type: 'tool/call', callId, toolName, args: loggableArgs(call?.args), argsValid: false, origin: logOrigin, ...(agent ? { agent } : {}) });
    return failure('invalid-call', approved === undefined ? callProblems.malformedApproval(toolName) : callProblems.approvalFromProgram(toolName));
  }

  // 1. Look the tool up (own entries only).
  const tool = env.lookup(rawName);
  if (!tool) {
    env.emit({ type: 'tool/call', callId, toolName, args: loggableArgs(call?.args), argsValid: false, origin: logOrigin, ...(agent ? { agent } : {}) });
    return failure('unknown-tool', callProblems.unknownTool(toolName, env.toolNames()));
  }

  // 2. Materialize the arguments: validate, apply defaults, copy, deep-freeze.
  let args: JsonValue;
  try {
    const materialized = tryMaterializeArgs(tool.parameters, call.args);
    if (!materialized.ok) {
      env.emit({ type: 'tool/call', callId, toolName, args: materialized.sent ?? loggableArgs(call.args), argsValid: false, origin: logOrigin, ...(agent ? { agent } : {}) });
      return failure('invalid-args', callProblems.invalidArgs(toolName, materialized.error));
    }
    args = materialized.args;
  } catch (err) {
    env.emit({ type: 'tool/call', callId, toolName, args: loggableArgs(call.args), argsValid: false, origin: logOrigin, ...(agent ? { agent } : {}) });
    return failure('invalid-args', callProblems.invalidArgs(toolName, err));
  }
  env.emit({ type: 'tool/call', callId, toolName, args, argsValid: true, origin: logOrigin, ...(agent ? { agent } : {}) });
  const execution: ToolExecution = Object.freeze({ callId, toolName, args, ...(agent ? { agent } : {}), origin });

  if (signal.aborted) return failure('aborted', `The call to "${toolName}" was cancelled before it started.`);

  // 3-4. Pre-execute waterfall, then monotonic guards.
  const pre = await decidePreExecute(execution, env.hooks.preExecuteListeners, env.hooks.guards);
  const additionalContexts = [...pre.additionalContexts];
  const by: DecisionBy = pre.source;
  env.emit({
    type: 'tool/decision',
    callId,
    toolName,
    stage: 'policy',
    decision: pre.decision.type,
    by,
    ...(pre.decision.type !== 'allow' ? { reason: pre.decision.reason } : {}),
  });
  const deny = (deniedBy: 'listener' | 'guard' | 'approval', reason: string, index?: number) =>
    failure('denied', `The call to "${toolName}" was denied by ${deniedBy === 'listener' ? 'a policy listener' : deniedBy === 'guard' ? 'the guard' : 'the approver'}: ${reason}`, {
      denied: { by: deniedBy, reason, ...(index !== undefined ? { index } : {}) },
      additionalContexts,
    });
  if (pre.decision.type === 'deny') {
    const source = pre.source;
    return source.kind === 'guard' ? deny('guard', pre.decision.reason, source.index) : deny('listener', pre.decision.reason, source.kind === 'listener' ? source.index : undefined);
  }

  // 5. Ask: allowed once, or denied. A person who already approved this call in the framework's
  // own flow answered it: the channel is not asked again (guards and denials above still hold).
  if (pre.decision.type === 'ask') {
    const answer = approved
      ? { approved: true as const }
      : await requestApproval({
          channel: env.approval,
          agent,
          execution,
          reason: pre.decision.reason,
          signal,
          timeoutMs: env.approvalTimeoutMs,
        });
    env.emit({
      type: 'tool/decision',
      callId,
      toolName,
      stage: 'approval',
      decision: answer.approved ? 'allow' : 'deny',
      by: approved ? { kind: 'approval', via: 'framework', ...approved } : { kind: 'approval' },
      ...(answer.approved ? {} : { reason: answer.reason }),
    });
    if (!answer.approved) return deny('approval', answer.reason);
  }
  if (signal.aborted) return failure('aborted', `The call to "${toolName}" was cancelled before it started.`, { additionalContexts });

  // 6. The body inside the execute middleware. The tool gets a signal of its own, made when it
  // first reads it (most never do; an AbortSignal costs ~3 µs) and aborted with the caller's: a
  // tool that adds an abort listener and never removes it leaves it on this call's signal, not on
  // one every call shares.
  const exec = new CallContext(callId, toolName, agent, origin, env.host, signal);
  const draft: ResultDraft = { isError: false, additionalContexts, applied: [] };
  // Once the body's step is over, a middleware that kept `next` cannot run the body any more:
  // it would run outside the call, after its result, with no event recording it.
  let bodyStepOver = false;
  try {
    const chain = runMiddleware(env.hooks, execution, () => tool.execute(args, exec), () => bodyStepOver);
    const raw = await raceAbort(chain, signal, () => exec.abort(), tool.abortGraceMs ?? 0);
    bodyStepOver = true;
    if (raw === ABORTED) return failure('aborted', `The call to "${toolName}" was cancelled while running.`, { additionalContexts });
    // 7. Materialize the result.
    try {
      draft.value = materializeValue(tool.output.schema, raw);
    } catch (err) {
      const tooDeep = err instanceof RangeError && /call stack/i.test(err.message);
      if (!(err instanceof ValidationError) && !tooDeep) throw err;
      draft.isError = true;
      const why = tooDeep ? 'value: it is nested too deeply to copy' : (err as Error).message;
      draft.error = { kind: 'invalid-output', message: `"${toolName}" returned an invalid value: ${why}` };
    }
  } catch (err) {
    draft.isError = true;
    draft.error = { kind: 'execution', message: `"${toolName}" failed: ${clipText(errorText(err))}` };
  } finally {
    bodyStepOver = true;
  }

  // 8. Post-execute waterfall.
  const listeners = env.hooks.postExecuteListeners;
  if (listeners.length > 0) {
    const snapshot = (): ToolResult => {
      if (draft.content === undefined && !draft.isError) draft.content = safeRender(tool, args, draft, origin.kind === 'ptc');
      return freezeResult(resultOf(draft, callId, toolName));
    };
    await applyPostExecute({ tool, execution, listeners, draft, snapshot });
  }

  // 9. Render content from the final value and emit the result.
  if (draft.content === undefined && !draft.isError) draft.content = safeRender(tool, args, draft, origin.kind === 'ptc');
  return finish(resultOf(draft, callId, toolName), draft.applied);
}

/**
 * What a tool's `execute` gets. `signal` is a getter on the prototype: the call's own signal is
 * made on first read (an own accessor on each context, or a signal per call, cost 5 µs of every
 * call), and follows the caller's. Frozen; spreading it leaves `signal` behind (pass it on
 * explicitly).
 */
class CallContext implements ToolExecContext {
  declare readonly agent?: ToolExecContext['agent'];
  #caller: AbortSignal;
  #own: AbortController | undefined;

  constructor(
    readonly callId: string,
    readonly toolName: string,
    agent: ToolExecContext['agent'],
    readonly origin: ToolOrigin,
    readonly host: ToolHost,
    caller: AbortSignal,
  ) {
    if (agent) (this as { agent?: ToolExecContext['agent'] }).agent = agent;
    this.#caller = caller;
    Object.freeze(this);
  }

  get signal(): AbortSignal {
    if (this.#own === undefined) {
      this.#own = new AbortController();
      if (this.#caller.aborted) this.#own.abort(this.#caller.reason);
    }
    return this.#own.signal;
  }

  /** The caller aborted: so does the call's own signal, if the tool has it. */
  abort(): void {
    this.#own?.abort(this.#caller.reason);
  }
}

function safeRender(tool: Tool, args: JsonValue, draft: ResultDraft, deferJson: boolean): ResultDraft['content'] {
  try {
    return renderContent(tool, args, draft.value ?? null, deferJson);
  } catch (err) {
    draft.isError = true;
    delete draft.value;
    draft.error = { kind: 'render', message: `"${tool.name}" could not render its result: ${errorText(err)}` };
    return undefined;
  }
}

function resultOf(draft: ResultDraft, callId: string, toolName: string): ToolResult {
  const content = draft.content ?? textContent(draft.error?.message ?? '');
  return {
    callId,
    toolName,
    isError: draft.isError,
    ...(!draft.isError && draft.value !== undefined ? { value: draft.value } : {}),
    content,
    additionalContexts: draft.additionalContexts,
    ...(draft.blocked ? { blocked: draft.blocked } : {}),
    ...(draft.isError && draft.error ? { error: draft.error } : {}),
  };
}

/**
 * Composes the execute middleware around the body; first registered is outermost. Each `next`
 * runs once, and not at all once `over()` (the call's body step has ended).
 */
function runMiddleware(hooks: HookLists, execution: ToolExecution, body: () => unknown, over: () => boolean): Promise<unknown> {
  let next: () => Promise<unknown> = async () => body();
  const chain = hooks.middleware;
  for (let i = chain.length - 1; i >= 0; i--) {
    const middleware = chain[i]!;
    const inner = next;
    next = () => {
      let called = false;
      const once = () => {
        if (called) return Promise.reject(new Error(`execute middleware #${i} called next() twice`));
        if (over()) return Promise.reject(new Error(`execute middleware #${i} called next() after the call had ended`));
        called = true;
        return inner();
      };
      return Promise.resolve(middleware(execution, once));
    };
  }
  return next();
}

const ABORTED = Symbol('aborted');

/**
 * Resolves with the promise, or with ABORTED once the signal fired (the body may still run on;
 * `onAbort` passes the abort on to it): at once, or when the body settles within `graceMs`.
 */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, onAbort: () => void, graceMs: number): Promise<T | typeof ABORTED> {
  if (signal === NEVER_ABORTED) return promise;
  const aborted = (): Promise<typeof ABORTED> => {
    onAbort();
    const settled = promise.then(
      (): typeof ABORTED => ABORTED,
      (): typeof ABORTED => ABORTED,
    );
    if (graceMs <= 0) return Promise.resolve(ABORTED);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<typeof ABORTED>((resolve) => {
      timer = setTimeout(() => resolve(ABORTED), graceMs);
    });
    return Promise.race([settled, waited]).finally(() => clearTimeout(timer));
  };
  if (signal.aborted) return aborted();
  return new Promise((resolve, reject) => {
    const unsubscribe = subscribeAbort(signal, () => {
      resolve(aborted());
    });
    promise.then(
      (v) => {
        unsubscribe();
        resolve(v);
      },
      (e: unknown) => {
        unsubscribe();
        reject(e);
      },
    );
  });
}
