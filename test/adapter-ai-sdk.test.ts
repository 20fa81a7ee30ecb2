/**
 * ptc-runtime/ai-sdk against the real AI SDK, ai 7 and ai 6 side by side (the devDependency
 * `ai6` is `npm:ai@6.x`), driven offline by the SDK's own MockLanguageModelV3. The shared adapter
 * contract runs over generateText and streamText on both; the cases below it are the AI SDK's
 * own: its denied and error forms, the tool-approval flow, nothing kept after a run.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ToolSet } from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import { decision, defineTool, PtcError, ToolSelectionError, type ToolResult } from '../tools/index.js';
import { contractHost, describeAdapterContract } from './adapter-contract.js';
import { aiSdkDriver, loadAiSdk, seenInPrompt, textStep, textStream, toolStep, toolStream, type AiSdkModules } from './support/ai-sdk-driver.js';

const agent = { id: 'agent-1' };

describe.each([7, 6] as const)('ai %i', (major) => {
  let m: AiSdkModules;
  beforeAll(async () => {
    m = await loadAiSdk(major);
    expect(m.version.startsWith(`${major}.`)).toBe(true);
  });

  const traits = { deniedForm: true, frameworkApproval: true, abortRejects: true, exposesValue: true } as const;
  describeAdapterContract('the adapter contract over generateText', aiSdkDriver(() => m, 'generate'), traits);
  describeAdapterContract('the adapter contract over streamText', aiSdkDriver(() => m, 'stream'), traits);

  /** generateText over `calls`, then text; the model's second prompt. */
  const generate = async (tools: unknown, calls: Parameters<typeof toolStep>[0], extra: Record<string, unknown> = {}) => {
    const model = new m.test.MockLanguageModelV3({ doGenerate: [toolStep(calls), textStep('done')] });
    const result = await m.ai.generateText({ model, tools: tools as ToolSet, prompt: 'go', stopWhen: m.ai.stepCountIs(4), ...extra });
    return { result, model, seen: seenInPrompt(model.doGenerateCalls[1]?.prompt as never) };
  };

  describe('when a call is denied', () => {
    it('gives the app a denial marker as the output (there is no value) and the model execution-denied', async () => {
      const h = contractHost();
      const { result, seen } = await generate(m.adapter.toAiSdkTools(h.host, { agent }), [{ id: 'd1', name: 'lookup', args: { q: 'secret' } }]);
      const output = result.steps[0]!.toolResults[0]!.output;
      expect(output).toEqual({ type: 'ptc-runtime/denied', by: 'guard', reason: 'secret terms are off limits', message: 'The call to "lookup" was denied by the guard: secret terms are off limits' });
      expect(m.adapter.isDeniedOutput(output)).toBe(true);
      expect(seen.get('d1')).toEqual({ form: 'denied', text: 'The call to "lookup" was denied by the guard: secret terms are off limits' });
    });
  });

  describe('when a call fails', () => {
    it('records a tool-error part carrying our result, the run itself resolves, and the model reads our text without a class-name prefix', async () => {
      const h = contractHost();
      const { result, seen } = await generate(m.adapter.toAiSdkTools(h.host, { agent }), [{ id: 'f1', name: 'fail', args: { message: 'disk on fire' } }]);
      const part = result.steps[0]!.content.find((p) => p.type === 'tool-error') as { error: unknown } | undefined;
      expect(m.adapter.AiSdkToolError.isInstance(part?.error)).toBe(true);
      expect(PtcError.isInstance(part?.error)).toBe(true);
      expect((part!.error as { result: ToolResult }).result).toMatchObject({ callId: 'f1', isError: true, error: { kind: 'execution', message: '"fail" failed: disk on fire' } });
      // ai 7 shows the model error.toString(), ai 6 error.message: the same text on both.
      expect(seen.get('f1')).toEqual({ form: 'error', text: '"fail" failed: disk on fire' });
      expect(result.text).toBe('done');
    });

    it('names an unknown tool the model made up, with the tools it has', async () => {
      const h = contractHost();
      const tools = m.adapter.toAiSdkTools(h.host, { agent, include: ['lookup'] });
      // The SDK refuses a call to a tool it was not given before any execute: that is not ours.
      const { result } = await generate(tools, [{ id: 'u1', name: 'deploy', args: { env: 'prod' } }]);
      expect(result.steps[0]!.content.some((p) => p.type === 'tool-error')).toBe(true);
      expect(h.events).toEqual([]);
    });
  });

  describe('when choosing tools', () => {
    it('exposes all, or include minus exclude, in registration order, with our schemas and descriptions', async () => {
      const h = contractHost();
      expect(Object.keys(m.adapter.toAiSdkTools(h.host))).toEqual(['lookup', 'deploy', 'note', 'fail', 'wait']);
      expect(Object.keys(m.adapter.toAiSdkTools(h.host, { include: ['wait', 'lookup', 'fail'], exclude: ['fail'] }))).toEqual(['lookup', 'wait']);
      const { model } = await generate(m.adapter.toAiSdkTools(h.host, { include: ['lookup'] }), [{ id: 'c', name: 'lookup', args: { q: 'a' } }]);
      const sent = model.doGenerateCalls[0]!.tools as { name: string; description: string; inputSchema: unknown }[];
      expect(sent).toEqual([{ type: 'function', name: 'lookup', description: 'Looks a term up.', inputSchema: h.host.schemas()[0]!.parameters, ...(sent[0] && 'providerOptions' in sent[0] ? { providerOptions: undefined } : {}) }]);
    });

    it('refuses a name it does not know, naming it and the tools there are', () => {
      const h = contractHost();
      let thrown: unknown;
      try {
        m.adapter.toAiSdkTools(h.host, { include: ['lookup', 'lokup'] });
      } catch (err) {
        thrown = err;
      }
      expect(ToolSelectionError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ option: 'include', unknownNames: ['lokup'], availableTools: ['lookup', 'deploy', 'note', 'fail', 'wait'] });
      expect(() => m.adapter.toAiSdkTools(h.host, { exclude: ['nope'] })).toThrow('exclude names tools the host does not have: "nope". Available tools: lookup, deploy, note, fail, wait.');
      expect(() => m.adapter.toAiSdkTools(h.host, { approval: 'auto' as never })).toThrow(/approval must be 'host' or 'framework'/);
    });
  });

  describe('when a result carries an image', () => {
    it('gives the model text and image blocks in order, in the form each major takes (ai 7 file, ai 6 image-data)', async () => {
      const h = contractHost();
      h.host.register(defineTool({ name: 'shot', description: 'A screenshot.', output: { render: () => [{ type: 'text', text: 'the page:' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] }, execute: () => ({ ok: true }) }));
      const { model, result } = await generate(m.adapter.toAiSdkTools(h.host, { include: ['shot'] }), [{ id: 's1', name: 'shot', args: {} }]);
      // Our output, as the step's messages keep it:
      const messages = result.steps[0]!.response.messages as { role: string; content: { output: unknown }[] }[];
      const image = major === 7 ? { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } } : { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' };
      expect(messages.find((msg) => msg.role === 'tool')!.content[0]!.output).toEqual({ type: 'content', value: [{ type: 'text', text: 'the page:' }, image] });
      // and as the SDK hands it to a v3 provider:
      const tool = (model.doGenerateCalls[1]!.prompt as { role: string; content: { output: unknown }[] }[]).find((p) => p.role === 'tool');
      expect(tool!.content[0]!.output).toMatchObject({ type: 'content', value: [{ type: 'text', text: 'the page:' }, { type: major === 7 ? 'file-data' : 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' }] });
      expect(result.steps[0]!.toolResults[0]!.output).toEqual({ ok: true });
    });
  });

  describe('when the model output is built again from messages alone', () => {
    it('shows the value as JSON or text, and a denial as execution-denied, without the run\'s state', async () => {
      const h = contractHost();
      const tools = m.adapter.toAiSdkTools(h.host) as Record<string, { toModelOutput: (o: object) => unknown }>;
      const lookup = tools.lookup!;
      expect(await lookup.toModelOutput({ toolCallId: 'old', input: { q: 'a' }, output: { q: 'a', hits: [] } })).toEqual({ type: 'json', value: { q: 'a', hits: [] } });
      expect(await lookup.toModelOutput({ toolCallId: 'old', input: {}, output: 'plain' })).toEqual({ type: 'text', value: 'plain' });
      const denied = { type: 'ptc-runtime/denied', by: 'guard', reason: 'no', message: 'The call to "lookup" was denied by the guard: no' };
      expect(await lookup.toModelOutput({ toolCallId: 'old', input: {}, output: denied })).toEqual({ type: 'execution-denied', reason: denied.message });
    });
  });

  describe('after a run', () => {
    const gc = (() => {
      setFlagsFromString('--expose-gc');
      return runInNewContext('gc') as () => void;
    })();
    const collected = async (refs: WeakRef<object>[]) => {
      for (let i = 0; i < 10 && refs.some((r) => r.deref() !== undefined); i++) {
        await new Promise((r) => setTimeout(r, 0));
        gc();
      }
      return refs.filter((r) => r.deref() !== undefined).length;
    };
    /** A host whose results the test can watch being collected. */
    const watched = () => {
      const h = contractHost();
      const refs: WeakRef<object>[] = [];
      const host = { ...h.host, call: async (...args: Parameters<typeof h.host.call>) => { const r = await h.host.call(...args); refs.push(new WeakRef(r)); return r; } };
      return { host, refs };
    };

    it('keeps no result once the SDK is done with the call (resolved)', async () => {
      const { host, refs } = watched();
      const tools = m.adapter.toAiSdkTools(host, { agent });
      for (let i = 0; i < 20; i++) await generate(tools, [{ id: `r${i}`, name: 'lookup', args: { q: `q${i}` } }, { id: `d${i}`, name: 'lookup', args: { q: 'secret' } }]);
      expect(refs).toHaveLength(40);
      expect(await collected(refs)).toBe(0);
      expect(Object.keys(tools)).toHaveLength(5); // the tool set itself is still in use
    });

    it('keeps no result once the SDK is done with the call (rejected)', async () => {
      const { host, refs } = watched();
      const tools = m.adapter.toAiSdkTools(host, { agent });
      // The mock model keeps every prompt (and so the calls' inputs): it must go with the run.
      const runOnce = async () => {
        let step = 0;
        const model = new m.test.MockLanguageModelV3({
          doGenerate: async () => {
            if (step++ === 0) return toolStep([{ id: 'x1', name: 'lookup', args: { q: 'a' } }]);
            throw new Error('model down');
          },
        });
        return m.ai.generateText({ model, tools, prompt: 'go', stopWhen: m.ai.stepCountIs(4), maxRetries: 0 }).then(() => 'resolved', (err: Error) => err.message);
      };
      expect(await runOnce()).toBe('model down');
      expect(refs).toHaveLength(1);
      expect(await collected(refs)).toBe(0);
    });
  });

  describe('when a run_code program asks for approval with approval: \'framework\'', () => {
    it('uses the host\'s channel: no framework can pause its loop inside a running tool', async () => {
      const asked: string[] = [];
      const h = contractHost({ runCode: true, approval: { request: async ({ execution }) => (asked.push(`${execution.toolName}:${execution.origin.kind}`), 'allow-once') } });
      try {
        const { result, seen } = await generate(m.adapter.toAiSdkTools(h.host, { agent, approval: 'framework' }), [{ id: 'r1', name: 'run_code', args: { code: 'return await tools.deploy({ env: "prod" });' } }]);
        expect(result.content.filter((p) => p.type === 'tool-approval-request')).toEqual([]);
        expect(asked).toEqual(['deploy:ptc']);
        expect(seen.get('r1')?.text).toContain('"deployed": "prod"');
      } finally {
        await h.close();
      }
    });
  });

  describe('with ToolLoopAgent', () => {
    it('runs our tools in the agent\'s loop', async () => {
      const h = contractHost();
      const model = new m.test.MockLanguageModelV3({ doGenerate: [toolStep([{ id: 'a1', name: 'lookup', args: { q: 'agent' } }]), textStep('done')] });
      const loop = new m.ai.ToolLoopAgent({ model, tools: m.adapter.toAiSdkTools(h.host, { agent }), stopWhen: m.ai.stepCountIs(4) });
      const result = await loop.generate({ prompt: 'go' });
      expect(result.text).toBe('done');
      expect(seenInPrompt(model.doGenerateCalls[1]!.prompt as never).get('a1')).toEqual({ form: 'result', text: 'lookup "agent": agent-1, agent-2' });
    });
  });

  describe('with streamText', () => {
    it('streams the tool result part with the canonical value and the model reads our content', async () => {
      const h = contractHost();
      h.host.hooks.preExecute((e) => (e.toolName === 'lookup' ? decision.allow({ additionalContext: 'note: streamed' }) : undefined));
      const model = new m.test.MockLanguageModelV3({ doStream: [toolStream(m, [{ id: 's1', name: 'lookup', args: { q: 'x' } }]), textStream(m, 'done')] });
      const stream = m.ai.streamText({ model, tools: m.adapter.toAiSdkTools(h.host, { agent }), prompt: 'go', stopWhen: m.ai.stepCountIs(4) });
      const parts: { type: string; output?: unknown }[] = [];
      for await (const part of stream.fullStream) parts.push(part as never);
      expect(parts.find((p) => p.type === 'tool-result')?.output).toEqual({ q: 'x', hits: ['x-1', 'x-2'] });
      // ai 6's streamText converts each result for the model twice (step messages, next prompt): both see our content.
      expect(seenInPrompt(model.doStreamCalls[1]!.prompt as never).get('s1')).toEqual({ form: 'result', text: 'lookup "x": x-1, x-2\nnote: streamed' });
      const messages = (await stream.steps)[0]!.response.messages as { role: string; content: { type: string; output?: unknown }[] }[];
      expect(messages.find((msg) => msg.role === 'tool')!.content[0]!.output).toEqual({ type: 'content', value: [{ type: 'text', text: 'lookup "x": x-1, x-2' }, { type: 'text', text: 'note: streamed' }] });
    });
  });

  // Feature detection: what ai 7 has and ai 6 lacks.
  const v7 = () => typeof (m.ai as { isStepCount?: unknown }).isStepCount === 'function';

  describe('ai 7 only', () => {
    it('fails closed when the app\'s own toolApproval skips our needsApproval (ai 6 has no toolApproval option)', async (ctx) => {
      if (!v7()) return ctx.skip('ai 6 has no generateText-level toolApproval');
      const h = contractHost();
      const { seen } = await generate(m.adapter.toAiSdkTools(h.host, { agent, approval: 'framework' }), [{ id: 'c1', name: 'deploy', args: { env: 'prod' } }], { toolApproval: () => 'not-applicable' });
      expect(seen.get('c1')?.form).toBe('denied');
      expect(seen.get('c1')?.text).toMatch(/unavailable: no approval channel/);
      expect(h.runs.deploy).toBe(0);
    });

    it('drives a v4-spec model (MockLanguageModelV4 is in ai 7\'s ai/test only)', async (ctx) => {
      const V4 = (m.test as unknown as { MockLanguageModelV4?: typeof m.test.MockLanguageModelV3 }).MockLanguageModelV4;
      if (!v7() || V4 === undefined) return ctx.skip('ai 6 has no MockLanguageModelV4');
      const h = contractHost();
      const model = new V4({ doGenerate: [toolStep([{ id: 'v4', name: 'lookup', args: { q: 'four' } }]), textStep('done')] });
      await m.ai.generateText({ model, tools: m.adapter.toAiSdkTools(h.host, { agent }), prompt: 'go', stopWhen: m.ai.stepCountIs(4) });
      expect(seenInPrompt(model.doGenerateCalls[1]!.prompt as never).get('v4')?.text).toBe('lookup "four": four-1, four-2');
    });
  });
});
