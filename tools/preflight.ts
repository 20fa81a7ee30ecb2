/**
 * `host.preflight(call)`: what the pipeline would decide about a call, without making it. It
 * looks the tool up, materializes the arguments and runs steps 3-4 (the pre-execute listeners,
 * then the guards) exactly as `host.call` does, through the same `decidePreExecute`, and stops
 * there: no event, no approval channel, no body.
 *
 * Why it exists: an agent framework with an approval flow of its own (AI SDK tool approval,
 * Agents interruptions) must learn *before* it runs a tool whether the call needs a person, so
 * it can pause its loop and ask in its own UI. The person's answer then comes back to
 * `host.call` as `CallOptions.approved`, which answers only step 5.
 *
 * Why it is safe: preflight decides nothing. The real call runs listeners and guards again, so a
 * guard added (or a state changed) between the two still denies; an `allow` here is no promise.
 * The price: listeners run twice per call a framework approves, so they must be pure (no
 * counting, no I/O they depend on). docs/pipeline.md says so.
 *
 * Like `host.call`, it never throws: a bad call is an `invalid` decision with the message the
 * pipeline would give.
 */
import { callProblems, isAgentRef, MODEL_ORIGIN, readOrigin } from './call-options.js';
import type { PipelineEnv } from './pipeline.js';
import { materializeArgs } from './materialize.js';
import { decidePreExecute } from './pre-execute.js';
import type { JsonValue } from './json.js';
import type { PreflightDecision, PreflightOptions } from './tool-types.js';
import type { AgentRef, ToolCall, ToolExecution } from './types.js';

const ALLOW: PreflightDecision = Object.freeze({ type: 'allow' });
const invalid = (kind: 'unknown-tool' | 'invalid-args' | 'invalid-call', message: string): PreflightDecision => Object.freeze({ type: 'invalid', kind, message });

/** Steps 1-4 of the pipeline for `call`, with no side effect of the host's. */
export async function preflightCall(env: Pick<PipelineEnv, 'lookup' | 'toolNames' | 'hooks'>, call: ToolCall, options: PreflightOptions = {}): Promise<PreflightDecision> {
  let callId: unknown;
  let rawName: unknown;
  let rawArgs: unknown;
  let agent: unknown;
  let givenOrigin: unknown;
  try {
    ({ id: callId, name: rawName, args: rawArgs } = call);
    ({ agent, origin: givenOrigin } = options ?? {});
  } catch {
    return invalid('invalid-call', 'The call could not be read.');
  }
  const toolName = typeof rawName === 'string' ? rawName : String(rawName);
  if (typeof callId !== 'string' || callId === '') return invalid('invalid-call', callProblems.noId(toolName, callId));
  if (agent !== undefined && !isAgentRef(agent)) return invalid('invalid-call', callProblems.malformedAgent(toolName));
  const origin = givenOrigin === undefined ? MODEL_ORIGIN : readOrigin(givenOrigin);
  if (origin === undefined) return invalid('invalid-call', callProblems.malformedOrigin(toolName));
  if (origin.kind === 'ptc') return invalid('invalid-call', `The call to "${toolName}" comes from a PTC program: preflight is for direct calls (a program's calls are approved through the host's approval channel).`);

  const tool = env.lookup(rawName);
  if (!tool) return invalid('unknown-tool', callProblems.unknownTool(toolName, env.toolNames()));
  let args: JsonValue;
  try {
    args = materializeArgs(tool.parameters, rawArgs);
  } catch (err) {
    return invalid('invalid-args', callProblems.invalidArgs(toolName, err));
  }
  const execution: ToolExecution = Object.freeze({ callId, toolName, args, ...(agent ? { agent: agent as AgentRef } : {}), origin });
  const pre = await decidePreExecute(execution, env.hooks.preExecuteListeners, env.hooks.guards);
  switch (pre.decision.type) {
    case 'allow':
      return ALLOW;
    case 'ask':
      return Object.freeze({ type: 'ask', reason: pre.decision.reason });
    default:
      return Object.freeze({ type: 'deny', by: pre.source.kind === 'guard' ? 'guard' : 'listener', reason: pre.decision.reason });
  }
}
