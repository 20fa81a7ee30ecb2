/**
 * The AI SDK, ai 6 or ai 7, for the adapter tests: the modules (loaded so that the adapter's own
 * `import 'ai'` gets the same major), scripted model steps for `MockLanguageModelV3`, and the
 * contract driver over generateText or streamText.
 */
import { vi } from 'vitest';
import type { AdapterDriver, RunOptions, ScriptedCall, SeenResult, TurnOutcome } from '../adapter-contract.js';

type Ai = typeof import('ai');
type AiTest = typeof import('ai/test');
type Adapter = typeof import('../../ai-sdk/index.js');

/** One major of the AI SDK and the adapter bound to it. */
export interface AiSdkModules {
  readonly label: 'ai 7' | 'ai 6';
  readonly ai: Ai;
  readonly test: AiTest;
  readonly adapter: Adapter;
  /** `ai/package.json` version. */
  readonly version: string;
}

/**
 * Loads `ai` (7) or `ai6` (the npm alias of ai 6) and a fresh copy of the adapter whose
 * `import 'ai'` resolves to it. Call from a `beforeAll`: it resets the module registry.
 */
export async function loadAiSdk(major: 7 | 6): Promise<AiSdkModules> {
  vi.resetModules();
  if (major === 6) vi.doMock('ai', () => import('ai6'));
  else vi.doUnmock('ai');
  const ai = (major === 6 ? await import('ai6') : await import('ai')) as unknown as Ai;
  const test = (major === 6 ? await import('ai6/test') : await import('ai/test')) as unknown as AiTest;
  const adapter = await import('../../ai-sdk/index.js');
  const { createRequire } = await import('node:module');
  const version = (createRequire(import.meta.url)(major === 6 ? 'ai6/package.json' : 'ai/package.json') as { version: string }).version;
  return { label: major === 6 ? 'ai 6' : 'ai 7', ai, test, adapter, version };
}

export const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/** A model step that calls `calls` (the input as the JSON text a provider sends). */
export const toolStep = (calls: readonly ScriptedCall[]) => ({
  content: calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) })),
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});

/** A model step that answers with text. */
export const textStep = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] });

/** The same steps as stream chunks. */
export function toolStream(m: AiSdkModules, calls: readonly ScriptedCall[]) {
  return { stream: m.test.simulateReadableStream({ chunks: [...calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) })), { type: 'finish' as const, finishReason: { unified: 'tool-calls' as const, raw: undefined }, usage }] }) };
}
export function textStream(m: AiSdkModules, text: string) {
  return {
    stream: m.test.simulateReadableStream({
      chunks: [{ type: 'text-start' as const, id: 't' }, { type: 'text-delta' as const, id: 't', delta: text }, { type: 'text-end' as const, id: 't' }, { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage }],
    }),
  };
}

type PromptMessage = { role: string; content: unknown };

/** What the model read for each tool call in one prompt. */
export function seenInPrompt(prompt: readonly PromptMessage[] | undefined): Map<string, SeenResult> {
  const seen = new Map<string, SeenResult>();
  for (const message of prompt ?? []) {
    if (message.role !== 'tool' || !Array.isArray(message.content)) continue;
    for (const part of message.content as { type: string; toolCallId: string; output: { type: string; value?: unknown; reason?: string } }[]) {
      if (part.type !== 'tool-result') continue;
      const out = part.output;
      switch (out.type) {
        case 'text':
          seen.set(part.toolCallId, { form: 'result', text: out.value as string });
          break;
        case 'json':
          seen.set(part.toolCallId, { form: 'result', text: JSON.stringify(out.value) });
          break;
        case 'content':
          seen.set(part.toolCallId, { form: 'result', text: (out.value as { type: string; text?: string; mediaType?: string }[]).map((b) => (b.type === 'text' ? b.text : `[${b.type} ${b.mediaType}]`)).join('\n') });
          break;
        case 'error-text':
          seen.set(part.toolCallId, { form: 'error', text: out.value as string });
          break;
        case 'error-json':
          seen.set(part.toolCallId, { form: 'error', text: JSON.stringify(out.value) });
          break;
        case 'execution-denied':
          seen.set(part.toolCallId, { form: 'denied', text: out.reason ?? '' });
          break;
        default:
          throw new Error(`unexpected tool output type ${out.type}`);
      }
    }
  }
  return seen;
}

type AnyResult = {
  steps: { toolResults: { toolCallId: string; output: unknown }[] }[];
  content: { type: string; approvalId?: string; toolCall?: { toolCallId: string } }[];
  response: { messages: unknown[] };
  /** ai 7: every step's messages (its `response.messages` are the last step's only). */
  responseMessages?: unknown[];
};

/**
 * The contract driver: generateText (or streamText) with `stopWhen: stepCountIs(4)`, so the
 * model is asked again after the tools ran; approvals answered by a second call, with a fresh
 * tool set, the way an app handles a request after the person answered.
 */
export function aiSdkDriver(modules: () => AiSdkModules, mode: 'generate' | 'stream'): AdapterDriver {
  const go = async (m: AiSdkModules, options: RunOptions, input: { prompt: string } | { messages: unknown[] }, steps: 'tools' | 'text', calls: readonly ScriptedCall[]): Promise<TurnOutcome> => {
    const tools = m.adapter.toAiSdkTools(options.host, { agent: options.agent, approval: options.approval });
    const { ai } = m;
    let prompts: () => (readonly PromptMessage[])[];
    let result: AnyResult;
    const common = { tools, stopWhen: ai.stepCountIs(4), ...input, ...(options.signal ? { abortSignal: options.signal } : {}) } as const;
    if (mode === 'generate') {
      const model = new m.test.MockLanguageModelV3({ doGenerate: steps === 'tools' ? [toolStep(calls), textStep('done')] : [textStep('done')] });
      prompts = () => model.doGenerateCalls.map((c) => c.prompt as readonly PromptMessage[]);
      result = (await ai.generateText({ model, ...common } as Parameters<Ai['generateText']>[0])) as unknown as AnyResult;
    } else {
      const model = new m.test.MockLanguageModelV3({ doStream: steps === 'tools' ? [toolStream(m, calls), textStream(m, 'done')] : [textStream(m, 'done')] });
      prompts = () => model.doStreamCalls.map((c) => c.prompt as readonly PromptMessage[]);
      const stream = ai.streamText({ model, ...common, onError: () => {} } as Parameters<Ai['streamText']>[0]);
      // Drain the stream; a failed or aborted run then rejects the result promises read below.
      await stream.consumeStream();
      // All at once: a promise read and left unawaited would reject unhandled after an abort.
      const [stepResults, content, response, responseMessages] = await Promise.all([
        stream.steps,
        stream.content,
        stream.response,
        (stream as { responseMessages?: PromiseLike<unknown[]> }).responseMessages,
      ]);
      result = {
        steps: stepResults as unknown as AnyResult['steps'],
        content: content as unknown as AnyResult['content'],
        response: response as unknown as AnyResult['response'],
        ...(responseMessages ? { responseMessages } : {}),
      };
    }
    const asked = prompts();
    const seen = seenInPrompt(asked[steps === 'tools' ? 1 : 0]);
    const outputs = new Map(result.steps.flatMap((s) => s.toolResults.map((r) => [r.toolCallId, r.output] as const)));
    const requests = result.content.filter((p) => p.type === 'tool-approval-request');
    const pendingApprovals = requests.map((p) => p.toolCall!.toolCallId);
    const history = [...('prompt' in input ? [{ role: 'user', content: input.prompt }] : input.messages), ...(result.responseMessages ?? result.response.messages)];
    const outcome: TurnOutcome = {
      seen,
      outputs,
      pendingApprovals,
      ...(requests.length > 0
        ? {
            resume: (answers: ReadonlyMap<string, boolean>) => {
              const responses = requests.map((p) => {
                const approved = answers.get(p.toolCall!.toolCallId) === true;
                return { type: 'tool-approval-response', approvalId: p.approvalId, approved, ...(approved ? {} : { reason: 'the person said no' }) };
              });
              return go(m, { ...options, signal: undefined }, { messages: [...history, { role: 'tool', content: responses }] }, 'text', []);
            },
          }
        : {}),
    };
    return outcome;
  };
  return { run: (options) => go(modules(), options, { prompt: 'go' }, 'tools', options.calls) };
}
