/**
 * Step 5: `ask` goes to the approval channel as "allowed once". The answer covers this call
 * only; nothing is remembered, so an identical call asks again. Without a channel or an agent
 * the call fails closed as `unavailable`. A channel that throws, answers anything but
 * 'allow-once', outlives the approval timeout or the call's abort signal: denied.
 * Waiting is asynchronous, so other calls of the same turn keep running meanwhile.
 */
import { clipText, errorText } from './errors.js';
import type { AgentRef, ToolExecution } from './types.js';

/** The approval channel passed to `createToolHost`. */
export interface ApprovalChannel {
  request(req: { execution: ToolExecution; reason: string; signal: AbortSignal }): Promise<'allow-once' | 'deny'>;
}

/** The approver's answer, with a reason when denied. */
export type ApprovalOutcome = { readonly approved: true } | { readonly approved: false; readonly reason: string };

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
}): Promise<ApprovalOutcome> {
  const { channel, agent, execution, reason, signal, timeoutMs } = options;
  if (!channel) return { approved: false, reason: `unavailable: no approval channel to ask (${reason})` };
  if (!agent) return { approved: false, reason: `unavailable: no agent to ask for (${reason})` };
  if (signal.aborted) return { approved: false, reason: 'aborted before approval' };

  const local = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
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
  });
  const ask = (async (): Promise<ApprovalOutcome> => {
    try {
      const answer = await channel.request({ execution, reason, signal: local.signal });
      if (answer === 'allow-once') return { approved: true };
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
    if (!local.signal.aborted) local.abort(new Error('approval settled'));
  }
}
