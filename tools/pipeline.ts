/**
 * The pipeline for one call (DESIGN.md steps 1-9). It never throws for a failed call: unknown
 * tool, invalid args, denial, a throwing body, an invalid value, a block — each is a
 * `ToolResult` with `isError`, so the model can read it and correct itself. Every call emits
 * `tool/call`, then `tool/decision` (policy, and approval after an ask) when it got that far,
 * then `tool/result`, in that order.
 */
import { clipText, errorText } from './errors.js';
import { eventOrigin, type DecisionBy, type EventOrigin, type UnstampedEvent } from './events.js';
import type { EventDraft } from './event-dispatch.js';
import type { HookLists } from './hooks.js';
import { toJson, type JsonValue } from './json.js';
import { ValidationError } from './materialize.js';
import { materializeArgsForCall } from './args-snapshot.js';
import { materializeResultValue } from './materialize-result.js';
import { applyPostExecute, type ResultDraft } from './post-execute.js';
import { decidePreExecute } from './pre-execute.js';
import { requestApproval, type ApprovalChannel } from './approval.js';
import { executeBody, NEVER_ABORTED, type BodyOutcome } from './execute-body.js';
import { callProblems, isAgentRef, MODEL_ORIGIN, readApprovalEvidence, readOrigin } from './call-options.js';
import { renderContent, textContent, withTextFor } from './render.js';
import { durableCallOf, type DurableCall } from './durable-call.js';
import { resultTextStreamOf, type ResultTextStream } from './result-text-stream.js';
import { approvalBudgetOf } from './approval-budget.js';
import type { Tool, ToolHost } from './tool-types.js';
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
  /** `emit` for a draft the pipeline built itself, `seq` and `time` first (stamped in place, not copied). */
  readonly emitDraft: (draft: EventDraft) => void;
  readonly now: () => number;
}

/** A JSON copy of untrusted args for the log (prototype keys kept as data), or a note when they are not JSON. */
function loggableArgs(args: unknown): JsonValue {
  try {
    return toJson(args === undefined ? {} : args, '$', { prototypeKeys: 'keep' });
  } catch (err) {
    return { unloggable: errorText(err) };
  }
}

function readCall(call: unknown): { id: unknown; name: unknown; args: unknown } {
  try {
    if (typeof call !== 'object' || call === null) return { id: undefined, name: undefined, args: undefined };
    const { id, name, args } = call as ToolCall;
    return { id, name, args };
  } catch {
    return { id: undefined, name: undefined, args: undefined };
  }
}

/** An origin as the pipeline uses it, and as its events record it. */
interface ReadOrigin {
  readonly origin: ToolOrigin;
  readonly logOrigin: EventOrigin;
}

const MODEL: ReadOrigin = { origin: MODEL_ORIGIN, logOrigin: Object.freeze(eventOrigin(MODEL_ORIGIN)) };

/**
 * Origins read before, by the object the caller passed: a PTC run passes one frozen origin for
 * all its calls, and reading it (and digesting its token for the log) once per run is enough.
 * Only a frozen object whose fields read are its own data properties is remembered: nothing can
 * change what it says afterwards. (The digest cache of tokenIdOf holds 64 tokens: with more runs
 * in flight than that, every call of every run hashed its token again.)
 */
const readOrigins = new WeakMap<object, ReadOrigin>();

/** `readOrigin` and `eventOrigin` of what the caller passed; undefined when it is malformed. */
function originOf(given: unknown): ReadOrigin | undefined {
  const known = typeof given === 'object' && given !== null ? readOrigins.get(given) : undefined;
  if (known !== undefined) return known;
  const origin = readOrigin(given);
  if (origin === undefined) return undefined;
  const read: ReadOrigin = { origin, logOrigin: Object.freeze(eventOrigin(origin)) };
  if (isSettled(given as object, Object.keys(origin))) readOrigins.set(given as object, read);
  return read;
}

/** Frozen, with each of `keys` an own data property: what it says cannot change. */
function isSettled(value: object, keys: readonly string[]): boolean {
  try {
    if (!Object.isFrozen(value)) return false;
    for (const key of keys) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor === undefined || !('value' in descriptor)) return false;
    }
    return true;
  } catch {
    return false;
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
  // The call is untrusted: each field is read once (a getter cannot show one value to a check
  // and another to the use), and a field that cannot be read or printed never makes this throw.
  const { id: rawId, name: rawName, args: rawArgs } = readCall(call);
  const callId = typeof rawId === 'string' ? rawId : errorText(rawId, '(an unprintable id)');
  const toolName = typeof rawName === 'string' ? rawName : errorText(rawName, '(an unprintable name)');
  const givenOrigin = options.origin;
  const givenApproval = options.approved;
  // A malformed origin is refused below; until then (and in its own record) the call is a model's.
  const readable = givenOrigin === undefined ? MODEL : originOf(givenOrigin);
  const maybeOrigin = readable?.origin;
  const signal = options.signal ?? NEVER_ABORTED;
  const agent = options.agent;
  const logOrigin = readable?.logOrigin ?? MODEL.logOrigin;

  // (Events and results are built property by property, in the order the trace records them:
  // no conditional spreads, each of which allocates and copies an object per call.)
  const finish = (result: ToolResult, post: ResultDraft['applied'] = []): ToolResult => {
    // `result` is always a fresh object of this call's, and nothing adds to its contexts after
    // this: frozen in place rather than copied.
    Object.freeze(result.additionalContexts);
    const frozen = Object.freeze(result);
    const event: Record<string, unknown> = { seq: 0, time: 0, type: 'tool/result', callId, toolName, isError: frozen.isError };
    if (frozen.value !== undefined) event.value = frozen.value;
    event.content = frozen.content;
    event.additionalContexts = frozen.additionalContexts;
    if (frozen.denied) event.denied = frozen.denied;
    if (frozen.blocked) event.blocked = frozen.blocked;
    if (frozen.error) event.error = frozen.error;
    event.post = post;
    event.durationMs = env.now() - started;
    env.emitDraft(event as unknown as EventDraft);
    return frozen;
  };
  const failure = (kind: ToolErrorKind, message: string, extra: Partial<ToolResult> = {}): ToolResult =>
    finish({ callId, toolName, isError: true, content: textContent(message), additionalContexts: [], error: { kind, message }, ...extra });
  /**
   * A call refused before its tool could run: `tool/call` with what was sent (`argsValid:
   * false`; the agent only when well-formed), then the failure. Every early refusal goes here.
   */
  const refuseEarly = (kind: ToolErrorKind, message: string, sent?: JsonValue): ToolResult => {
    env.emit({ type: 'tool/call', callId, toolName, args: sent ?? loggableArgs(rawArgs), argsValid: false, origin: logOrigin, ...(isAgentRef(agent) ? { agent: agent! } : {}) });
    return failure(kind, message);
  };

  // Every event and result of a call is keyed by its id: a call without one cannot be audited.
  if (typeof rawId !== 'string' || rawId === '') {
    return refuseEarly('invalid-call', callProblems.noId(toolName, rawId));
  }
  if (refusal !== undefined) return refuseEarly('invalid-call', refusal);
  // Approval asks for the agent and jobs are scoped to it: a malformed one is refused, never
  // taken as "some agent" by one step and "no agent" by another.
  if (agent !== undefined && !isAgentRef(agent)) {
    return refuseEarly('invalid-call', callProblems.malformedAgent(toolName));
  }
  // Where a call came from, and a person's approval of it, decide what the trace says and
  // whether an ask is answered: a malformed one is refused, never read as "none".
  if (maybeOrigin === undefined) return refuseEarly('invalid-call', callProblems.malformedOrigin(toolName));
  const origin = maybeOrigin;
  const approved = givenApproval === undefined ? undefined : readApprovalEvidence(givenApproval);
  if (givenApproval !== undefined && (approved === undefined || origin.kind === 'ptc')) {
    return refuseEarly('invalid-call', approved === undefined ? callProblems.malformedApproval(toolName) : callProblems.approvalFromProgram(toolName));
  }

  // A durable run's hooks apply to its own children only; a resume plan to any call (see durable-call.ts).
  const durableGiven = durableCallOf(options);
  const durable: DurableCall | undefined = durableGiven === undefined ? undefined : origin.kind === 'ptc' ? durableGiven : durableGiven.resume === undefined ? undefined : { resume: durableGiven.resume };

  // A run's budget of approval waits applies to its own children only.
  const approvalBudget = origin.kind === 'ptc' ? approvalBudgetOf(options) : undefined;

  // 1. Look the tool up (own entries only).
  const tool = env.lookup(rawName);
  if (!tool) {
    return refuseEarly('unknown-tool', callProblems.unknownTool(toolName, env.toolNames()));
  }

  // 2. Materialize the arguments: validate, apply defaults, copy, deep-freeze.
  let args: JsonValue;
  try {
    // (A program's parsed args were materialized once, for their execution mode: args-snapshot.ts.)
    const materialized = materializeArgsForCall(tool.parameters, rawArgs);
    if (!materialized.ok) return refuseEarly('invalid-args', callProblems.invalidArgs(toolName, materialized.error), materialized.sent);
    args = materialized.args;
  } catch (err) {
    return refuseEarly('invalid-args', callProblems.invalidArgs(toolName, err));
  }
  const callEvent: Record<string, unknown> = { seq: 0, time: 0, type: 'tool/call', callId, toolName, args, argsValid: true, origin: logOrigin };
  if (agent) callEvent.agent = agent;
  env.emitDraft(callEvent as unknown as EventDraft);
  const draftExecution: { -readonly [K in keyof ToolExecution]: ToolExecution[K] } = { callId, toolName, args } as ToolExecution;
  if (agent) draftExecution.agent = agent;
  draftExecution.origin = origin;
  const execution: ToolExecution = Object.freeze(draftExecution);

  if (signal.aborted) return failure('aborted', `The call to "${toolName}" was cancelled before it started.`);

  // 3-4. Pre-execute waterfall, then monotonic guards.
  const pre = await decidePreExecute(execution, env.hooks.preExecuteListeners, env.hooks.guards);
  const additionalContexts = [...pre.additionalContexts];
  const by: DecisionBy = pre.source;
  const policyEvent: Record<string, unknown> = { seq: 0, time: 0, type: 'tool/decision', callId, toolName, stage: 'policy', decision: pre.decision.type, by };
  if (pre.decision.type !== 'allow') policyEvent.reason = pre.decision.reason;
  env.emitDraft(policyEvent as unknown as EventDraft);
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
  // In a durable run, a person's decision given to resume answers it; the channel may defer it.
  const decided = durable?.decision;
  if (pre.decision.type === 'ask' || decided?.decision === 'deny') {
    const reason = pre.decision.type === 'ask' ? pre.decision.reason : 'the person who decided this call denied it';
    const answer = decided
      ? decided.decision === 'allow-once'
        ? { approved: true as const }
        : { approved: false as const, reason: `denied by ${decided.by ? `${decided.by}, ` : ''}the person who decided (${reason})` }
      : approved
        ? { approved: true as const }
        : await requestApproval({
            channel: env.approval,
            agent,
            execution,
            reason,
            signal,
            timeoutMs: env.approvalTimeoutMs,
            ...(approvalBudget !== undefined ? { budget: approvalBudget } : {}),
            ...(durable?.deferrable && durable.approvalId !== undefined ? { deferrable: { approvalId: durable.approvalId } } : {}),
          });
    const deferred = !answer.approved && answer.deferred === true;
    env.emit({
      type: 'tool/decision',
      callId,
      toolName,
      stage: 'approval',
      decision: answer.approved ? 'allow' : deferred ? 'defer' : 'deny',
      by: decided ? { kind: 'approval', via: 'durable', approvalId: decided.approvalId, ...(decided.by !== undefined ? { by: decided.by } : {}) } : approved ? { kind: 'approval', via: 'framework', ...approved } : { kind: 'approval' },
      ...(answer.approved ? {} : { reason: answer.reason }),
    });
    if (deferred) {
      return failure('deferred', `The call to "${toolName}" waits for a person's decision (${answer.reason}).`, { deferred: { approvalId: durable!.approvalId!, reason: answer.reason }, additionalContexts });
    }
    if (!answer.approved) return deny('approval', answer.reason);
  }
  if (signal.aborted) return failure('aborted', `The call to "${toolName}" was cancelled before it started.`, { additionalContexts });
  // A durable run records the call's start before its body runs (write-ahead).
  if (durable?.beforeBody !== undefined) {
    try {
      await durable.beforeBody();
    } catch (err) {
      return failure('execution', `The call to "${toolName}" did not run: its start could not be recorded (${clipText(errorText(err))}).`, { additionalContexts });
    }
    if (signal.aborted) return failure('aborted', `The call to "${toolName}" was cancelled before it started.`, { additionalContexts });
  }

  // 6. The body inside the execute middleware (execute-body.ts), then 7. materialize the result.
  const draft: ResultDraft = { isError: false, additionalContexts, applied: [] };
  let body: BodyOutcome | undefined;
  try {
    body = await executeBody({ tool, args, execution, hooks: env.hooks, host: env.host, signal, ...(durable ? { durable } : {}) });
  } catch (err) {
    draft.isError = true;
    draft.error = { kind: 'execution', message: `"${toolName}" failed: ${clipText(errorText(err))}` };
  }
  if (body?.aborted) return failure('aborted', `The call to "${toolName}" was cancelled while running.`, { additionalContexts });
  if (body) {
    // A large value is materialized in slices (materialize-result.ts): awaited only then. Its
    // text is streamed to a program's sandbox process only when no post-execute listener can
    // withhold it (result-text-stream.ts).
    const stream = origin.kind === 'ptc' && env.hooks.postExecuteListeners.length === 0 ? resultTextStreamOf(options) : undefined;
    const large = materializeResult(tool, body.raw, draft, withTextFor(tool, origin.kind === 'ptc'), stream);
    if (large !== undefined) await large;
  }

  // 8. Post-execute waterfall.
  const listeners = env.hooks.postExecuteListeners;
  if (listeners.length > 0) {
    const snapshot = (): ToolResult => {
      if (draft.content === undefined && !draft.isError) draft.content = safeRender(tool, args, draft, origin.kind === 'ptc');
      return freezeResult(resultOf(draft, callId, toolName));
    };
    await applyPostExecute({ tool, execution, listeners, draft, snapshot, forProgram: origin.kind === 'ptc' });
  }

  // 9. Render content from the final value and emit the result.
  if (draft.content === undefined && !draft.isError) draft.content = safeRender(tool, args, draft, origin.kind === 'ptc');
  return finish(resultOf(draft, callId, toolName), draft.applied);
}

/**
 * Step 7: the body's raw value copied, validated and frozen into the draft, or the draft made an
 * error; a promise (settled the same way) when the value is large enough to be done in slices.
 * `withText`: a large value also gets its JSON text made on the way ({@link withTextFor}).
 */
function materializeResult(tool: Tool, raw: unknown, draft: ResultDraft, withText: boolean, stream: ResultTextStream | undefined): Promise<void> | undefined {
  let value: JsonValue | Promise<JsonValue>;
  try {
    value = materializeResultValue(tool.output.schema, raw, withText, stream);
  } catch (err) {
    invalidResult(tool, draft, err);
    return undefined;
  }
  if (!(value instanceof Promise)) {
    draft.value = value;
    return undefined;
  }
  return value.then(
    (materialized) => {
      draft.value = materialized;
    },
    (err: unknown) => invalidResult(tool, draft, err),
  );
}

function invalidResult(tool: Tool, draft: ResultDraft, err: unknown): void {
  draft.isError = true;
  const tooDeep = err instanceof RangeError && /call stack/i.test(err.message);
  if (ValidationError.isInstance(err) || tooDeep) {
    const why = tooDeep ? 'value: it is nested too deeply to copy' : errorText(err);
    draft.error = { kind: 'invalid-output', message: `"${tool.name}" returned an invalid value: ${why}` };
  } else {
    draft.error = { kind: 'execution', message: `"${tool.name}" failed: ${clipText(errorText(err))}` };
  }
}

function safeRender(tool: Tool, args: JsonValue, draft: ResultDraft, forProgram: boolean): ResultDraft['content'] {
  try {
    return renderContent(tool, args, draft.value ?? null, forProgram);
  } catch (err) {
    draft.isError = true;
    delete draft.value;
    draft.error = { kind: 'render', message: `"${tool.name}" could not render its result: ${errorText(err)}` };
    return undefined;
  }
}

function resultOf(draft: ResultDraft, callId: string, toolName: string): ToolResult {
  const content = draft.content ?? textContent(draft.error?.message ?? '');
  const result: { -readonly [K in keyof ToolResult]: ToolResult[K] } = { callId, toolName, isError: draft.isError } as ToolResult;
  if (!draft.isError && draft.value !== undefined) result.value = draft.value;
  result.content = content;
  result.additionalContexts = draft.additionalContexts;
  if (draft.blocked) result.blocked = draft.blocked;
  if (draft.isError && draft.error) result.error = draft.error;
  return result;
}
