/**
 * Step 5: `ask` goes to the approval channel as "allowed once". The answer covers this call
 * only; nothing is remembered, so an identical call asks again. Without a channel or an agent
 * the call fails closed as `unavailable`. A channel that throws, answers anything but
 * 'allow-once', outlives the approval timeout or the call's abort signal: denied.
 * Waiting is asynchronous, so other calls of the same turn keep running meanwhile.
 */
import { clipText, errorText } from './errors.js';
import type { AgentRef, ToolExecution } from './types.js';
import type { ApprovalBudget } from './approval-budget.js';

/** What the approval channel is asked. */
export interface ApprovalRequest {
  readonly execution: ToolExecution;
  readonly reason: string;
  /** Aborted when the call no longer needs an answer (its abort, the timeout, or it settled). */
  readonly signal: AbortSignal;
  /**
   * True for a call of a durable run: the channel may answer `'defer'` (a person answers later,
   * through `runCode.resume`; the run suspends and frees its process). Elsewhere `'defer'` denies.
   */
  readonly deferrable?: boolean;
  /** For a deferrable call: the id its later decision names (`resume({ decisions: [{ approvalId }] })`). */
  readonly approvalId?: string;
}

/** The approval channel passed to `createToolHost`. */
export interface ApprovalChannel {
  request(req: ApprovalRequest): Promise<'allow-once' | 'deny' | 'defer'>;
}

/** The approver's answer, with a reason when denied; `deferred` for a durable run's call left to a person. */
export type ApprovalOutcome =
  | { readonly approved: true }
  | { readonly approved: false; readonly reason: string; readonly deferred?: false }
  | { readonly approved: false; readonly deferred: true; readonly reason: string };

/** Default time a person has to answer before the call is denied. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** Asks the channel once for this execution, failing closed on every abnormal path. */
export async function requestApproval(options: {
  channel: ApprovalChannel | undefined;
  agent: AgentRef | undefined;
  execution: ToolExecution;
  reason: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** The call belongs to a durable run and may be deferred, under this approval id. */
  deferrable?: { readonly approvalId: string };
  /** The run's budget of approval waits (approval-budget.ts): once spent, the ask is denied with its reason. */
  budget?: ApprovalBudget;
}): Promise<ApprovalOutcome> {
  const { channel, agent, execution, reason, signal, timeoutMs, deferrable, budget } = options;
  if (budget?.signal.aborted) return { approved: false, reason: `${budget.reason} (${reason})` };
  if (!channel) return { approved: false, reason: `unavailable: no approval channel to ask (${reason})` };
  if (!agent) return { approved: false, reason: `unavailable: no agent to ask for (${reason})` };
  if (signal.aborted) return { approved: false, reason: 'aborted before approval' };
  let refused: string | undefined;
  try {
    refused = budget?.admit?.();
  } catch (err) {
    refused = `unavailable: the run's share of waits could not be checked (${clipText(errorText(err))})`;
  }
  if (refused !== undefined) {
    // Not put to anyone: a durable run's call waits for a person out of the process instead.
    const why = `${clipText(String(refused))} (${reason})`;
    return deferrable ? { approved: false, deferred: true, reason: why } : { approved: false, reason: why };
  }

  const local = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  let onBudgetSpent: (() => void) | undefined;
  const stop = new Promise<ApprovalOutcome>((resolve) => {
    timer = setTimeout(() => {
      local.abort(new Error('approval timed out'));
      resolve({ approved: false, reason: `approval timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    onAbort = () => {
      local.abort(signal.reason);
      resolve({ approved: false, reason: 'aborted while waiting for approval' });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (budget) {
      onBudgetSpent = () => {
        local.abort(new Error(budget.reason));
        resolve({ approved: false, reason: `${budget.reason} (${reason})` });
      };
      budget.signal.addEventListener('abort', onBudgetSpent, { once: true });
    }
  });
  const ask = (async (): Promise<ApprovalOutcome> => {
    try {
      const answer = await channel.request(deferrable ? { execution, reason, signal: local.signal, deferrable: true, approvalId: deferrable.approvalId } : { execution, reason, signal: local.signal });
      if (answer === 'allow-once') return { approved: true };
      if (answer === 'defer') {
        return deferrable ? { approved: false, deferred: true, reason } : { approved: false, reason: `unavailable: the approver deferred the decision, but this call cannot wait for a later one (only a durable run's calls can) (${reason})` };
      }
      return { approved: false, reason: answer === 'deny' ? `denied by approver (${reason})` : `approval channel gave no valid answer (${reason})` };
    } catch (err) {
      return { approved: false, reason: `approval failed: ${clipText(errorText(err))}` };
    }
  })();
  try {
    return await Promise.race([ask, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    if (onBudgetSpent) budget?.signal.removeEventListener('abort', onBudgetSpent);
    if (!local.signal.aborted) local.abort(new Error('approval settled'));
  }
}
