/**
 * Reading the parts of `CallOptions` that say who a call is for and where it came from: the
 * agent, the origin and framework approval evidence. They reach the host from adapters, which
 * copy them out of framework and provider data, so each is read field by field, once (a getter
 * cannot show one value to the check and another to the use), and copied into a fresh frozen
 * object; a read that throws makes the part malformed, never an exception. A malformed part is
 * refused as `invalid-call` by the pipeline and by preflight alike, with the messages built here,
 * so the two can never disagree about a call.
 */
import { clipText, errorText } from './errors.js';
import { ValidationError } from './materialize.js';
import type { AgentRef, ApprovalEvidence, ToolOrigin } from './types.js';

/** Longest provider caller id recorded (Anthropic's and OpenAI's are tens of characters). */
const MAX_CALLER_ID = 512;
const MAX_FRAMEWORK = 64;
const MAX_APPROVAL_ID = 512;
const MAX_NOTE = 1000;

const PROVIDERS: ReadonlySet<unknown> = new Set(['anthropic', 'openai']);

/** Whether `agent` is `{ id: non-empty string, name?: string }`. Never throws. */
export function isAgentRef(agent: unknown): agent is AgentRef {
  try {
    if (typeof agent !== 'object' || agent === null) return false;
    const { id, name } = agent as { id?: unknown; name?: unknown };
    return typeof id === 'string' && id !== '' && (name === undefined || typeof name === 'string');
  } catch {
    return false;
  }
}

const boundedString = (value: unknown, max: number): value is string => typeof value === 'string' && value !== '' && value.length <= max;

/** The origin as a fresh frozen copy, or undefined when it is malformed. Never throws. */
export function readOrigin(origin: unknown): ToolOrigin | undefined {
  try {
    if (typeof origin !== 'object' || origin === null) return undefined;
    const { kind } = origin as { kind?: unknown };
    if (kind === 'model') return MODEL_ORIGIN;
    if (kind === 'ptc') {
      const { parentCallId, token } = origin as { parentCallId?: unknown; token?: unknown };
      if (typeof parentCallId !== 'string' || parentCallId === '' || typeof token !== 'string' || token === '') return undefined;
      return Object.freeze({ kind, parentCallId, token });
    }
    if (kind === 'provider-program') {
      const { provider, callerId } = origin as { provider?: unknown; callerId?: unknown };
      if (!PROVIDERS.has(provider) || !boundedString(callerId, MAX_CALLER_ID)) return undefined;
      return Object.freeze({ kind, provider: provider as 'anthropic' | 'openai', callerId });
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/** Approval evidence as a fresh frozen copy, or undefined when it is malformed. Never throws. */
export function readApprovalEvidence(approved: unknown): ApprovalEvidence | undefined {
  try {
    if (typeof approved !== 'object' || approved === null) return undefined;
    const { framework, approvalId, note } = approved as { framework?: unknown; approvalId?: unknown; note?: unknown };
    if (!boundedString(framework, MAX_FRAMEWORK)) return undefined;
    if (approvalId !== undefined && !boundedString(approvalId, MAX_APPROVAL_ID)) return undefined;
    if (note !== undefined && (typeof note !== 'string' || note.length > MAX_NOTE)) return undefined;
    return Object.freeze({ framework, ...(approvalId !== undefined ? { approvalId } : {}), ...(note !== undefined ? { note } : {}) });
  } catch {
    return undefined;
  }
}

/** The origin of a call that names none. */
export const MODEL_ORIGIN: ToolOrigin = Object.freeze({ kind: 'model' });

/** Messages of refused calls, shared by the pipeline and preflight. */
export const callProblems = {
  noId: (toolName: string, id: unknown) =>
    `The call to "${toolName}" has no id: ToolCall.id must be a non-empty string (got ${id === '' ? 'an empty string' : typeof id}).`,
  malformedAgent: (toolName: string) => `The call to "${toolName}" names a malformed agent: CallOptions.agent must be { id: a non-empty string, name?: a string }.`,
  malformedOrigin: (toolName: string) =>
    `The call to "${toolName}" names a malformed origin: CallOptions.origin must be { kind: 'model' }, { kind: 'ptc', parentCallId, token } (set by the bridge) or { kind: 'provider-program', provider: 'anthropic' | 'openai', callerId: a non-empty string of at most ${MAX_CALLER_ID} characters }.`,
  malformedApproval: (toolName: string) =>
    `The call to "${toolName}" carries malformed approval evidence: CallOptions.approved must be { framework: 1-${MAX_FRAMEWORK} characters, approvalId?: 1-${MAX_APPROVAL_ID} characters, note?: at most ${MAX_NOTE} characters }.`,
  approvalFromProgram: (toolName: string) =>
    `The call to "${toolName}" comes from a PTC program and carries framework approval: a program's calls are approved through the host's approval channel only.`,
  unknownTool: (toolName: string, available: readonly string[]) => `Unknown tool "${toolName}". Available tools: ${available.length ? available.join(', ') : '(none)'}.`,
  invalidArgs: (toolName: string, err: unknown) =>
    `Invalid arguments for "${toolName}": ${ValidationError.isInstance(err) ? err.message : `args could not be read (${clipText(errorText(err))})`}`,
} as const;
