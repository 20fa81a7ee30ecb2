/**
 * A durable run's suspension as the framework adapters hand it to the app, and the resume that
 * puts its outcome back into the conversation (docs/agent-loop.md "Durable runs").
 *
 * The resume token is a secret of the app's. What a framework carries (step results, messages,
 * run state, artifacts) is stored, streamed to UIs and traced, so the adapters take the token
 * out of the value there ({@link splitSuspension}) and give the whole suspension to the app's
 * `onSuspended` only. The model reads run_code's one line, which never holds it.
 *
 * After a resume the conversation has already answered the call (with that line), and providers
 * take one result per call id, so the outcome goes back as a follow-up message
 * ({@link resumedText}): marked as the program's output, not the user's words.
 */
import type { DurableDecision } from './durable-call.js';
import type { JsonValue } from './json.js';
import { modelText } from './model-content.js';
import type { AgentRef, ToolResult } from './types.js';

/** A call of a suspended program that waits for a person. */
export interface SuspendedCall {
  /** Name it in the decisions: `{ approvalId, decision: 'allow-once' | 'deny' }`. */
  readonly approvalId: string;
  readonly toolName: string;
  readonly args: JsonValue;
  /** Why it asks (the policy's reason). */
  readonly reason: string;
}

/** A suspended durable run as an adapter gives it to the app's `onSuspended`. JSON: store it as is. */
export interface RunSuspension {
  /** The framework's id of the run_code call (ours too). */
  readonly toolCallId: string;
  /** The tool's name on the host (`run_code` unless renamed). */
  readonly toolName: string;
  readonly runId: string;
  readonly pending: readonly SuspendedCall[];
  /** When the run stops being resumable (ms since the epoch). */
  readonly expiresAt: number;
  /** For the resume. Keep it server-side: whoever holds it and the host's key can answer. */
  readonly resumeToken: string;
}

/** Called with every suspension an adapter's call ends in, before the framework sees the call's result. */
export type OnSuspended = (suspension: RunSuspension) => void | Promise<void>;

/** What `runCode.resume` is to the resume helpers (structural, so adapters need not load the runtime). */
export interface RunResumer {
  resume(options: { readonly token: string; readonly decisions: readonly DurableDecision[]; readonly agent?: AgentRef; readonly signal?: AbortSignal }): Promise<ToolResult>;
}

/** Options of the adapters' resume helpers. */
export interface ResumeRunOptions {
  /** One decision for every pending call. */
  readonly decisions: readonly DurableDecision[];
  /** The agent the run was for (the token is bound to it). */
  readonly agent?: AgentRef;
  readonly signal?: AbortSignal;
}

/** A resumed run: its result (token taken out), a new suspension if it asked again, and the follow-up text. */
export interface ResumedRun {
  /** run_code's result, as `host.call` gives it, the token taken out of its value. */
  readonly result: ToolResult;
  /** Set when the program asked again and the run is suspended anew: resume that one later. */
  readonly suspension?: RunSuspension;
  /** What the model reads in the follow-up message: the outcome, marked as the program's. */
  readonly text: string;
}

const record = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/**
 * The suspension in `result`, if it is one (run_code's `value.suspended`), and the result with
 * the token taken out of its value (`{ suspended: { runId, pending, expiresAt } }`). A result
 * that is not a suspension comes back as it was.
 */
export function splitSuspension(result: ToolResult): { readonly result: ToolResult; readonly suspension?: RunSuspension } {
  const s = result.isError ? undefined : record(record(result.value)?.suspended);
  if (!s || typeof s.resumeToken !== 'string' || typeof s.runId !== 'string' || !Array.isArray(s.pending) || typeof s.expiresAt !== 'number') return { result };
  const { resumeToken, ...shown } = s;
  const suspension: RunSuspension = { toolCallId: result.callId, toolName: result.toolName, runId: s.runId, pending: s.pending as SuspendedCall[], expiresAt: s.expiresAt, resumeToken };
  return { result: { ...result, value: { suspended: shown as JsonValue } }, suspension };
}

/**
 * Takes the suspension out of `result` and hands it to `onSuspended` (awaited, so the app can
 * store it before the model goes on; a throw fails the adapter's call as any throw would).
 */
export async function reportSuspension(result: ToolResult, onSuspended: OnSuspended | undefined): Promise<ToolResult> {
  const split = splitSuspension(result);
  if (split.suspension && onSuspended) await onSuspended(split.suspension);
  return split.result;
}

/**
 * Resumes `suspension` with `runCode.resume` and says what the model reads of the outcome.
 * Throws what `resume` throws (`RunResumeError` for a token it refuses, and so on).
 */
export async function resumeRun(runCode: RunResumer, suspension: RunSuspension, options: ResumeRunOptions): Promise<ResumedRun> {
  const { decisions, agent, signal } = options;
  const resumed = await runCode.resume({ token: suspension.resumeToken, decisions, ...(agent ? { agent } : {}), ...(signal ? { signal } : {}) });
  const { result, suspension: again } = splitSuspension(resumed);
  return { result, ...(again ? { suspension: again } : {}), text: resumedText(suspension, decisions, result, again !== undefined) };
}

/** The follow-up text: which call, what was decided, and what the program did then. */
export function resumedText(suspension: Pick<RunSuspension, 'toolCallId' | 'toolName' | 'runId' | 'pending'>, decisions: readonly DurableDecision[], result: ToolResult, suspendedAgain: boolean): string {
  const decided = suspension.pending
    .map((p) => {
      const d = decisions.find((x) => x.approvalId === p.approvalId);
      return `${p.toolName} ${d?.decision === 'allow-once' ? 'allowed' : d?.decision === 'deny' ? 'denied' : 'undecided'}`;
    })
    .join(', ');
  const outcome = suspendedAgain ? 'went on and is paused again' : result.isError ? 'went on and failed' : 'went on and finished';
  return `The program of your ${suspension.toolName} call ${suspension.toolCallId} (run ${suspension.runId}), paused for a person's decision, ${outcome} (${decided}). This is its output, not the user's words:\n${modelText(result)}`;
}
