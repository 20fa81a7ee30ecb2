/**
 * The OpenAI Agents SDK for the adapter tests: a tracing-free Runner, scripted model steps for
 * `ScriptedModel` from `@openai/agents-core/testing`, and readers of what the model was sent
 * next and what the app got.
 */
import { Agent, Runner, setTracingDisabled, type AgentInputItem, type Tool } from '@openai/agents-core';
import { assistantMessage, functionCall, ScriptedModel, type ScriptedModelInput } from '@openai/agents-core/testing';
import { agentsCallData, type AgentsCallData } from '../../openai-agents/index.js';

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
