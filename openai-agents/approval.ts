/**
 * `approval: 'framework'`: our `ask` in the Agents SDK's own human-in-the-loop flow, for direct
 * calls.
 *
 * First run: `needsApproval` runs `host.preflight` (lookup, arguments, listeners, guards; no
 * event, no channel, no body) and says true only for an `ask`. The SDK then stops the run with a
 * `RunToolApprovalItem` in `result.interruptions` and runs nothing. The app calls
 * `result.state.approve(item)` or `reject(item, { message })` (the state may cross processes with
 * `toString()` / `RunState.fromString(agent, text)`) and runs again with the state.
 *
 * Resume: the SDK runs an approved call without asking `needsApproval` again (after
 * `fromString` it evaluates it once more and ignores the answer). `execute` reads the person's
 * decision from the run's `RunContext` and hands it to `host.call` as `approved` evidence, which
 * answers the pipeline's `ask` once, for this call. Listeners and guards run again there, so a
 * guard added in between still denies, and the call is recorded whatever happened to it. A
 * rejected call never reaches `execute`: the SDK answers the model with the rejection message.
 *
 * Only a decision about this one call is evidence. The SDK's sticky `approve(item, {
 * alwaysApprove: true })` approves every later call of the tool in the run, which our rule
 * ("allowed once, never a rule") forbids: it is ignored. Such a call goes to `host.call` without
 * evidence, so the host's approval channel answers its `ask`, or it fails closed. A sticky
 * decision is told from a per-call one by asking the context about a call id that was never
 * made: only a sticky approval covers it. `reject(item, { alwaysReject: true })` stays the SDK's
 * own: later calls of that tool in the run are rejected before they reach `execute` (nothing
 * runs, and the host records nothing for them).
 *
 * Limits: `needsApproval` gets no call item, so a hosted program's call is preflighted as a
 * direct call; its real call runs with its provider-program origin, and an `ask` that only that
 * origin raises goes to the host's channel. Calls made by a run_code program never reach this
 * flow: no framework can pause its loop from inside a running tool, so they use the host's
 * channel.
 */
import type { RunContext } from '@openai/agents-core';
import type { AgentRef, ApprovalEvidence, ToolHost } from '../tools/index.js';

/** Our name for the Agents SDK in approval evidence and traces. */
export const FRAMEWORK = 'openai-agents';

const EVIDENCE: ApprovalEvidence = Object.freeze({ framework: FRAMEWORK });

/** The `needsApproval` of one tool: true exactly when the pipeline would ask. */
export function needsApprovalFor(host: ToolHost, toolName: string, agent: AgentRef | undefined) {
  return async (_runContext: RunContext, input: unknown, callId?: string): Promise<boolean> => {
    const decision = await host.preflight({ id: callId as string, name: toolName, args: input }, agent ? { agent } : {});
    return decision.type === 'ask';
  };
}

/**
 * Approval evidence for call `callId` when a person approved exactly this call in the run's
 * context (`state.approve(item)`), else undefined. `sdkToolName` is the tool's name in the SDK;
 * `neverCalledId` an id no call of the run has.
 */
export function approvalEvidence(runContext: RunContext | undefined, sdkToolName: string, callId: unknown, neverCalledId: string): ApprovalEvidence | undefined {
  if (runContext === undefined || typeof callId !== 'string' || callId === neverCalledId) return undefined;
  try {
    if (runContext.isToolApproved({ toolName: sdkToolName, callId }) !== true) return undefined;
    if (runContext.isToolApproved({ toolName: sdkToolName, callId: neverCalledId }) === true) return undefined;
    return EVIDENCE;
  } catch {
    return undefined;
  }
}
