/**
 * `approval: 'framework'`: our `ask` in the AI SDK's own tool-approval flow, for direct calls.
 *
 * First pass: `needsApproval` runs `host.preflight` (listeners and guards, no side effect of the
 * host's) and says true only for an `ask`, so the SDK ends the call with a
 * `tool-approval-request` and runs nothing. The app appends `response.messages` and a `tool`
 * message with a `tool-approval-response` and calls generateText again.
 *
 * Replay: the SDK runs an approved call before the first model step and hands `execute` the
 * messages that carry the answer. {@link approvalAnswer} reads it the way the SDK does (the
 * last message's responses, each matched to its request by `approvalId`, the first answer for
 * a call wins), and an approved call goes to `host.call` with `approved` evidence, which
 * answers the `ask` once. Listeners and guards run again there, so a guard added in between
 * still denies, and the call is recorded whatever happened to it. A rejected call never
 * reaches `execute`: the SDK answers it `execution-denied` itself.
 *
 * `needsApproval` says true again on the replay of an answered call (whatever preflight says
 * now): ai 6 re-asks it and turns an approval of a call that "no longer needs approval" into a
 * denial the host never sees; ai 7 runs it either way. So on both the host decides, and records.
 *
 * The evidence is only as good as the message history: when it comes from a client, set the
 * SDK's `experimental_toolApprovalSecret` so forged approvals are refused (ai 6.0.3xx and 7).
 * Calls made by a run_code program never reach this flow: no framework can pause its loop from
 * inside a running tool, so they use the host's approval channel.
 */
import type { AgentRef, ApprovalEvidence, ToolHost } from '../tools/index.js';

/** A person's answer to the SDK's approval request for one call. */
export interface ApprovalAnswer {
  readonly approvalId: string;
  readonly approved: boolean;
}

const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/**
 * The answer to call `toolCallId` in `messages` (client-supplied history: read defensively), or
 * undefined when the last message carries none.
 */
export function approvalAnswer(messages: unknown, toolCallId: string): ApprovalAnswer | undefined {
  try {
    if (!Array.isArray(messages)) return undefined;
    const last = obj(messages[messages.length - 1]);
    if (last?.role !== 'tool' || !Array.isArray(last.content)) return undefined;
    const requests = new Map<string, unknown>();
    for (const message of messages) {
      const m = obj(message);
      if (m?.role !== 'assistant' || !Array.isArray(m.content)) continue;
      for (const part of m.content) {
        const p = obj(part);
        if (p?.type === 'tool-approval-request' && typeof p.approvalId === 'string') requests.set(p.approvalId, p.toolCallId);
      }
    }
    for (const part of last.content) {
      const p = obj(part);
      if (p?.type !== 'tool-approval-response' || typeof p.approvalId !== 'string') continue;
      if (requests.get(p.approvalId) === toolCallId) return { approvalId: p.approvalId, approved: p.approved === true };
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/** Approval evidence for `host.call` when the messages approve this call. */
export function approvalEvidence(messages: unknown, toolCallId: string): ApprovalEvidence | undefined {
  const answer = approvalAnswer(messages, toolCallId);
  return answer?.approved ? Object.freeze({ framework: 'ai-sdk', approvalId: answer.approvalId }) : undefined;
}

/** The `needsApproval` of one tool: true for an `ask`, and for the replay of an answered call. */
export function needsApprovalFor(host: ToolHost, toolName: string, agent: AgentRef | undefined) {
  return async (input: unknown, options: { toolCallId: string; messages?: unknown }): Promise<boolean> => {
    if (approvalAnswer(options?.messages, options?.toolCallId) !== undefined) return true;
    const decision = await host.preflight({ id: options?.toolCallId, name: toolName, args: input }, agent ? { agent } : {});
    return decision.type === 'ask';
  };
}
