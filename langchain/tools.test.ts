import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool, ToolInputParsingException } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunCodeTool, type RunCodeTool } from '../runtime/index.js';
import { ToolSelectionError, type JsonObject } from '../tools/index.js';
import { passThroughSchema } from './input-schema.js';
import { HostStructuredTool, toLangChainTools } from './index.js';
import { contentText, resultEvent, settle, testHost, toolCall } from './test-support.js';

const AGENT = { id: 'agent-1' };

const byName = (tools: readonly HostStructuredTool[], name: string) => {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

const toolsOf = (h = testHost(), options = {}) => ({ ...h, tools: toLangChainTools(h.host, { agent: AGENT, ...options }) });

describe('a tool invoked with a LangChain tool call', () => {
  it('returns a ToolMessage for that call: our content, success, the canonical value as artifact', async () => {
    const { tools, events } = toolsOf();
    const message = await byName(tools, 'lookup').invoke(toolCall('call-1', 'lookup', { q: 'alpha' }));
    expect(message).toBeInstanceOf(ToolMessage);
    expect([message.tool_call_id, message.name, message.status, message.content]).toEqual(['call-1', 'lookup', 'success', 'lookup "alpha": alpha-1, alpha-2']);
    expect(message.artifact).toEqual({ q: 'alpha', hits: ['alpha-1', 'alpha-2'] });
    expect(message.artifact).toEqual(resultEvent(events, 'call-1')?.value);
    expect(events.filter((e) => 'callId' in e).map((e) => [e.type, 'callId' in e ? e.callId : ''])).toEqual([
      ['tool/call', 'call-1'],
      ['tool/decision', 'call-1'],
      ['tool/result', 'call-1'],
    ]);
  });

  it('runs for the agent it was given', async () => {
    const { tools, events } = toolsOf();
    await byName(tools, 'lookup').invoke(toolCall('call-a', 'lookup', { q: 'alpha' }));
    expect(events.find((e) => e.type === 'tool/call')).toMatchObject({ agent: { id: 'agent-1' } });
  });

  it('gives a call without an id one of its own, and the message carries it', async () => {
    const { tools, events } = toolsOf();
    const message = await byName(tools, 'lookup').invoke(toolCall(undefined, 'lookup', { q: 'alpha' }));
    expect(message.tool_call_id).toMatch(/^langchain-[0-9a-f-]{36}$/);
    expect(resultEvent(events, message.tool_call_id)?.isError).toBe(false);
  });

  it('invoked with bare arguments, still goes through the pipeline and resolves to a ToolMessage', async () => {
    const { tools, events } = toolsOf();
    const message = await byName(tools, 'lookup').invoke({ q: 'beta' });
    expect(message.status).toBe('success');
    expect(message.artifact).toEqual({ q: 'beta', hits: ['beta-1', 'beta-2'] });
    expect(resultEvent(events, message.tool_call_id)?.callId).toMatch(/^langchain-/);
  });

  it('shows the model our content with each additional context as a block of its own', async () => {
    const { tools } = toolsOf();
    const message = await byName(tools, 'lookup').invoke(toolCall('c-ctx', 'lookup', { q: 'ctx' }));
    expect(message.content).toEqual([
      { type: 'text', text: 'lookup "ctx": ctx-1, ctx-2' },
      { type: 'text', text: 'remember: ctx results are cached' },
    ]);
  });

  it('gives images as standard image blocks', async () => {
    const { tools } = toolsOf();
    const message = await byName(tools, 'snapshot').invoke(toolCall('c-img', 'snapshot', {}));
    expect(message.content).toEqual([
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'text', text: 'a 1 px picture' },
    ]);
    expect(message.artifact).toEqual({ width: 1 });
  });
});

describe('when a call fails', () => {
  it('returns a guard\'s denial as an error message with the reason; the body never runs', async () => {
    const { tools, runs, events } = toolsOf();
    const message = await byName(tools, 'lookup').invoke(toolCall('c-deny', 'lookup', { q: 'secret' }));
    expect(message.status).toBe('error');
    expect(contentText(message)).toContain('secret terms are off limits');
    expect(message.artifact).toBeUndefined();
    expect(runs.lookup).toBe(0);
    expect(resultEvent(events, 'c-deny')?.denied).toEqual({ by: 'guard', reason: 'secret terms are off limits', index: 0 });
  });

  it('fails an ask closed without an approval channel', async () => {
    const { tools, runs } = toolsOf();
    const message = await byName(tools, 'deploy').invoke(toolCall('c-ask', 'deploy', { env: 'prod' }));
    expect(message.status).toBe('error');
    expect(contentText(message)).toMatch(/unavailable: no approval channel to ask \(deploys need a person\)/);
    expect(runs.deploy).toBe(0);
  });

  it('fails an ask closed with a channel but no agent to ask for, and never asks', async () => {
    const asked: string[] = [];
    const h = testHost({ approval: { request: async ({ execution }) => (asked.push(execution.callId), 'allow-once') } });
    const message = await byName(toLangChainTools(h.host), 'deploy').invoke(toolCall('c-noagent', 'deploy', { env: 'prod' }));
    expect(message.status).toBe('error');
    expect(contentText(message)).toMatch(/unavailable/);
    expect([asked, h.runs.deploy]).toEqual([[], 0]);
  });

  it('runs an ask the host\'s channel allowed, once, for this call', async () => {
    const asked: string[] = [];
    const h = testHost({ approval: { request: async ({ execution }) => (asked.push(`${execution.callId} for ${execution.agent?.id}`), 'allow-once') } });
    const message = await byName(toolsOf(h).tools, 'deploy').invoke(toolCall('c-ok', 'deploy', { env: 'prod' }));
    expect([message.status, message.artifact]).toEqual(['success', { deployed: 'prod' }]);
    expect([asked, h.runs.deploy]).toEqual([['c-ok for agent-1'], 1]);
  });

  it('shows a tool\'s own error message', async () => {
    const { tools } = toolsOf();
    const message = await byName(tools, 'fail').invoke(toolCall('c-fail', 'fail', { message: 'disk on fire' }));
    expect([message.status, message.content]).toEqual(['error', '"fail" failed: disk on fire']);
  });

  it('returns the message rather than throwing, so ToolNode passes our text on, not its "Please fix your mistakes"', async () => {
    const { tools } = toolsOf();
    const out = await new ToolNode(tools).invoke({ messages: [new AIMessage({ content: '', tool_calls: [{ id: 'c-f', name: 'fail', args: { message: 'disk on fire' } }] })] });
    const [message] = out.messages as ToolMessage[];
    expect([message!.tool_call_id, message!.status, message!.content]).toEqual(['c-f', 'error', '"fail" failed: disk on fire']);
  });
});

describe('arguments: our pipeline is the one validator', () => {
  const parameters: JsonObject = { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['q'], additionalProperties: false };

  it('LangChain itself would refuse them, in its own words, before any tool body (why the schema lets input through)', async () => {
    const plain = tool(() => 'ran', { name: 'lookup', description: 'd', schema: parameters });
    await expect(plain.invoke(toolCall('c', 'lookup', { q: 5 }))).rejects.toThrow(ToolInputParsingException);
    await expect(plain.invoke(toolCall('c', 'lookup', { q: 5 }))).rejects.toThrow('Received tool input did not match expected schema');
  });

  it('reach our pipeline as the model sent them, and come back as our error naming each path', async () => {
    const { tools, runs, events } = toolsOf();
    const message = await byName(tools, 'lookup').invoke(toolCall('c-bad', 'lookup', { q: 5, limit: 0, extra: true }));
    expect(message.status).toBe('error');
    expect(contentText(message)).toMatch(/^Invalid arguments for "lookup": args\.q: .*args\.limit.*args.*extra/s);
    expect(events.find((e) => e.type === 'tool/call' && e.callId === 'c-bad')).toMatchObject({ argsValid: false, args: { q: 5, limit: 0, extra: true } });
    expect(runs.lookup).toBe(0);
  });

  it('arrive unchanged and uncoerced: a numeric string stays a string', async () => {
    const { tools, events } = toolsOf();
    await byName(tools, 'lookup').invoke(toolCall('c-str', 'lookup', { q: 'x', limit: '3' }));
    expect(events.find((e) => e.type === 'tool/call' && e.callId === 'c-str')).toMatchObject({ argsValid: false, args: { q: 'x', limit: '3' } });
  });

  it('are refused for a non-object too, as ours', async () => {
    const { tools } = toolsOf();
    const message = await byName(tools, 'lookup').invoke('just a string' as never);
    expect(message.status).toBe('error');
    expect(contentText(message)).toMatch(/^Invalid arguments for "lookup"/);
  });
});

describe('what the model is shown of a tool', () => {
  const stripSchemaLine = (schema: unknown) => {
    const { $schema: _, ...rest } = schema as Record<string, unknown>;
    return rest;
  };

  it('is our name, description and exact JSON Schema, whichever way LangChain converts it', () => {
    const h = testHost();
    const tools = toLangChainTools(h.host);
    const ours = h.host.schemas();
    expect(tools.map((t) => t.name)).toEqual(ours.map((s) => s.name));
    for (const [i, t] of tools.entries()) {
      expect(t.description).toBe(ours[i]!.description);
      expect(stripSchemaLine(toJsonSchema(t.schema))).toEqual(ours[i]!.parameters);
      const openAi = convertToOpenAITool(t);
      expect(openAi.function.name).toBe(ours[i]!.name);
      expect(stripSchemaLine(openAi.function.parameters)).toEqual(ours[i]!.parameters);
    }
  });

  it('keeps a draft-04 root id as $id instead of letting zod turn the schema into a $ref', () => {
    const draft4 = { id: 'http://example.com/s.json', type: 'object', properties: { a: { type: 'string' } } };
    expect(stripSchemaLine(toJsonSchema(passThroughSchema(draft4)))).toEqual({ $id: 'http://example.com/s.json', type: 'object', properties: { a: { type: 'string' } } });
    const both = { id: 'old', $id: 'new', type: 'object' };
    expect(stripSchemaLine(toJsonSchema(passThroughSchema(both)))).toEqual({ $id: 'new', type: 'object' });
  });

  it('includes run_code with the declarations in its description', async () => {
    const h = testHost();
    const runCode = createRunCodeTool({ host: h.host, isolation: 'isolate' });
    h.host.register(runCode);
    try {
      const t = byName(toLangChainTools(h.host), 'run_code');
      expect(t.description).toContain('lookup(args');
      expect(stripSchemaLine(toJsonSchema(t.schema))).toEqual(h.host.schemas().find((s) => s.name === 'run_code')!.parameters);
    } finally {
      await runCode.close();
    }
  });

  it('narrows to include minus exclude, and names a tool the host lacks', () => {
    const { host } = testHost();
    expect(toLangChainTools(host, { include: ['lookup', 'fail', 'note'], exclude: ['fail'] }).map((t) => t.name)).toEqual(['lookup', 'note']);
    expect(() => toLangChainTools(host, { include: ['lookup', 'nope'] })).toThrow(ToolSelectionError);
    expect(() => toLangChainTools(host, { exclude: ['nope'] })).toThrow('exclude names tools the host does not have: "nope"');
  });

  it('serializes to nothing of the host: LangChain hands tool.toJSON() to every callback and tracer', () => {
    const { host } = testHost();
    const [t] = toLangChainTools(host, { agent: { id: 'agent-with-a-secret-name' }, include: ['lookup'] });
    const json = JSON.stringify(t!.toJSON());
    expect(json).not.toContain('agent-with-a-secret-name');
    expect(json).toContain('HostStructuredTool');
  });
});

describe('abort', () => {
  it('LangChain\'s config.signal is the running tool\'s signal; the call resolves to an aborted error message', async () => {
    const { tools, signals, events } = toolsOf();
    const controller = new AbortController();
    const pending = byName(tools, 'wait').invoke(toolCall('c-wait', 'wait', {}), { signal: controller.signal });
    for (let i = 0; i < 200 && signals.length === 0; i++) await settle(1);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
    controller.abort(new Error('user pressed stop'));
    const message = await pending;
    expect(signals[0]!.aborted).toBe(true);
    expect(message.status).toBe('error');
    expect(resultEvent(events, 'c-wait')?.error?.kind).toBe('aborted');
  });
});

describe('scheduling the calls of a ToolNode', () => {
  const aiMessage = (calls: { id: string; name: string; args: Record<string, unknown> }[]) => new AIMessage({ content: '', tool_calls: calls });

  it('holds the calls after an exclusive one until it ends, and keeps call order in the messages', async () => {
    const h = toolsOf();
    const running = new ToolNode(h.tools).invoke({ messages: [aiMessage([{ id: 'a', name: 'note', args: { text: 'n1' } }, { id: 'b', name: 'lookup', args: { q: 'after' } }])] });
    await settle();
    expect(h.log).toEqual(['start note n1']);
    h.releaseNotes();
    const out = (await running).messages as ToolMessage[];
    expect(h.log).toEqual(['start note n1', 'end note n1', 'lookup after']);
    expect(out.map((m) => m.tool_call_id)).toEqual(['a', 'b']);
  });

  it('keeps one queue per ToolNode run: another run\'s calls do not wait for this run\'s exclusive call', async () => {
    const h = toolsOf();
    const node = new ToolNode(h.tools);
    const first = node.invoke({ messages: [aiMessage([{ id: 'a', name: 'note', args: { text: 'n1' } }])] });
    await settle();
    const second = (await node.invoke({ messages: [aiMessage([{ id: 'b', name: 'lookup', args: { q: 'other' } }])] })).messages as ToolMessage[];
    expect(second[0]!.status).toBe('success');
    expect(h.log).toEqual(['start note n1', 'lookup other']);
    h.releaseNotes();
    await first;
  });

  it('holds concurrent bare invocations (no ToolNode state) to the rule too, in one queue per tool set', async () => {
    const h = toolsOf();
    const note = byName(h.tools, 'note').invoke(toolCall('a', 'note', { text: 'n1' }));
    const lookup = byName(h.tools, 'lookup').invoke(toolCall('b', 'lookup', { q: 'after' }));
    await settle();
    expect(h.log).toEqual(['start note n1']);
    h.releaseNotes();
    await Promise.all([note, lookup]);
    expect(h.log).toEqual(['start note n1', 'end note n1', 'lookup after']);
  });
});

describe('in a loop with LangChain\'s scripted chat model', () => {
  let runCode: RunCodeTool | undefined;
  afterEach(async () => {
    await runCode?.close();
    runCode = undefined;
  });

  it('a run_code program\'s result, a denial and a tool error reach the model\'s next input as ToolMessages', async () => {
    const h = testHost();
    runCode = createRunCodeTool({ host: h.host, isolation: 'isolate', limits: { wallMs: 30_000 } });
    h.host.register(runCode);
    const tools = toLangChainTools(h.host, { agent: AGENT });
    const code = 'const a = await tools.lookup({ q: "alpha" }); return { n: a.hits.length, first: a.hits[0] };';
    const model = fakeModel()
      .respondWithTools([
        { id: 'p1', name: 'run_code', args: { code } },
        { id: 'p2', name: 'lookup', args: { q: 'secret' } },
        { id: 'p3', name: 'fail', args: { message: 'disk on fire' } },
      ])
      .respond(new AIMessage('done'));
    const bound = model.bindTools(tools);
    const messages: BaseMessage[] = [new HumanMessage('go')];
    const reply = (await bound.invoke(messages)) as AIMessage;
    messages.push(reply);
    // The loop LangChain's docs write: each tool call invoked on its tool, the messages appended.
    for (const call of reply.tool_calls ?? []) messages.push(await byName(tools, call.name).invoke({ ...call, type: 'tool_call' }));
    const final = await bound.invoke(messages);
    expect(final.content).toBe('done');
    const seen = (model.calls[1]!.messages as BaseMessage[]).filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(seen.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['p1', 'success'],
      ['p2', 'error'],
      ['p3', 'error'],
    ]);
    expect(seen[0]!.artifact).toMatchObject({ result: { n: 2, first: 'alpha-1' } });
    expect(contentText(seen[0]!)).toContain('"first": "alpha-1"');
    expect(contentText(seen[1]!)).toContain('secret terms are off limits');
    expect(contentText(seen[2]!)).toBe('"fail" failed: disk on fire');
    expect(h.events.filter((e) => e.type === 'tool/call' && e.origin.kind === 'ptc').length).toBe(1);
  }, 60_000);
});
