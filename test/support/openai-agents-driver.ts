/**
 * The OpenAI Agents SDK for the adapter tests: a tracing-free Runner, scripted model steps for
 * `ScriptedModel` from `@openai/agents-core/testing`, and readers of what the model was sent
 * next and what the app got.
 */
import { Agent, RunState, Runner, setTracingDisabled, type AgentInputItem, type RunToolApprovalItem, type Tool } from '@openai/agents-core';
import { assistantMessage, functionCall, ScriptedModel, type ScriptedModelInput } from '@openai/agents-core/testing';
import { agentsCallData, toAgentsTools, type AgentsCallData } from '../../openai-agents/index.js';
import type { AdapterDriver, RunOptions, SeenResult, TurnOutcome } from '../adapter-contract.js';

// Tracing would try to export spans; the Runner option covers runs, this the global provider.
setTracingDisabled(true);

/** The runner every test uses: no tracing, no network. */
export const runner = new Runner({ tracingDisabled: true });

/** One call the scripted model makes (`caller` for a call from an OpenAI-hosted program). */
export interface ScriptedCall {
  readonly id: string;
  readonly name: string;
  /** An object (sent as its JSON) or the raw argument text. */
  readonly args: Record<string, unknown> | string;
  readonly caller?: { readonly type: 'program'; readonly callerId: unknown } | { readonly type: 'direct' };
}

/** A model step making `calls` (one item each, in order; a program item first for program callers). */
export function toolStep(calls: readonly ScriptedCall[]): ScriptedModelInput {
  const programs = [...new Set(calls.flatMap((c) => (c.caller?.type === 'program' && typeof c.caller.callerId === 'string' ? [c.caller.callerId] : [])))];
  return [
    ...programs.map((callId) => ({ type: 'program' as const, callId, code: 'await tools()', fingerprint: `fp-${callId}` })),
    ...calls.map((c) => ({ ...functionCall(c.name, c.args, { callId: c.id }), ...(c.caller ? { caller: c.caller } : {}) })),
  ] as ScriptedModelInput;
}

/** A model step answering with text. */
export const textStep = (text: string): ScriptedModelInput => [assistantMessage(text)];

/** The hosted tool that lets the model write programs (what `programmaticToolCallingTool()` of @openai/agents-openai returns). */
export const programmaticToolCalling: Tool = { type: 'hosted_tool', name: 'programmatic_tool_calling', providerData: { type: 'programmatic_tool_calling' } };

/** What the model was sent for one call. */
export interface SentResult {
  /** Every text part, joined by newlines; an image as `[image <url prefix>]`. */
  readonly text: string;
  /** The parts as sent (a string output counts as one text part). */
  readonly parts: readonly { readonly type: string; readonly text?: string; readonly image?: unknown }[];
  readonly caller?: unknown;
}

/** The `function_call_result` items of a request's input, by call id. */
export function sentResults(input: string | readonly AgentInputItem[] | undefined): Map<string, SentResult> {
  const sent = new Map<string, SentResult>();
  if (!Array.isArray(input)) return sent;
  for (const item of input as readonly Record<string, unknown>[]) {
    if (item.type !== 'function_call_result') continue;
    const output = item.output;
    const parts = (typeof output === 'string' ? [{ type: 'text', text: output }] : Array.isArray(output) ? output : [output]) as SentResult['parts'];
    const text = parts.map((p) => (typeof p.text === 'string' ? p.text : `[image ${String(p.image).slice(0, 22)}]`)).join('\n');
    sent.set(item.callId as string, { text, parts, ...(item.caller ? { caller: item.caller } : {}) });
  }
  return sent;
}

/** Our record of each call that has an output item in the run, by call id. */
export function callData(result: { readonly newItems: readonly unknown[] }): Map<string, AgentsCallData> {
  const byId = new Map<string, AgentsCallData>();
  for (const item of result.newItems) {
    const data = agentsCallData(item);
    if (data) byId.set(data.callId, data);
  }
  return byId;
}

/** An agent over `tools` with a scripted model (one step of calls, then text by default). */
export function scriptedAgent(tools: readonly Tool[], steps: readonly ScriptedModelInput[]) {
  const model = new ScriptedModel(steps);
  const agent = new Agent({ name: 'assistant', instructions: 'Use the tools.', model, tools: [...tools] });
  return { model, agent };
}

interface RunLike {
  readonly newItems: readonly unknown[];
  readonly interruptions?: readonly RunToolApprovalItem[];
  readonly state: { toString(): string };
}

/** Runner.run, or a streamed run drained to its end (which rejects as the plain run would). */
async function runAgent(agent: Agent<unknown, 'text'>, input: string | RunState<unknown, Agent<unknown, 'text'>>, mode: 'run' | 'stream', signal?: AbortSignal): Promise<RunLike> {
  if (mode === 'run') return runner.run(agent, input, signal ? { signal } : {});
  const stream = await runner.run(agent, input, { stream: true, ...(signal ? { signal } : {}) });
  for await (const _event of stream);
  await stream.completed;
  if (stream.error) throw stream.error;
  return stream;
}

/**
 * The contract driver: Runner.run (or a streamed run) over a ScriptedModel whose first step
 * makes the calls and whose next answers with text; approvals answered as an app in another
 * process would (state.toString(), RunState.fromString with a fresh agent and tool list,
 * approve or reject, run again). The Responses API's function_call_result has no error flag, so
 * the form the model "saw" is read from our record of the call (customData.ptc): an error or a
 * denial is the error form (no denied form); a call the SDK itself rejected has no record and
 * is the error form too.
 */
export function agentsDriver(mode: 'run' | 'stream'): AdapterDriver {
  const outcomeOf = (result: RunLike, input: string | readonly AgentInputItem[] | undefined, options: RunOptions): TurnOutcome => {
    const data = callData(result);
    const seen = new Map<string, SeenResult>();
    for (const [id, sent] of sentResults(input)) seen.set(id, { form: data.get(id)?.isError === false ? 'result' : 'error', text: sent.text });
    const outputs = new Map<string, unknown>([...data].filter(([, d]) => !d.isError).map(([id, d]) => [id, d.value]));
    const interruptions = result.interruptions ?? [];
    return {
      seen,
      outputs,
      pendingApprovals: interruptions.map((i) => (i.rawItem as { callId: string }).callId),
      ...(interruptions.length > 0
        ? {
            resume: async (answers: ReadonlyMap<string, boolean>) => {
              const { model, agent } = scriptedAgent(toAgentsTools(options.host, { agent: options.agent, approval: options.approval }), [textStep('done')]);
              const state = await RunState.fromString(agent, result.state.toString());
              for (const item of state.getInterruptions()) {
                if (answers.get((item.rawItem as { callId: string }).callId) === true) state.approve(item);
                else state.reject(item, { message: 'the person said no' });
              }
              const resumed = await runAgent(agent, state, mode);
              return outcomeOf(resumed, model.calls[0]?.request.input, options);
            },
          }
        : {}),
    };
  };
  return {
    async run(options) {
      const calls = options.calls.map((c) => ({ id: c.id, name: c.name, args: c.args as Record<string, unknown> }));
      const { model, agent } = scriptedAgent(toAgentsTools(options.host, { agent: options.agent, approval: options.approval }), [toolStep(calls), textStep('done')]);
      const result = await runAgent(agent, 'go', mode, options.signal);
      return outcomeOf(result, model.calls[1]?.request.input, options);
    },
  };
}
