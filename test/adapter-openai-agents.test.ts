/**
 * ptc-runtime/openai-agents against the real Agents SDK (@openai/agents-core 0.20), driven
 * offline by its own ScriptedModel with tracing disabled. The shared adapter contract runs over
 * Runner.run and a streamed run; the cases below it are the SDK's own. Each checks three sides: what the
 * model was sent next (the scripted model's recorded request), what the tool bodies did (spies),
 * and what the host recorded (events).
 */
import { ModelBehaviorError, RunState, type FunctionTool } from '@openai/agents-core';
import { modelResponder } from '@openai/agents-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { agentsCallData, AgentsToolNameError, toAgentsTools } from '../openai-agents/index.js';
import { createRunCodeTool } from '../runtime/index.js';
import { createToolHost, decision, defineTool, ToolSelectionError, type ApprovalChannel, type ToolEvent, type ToolHost } from '../tools/index.js';
import { describeAdapterContract } from './adapter-contract.js';
import { agentsDriver, callData, programmaticToolCalling, runner, scriptedAgent, sentResults, textStep, toolStep, type ScriptedCall } from './support/openai-agents-driver.js';
import { lookupHits, lookupTool } from './support/lookup-tool.js';

const agentRef = { id: 'agent-1' };

// The Agents SDK has no denied form (a denial is the reason as output) and pauses for approval
// with interruptions. Aborting the run's signal rejects a plain run; a streamed run ends as
// cancelled instead (its stream and `completed` resolve), the tool aborted all the same.
const traits = { deniedForm: false, frameworkApproval: true, exposesValue: true } as const;
describeAdapterContract('the adapter contract over Runner.run', agentsDriver('run'), { ...traits, abortRejects: true });
describeAdapterContract('the adapter contract over a streamed run', agentsDriver('stream'), { ...traits, abortRejects: false });

interface Fixture {
  readonly host: ToolHost;
  readonly events: ToolEvent[];
  readonly runs: Record<string, number>;
  readonly waitSignals: AbortSignal[];
  /** [tool, 'start' | 'end'] in the order the bodies started and ended. */
  readonly timeline: string[];
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A host with spied tools and policy: lookup (parallel), deploy (asks), fail, wait, slow (exclusive), shot (an image). */
function fixture(options: { approval?: ApprovalChannel; runCode?: boolean } = {}): Fixture {
  const events: ToolEvent[] = [];
  const host = createToolHost({ ...(options.approval ? { approval: options.approval } : {}), onEvent: (e) => events.push(e) });
  const runs: Record<string, number> = { lookup: 0, deploy: 0, fail: 0, wait: 0, slow: 0, shot: 0 };
  const waitSignals: AbortSignal[] = [];
  const timeline: string[] = [];
  const tick = () => new Promise((r) => setTimeout(r, 15));
  host.register([
    lookupTool(async (args) => {
      runs.lookup!++;
      timeline.push(`lookup:${args.q}:start`);
      await tick();
      timeline.push(`lookup:${args.q}:end`);
      return lookupHits(args);
    }),
    defineTool({ name: 'deploy', description: 'Deploys.', parameters: { env: { type: 'string', required: true } }, execute: (args) => (runs.deploy!++, { deployed: args.env }) }),
    defineTool({ name: 'fail', description: 'Fails.', parameters: { message: { type: 'string', required: true } }, execute: (args) => { runs.fail!++; throw new Error(args.message); } }),
    defineTool({
      name: 'wait',
      description: 'Waits until cancelled.',
      execute: (_args, exec) => {
        runs.wait!++;
        waitSignals.push(exec.signal);
        return new Promise<string>((resolve) => exec.signal.addEventListener('abort', () => resolve('stopped'), { once: true }));
      },
    }),
    defineTool({
      name: 'slow',
      description: 'Writes (exclusive).',
      parameters: { tag: { type: 'string', required: true } },
      execute: async (args) => {
        runs.slow!++;
        timeline.push(`slow:${args.tag}:start`);
        await tick();
        timeline.push(`slow:${args.tag}:end`);
        return args.tag;
      },
    }),
    defineTool({
      name: 'shot',
      description: 'Takes a picture.',
      output: { schema: { type: 'object', properties: { bytes: { type: 'integer', required: true } } }, render: () => [{ type: 'text', text: 'a picture:' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] },
      execute: () => (runs.shot!++, { bytes: 8 }),
    }),
  ]);
  host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.ask('deploys need a person') : undefined));
  host.hooks.preExecute((e) => (e.toolName === 'lookup' && (e.args as { q: string }).q === 'ctx' ? decision.allow({ additionalContext: 'remember: ctx results are cached' }) : undefined));
  host.hooks.guard((e) => (e.toolName === 'lookup' && (e.args as { q: string }).q === 'secret' ? 'secret terms are off limits' : undefined));
  if (options.runCode) {
    const runCode = createRunCodeTool({ host, isolation: 'isolate', limits: { wallMs: 30_000 } });
    host.register(runCode);
    open.push(runCode);
  }
  return { host, events, runs, waitSignals, timeline };
}

const eventsOf = (events: readonly ToolEvent[], callId: string) => events.filter((e) => 'callId' in e && e.callId === callId);
const resultEvent = (events: readonly ToolEvent[], callId: string) => events.find((e) => e.type === 'tool/result' && e.callId === callId) as Extract<ToolEvent, { type: 'tool/result' }> | undefined;
const callEvent = (events: readonly ToolEvent[], callId: string) => events.find((e) => e.type === 'tool/call' && e.callId === callId) as Extract<ToolEvent, { type: 'tool/call' }> | undefined;

/** One step of `calls`, then text; the run, the model, what the second request carried. */
async function run(tools: FunctionTool[] | readonly FunctionTool[], calls: readonly ScriptedCall[], extra: { signal?: AbortSignal; hosted?: boolean } = {}) {
  const { model, agent } = scriptedAgent([...tools, ...(extra.hosted ? [programmaticToolCalling] : [])], [toolStep(calls), textStep('done')]);
  const result = await runner.run(agent, 'go', extra.signal ? { signal: extra.signal } : {});
  return { result, model, sent: sentResults(model.calls[1]?.request.input), data: callData(result) };
}

describe('when the model calls run_code', () => {
  it('puts the program\'s result in the next request as the function_call_result of our call id; its calls run through the pipeline', async () => {
    const f = fixture({ runCode: true });
    const code = 'const a = await tools.lookup({ q: "alpha" }); const b = await tools.lookup({ q: "beta", limit: 1 }); return { hits: [...a.hits, ...b.hits] };';
    const { result, model, sent, data } = await run(toAgentsTools(f.host, { agent: agentRef }), [{ id: 'call-run', name: 'run_code', args: { code } }]);
    expect(result.finalOutput).toBe('done');
    model.assertComplete();
    const value = resultEvent(f.events, 'call-run')?.value as { result: unknown };
    expect(value.result).toEqual({ hits: ['alpha-1', 'alpha-2', 'beta-1'] });
    expect(sent.get('call-run')?.text).toContain('"alpha-2"');
    expect(sent.get('call-run')?.text).toContain('"beta-1"');
    const children = f.events.filter((e) => e.type === 'tool/call' && e.origin.kind === 'ptc');
    expect(children.map((e) => (e.type === 'tool/call' && e.origin.kind === 'ptc' ? e.origin.parentCallId : ''))).toEqual(['call-run', 'call-run']);
    // The app reads the canonical value (what a program would get), beside the rendered output.
    expect(data.get('call-run')).toEqual({ callId: 'call-run', toolName: 'run_code', isError: false, value });
  });
});

describe('when the model calls a tool directly', () => {
  it('offers the model our JSON Schema as is (strict: false): the SDK adds no nullable fields and an omitted optional field stays absent', async () => {
    const f = fixture();
    const { model } = await run(toAgentsTools(f.host, { include: ['lookup'] }), [{ id: 'c1', name: 'lookup', args: { q: 'alpha' } }]);
    const sent = model.firstCall!.request.tools as unknown as { name: string; description: string; parameters: unknown; strict: boolean }[];
    expect(sent.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters, strict: t.strict }))).toEqual([{ name: 'lookup', description: 'Looks a term up.', parameters: f.host.schemas()[0]!.parameters, strict: false }]);
    expect(sent[0]).not.toHaveProperty('allowedCallers');
    expect(callEvent(f.events, 'c1')?.args).toEqual({ q: 'alpha' });
  });

  it('brings a guard\'s denial to the model with its reason behind a stable prefix, and the body never runs', async () => {
    const f = fixture();
    const { result, sent, data } = await run(toAgentsTools(f.host, { agent: agentRef }), [{ id: 'c-deny', name: 'lookup', args: { q: 'secret' } }]);
    expect(sent.get('c-deny')?.text).toBe('The call to "lookup" was denied by the guard: secret terms are off limits');
    expect(f.runs.lookup).toBe(0);
    expect(resultEvent(f.events, 'c-deny')?.denied).toEqual({ by: 'guard', reason: 'secret terms are off limits', index: 0 });
    expect(data.get('c-deny')).toMatchObject({ isError: true, denied: { by: 'guard', reason: 'secret terms are off limits' }, error: { kind: 'denied' } });
    expect(data.get('c-deny')).not.toHaveProperty('value');
    expect(result.finalOutput).toBe('done');
  });

  it('fails an ask closed when no agent is named, even with a channel that would approve', async () => {
    const asked: string[] = [];
    const f = fixture({ approval: { request: async ({ execution }) => (asked.push(execution.callId), 'allow-once') } });
    const { sent } = await run(toAgentsTools(f.host), [{ id: 'c-ask', name: 'deploy', args: { env: 'prod' } }]);
    expect(sent.get('c-ask')?.text).toMatch(/denied by the approver: unavailable/);
    expect([asked, f.runs.deploy]).toEqual([[], 0]);
  });

  it('runs an ask the host\'s channel approved, once', async () => {
    const asked: string[] = [];
    const f = fixture({ approval: { request: async ({ execution }) => (asked.push(execution.callId), 'allow-once') } });
    const { sent, data } = await run(toAgentsTools(f.host, { agent: agentRef }), [{ id: 'c-ok', name: 'deploy', args: { env: 'prod' } }]);
    expect(sent.get('c-ok')?.text).toBe(JSON.stringify({ deployed: 'prod' }, null, 2));
    expect(data.get('c-ok')?.value).toEqual({ deployed: 'prod' });
    expect([asked, f.runs.deploy]).toEqual([['c-ok'], 1]);
  });

  it('shows a tool\'s own error message, never the SDK\'s generic "An error occurred" text, and the run goes on', async () => {
    const f = fixture();
    const { result, sent, data } = await run(toAgentsTools(f.host, { agent: agentRef }), [{ id: 'c-fail', name: 'fail', args: { message: 'disk on fire' } }]);
    expect(sent.get('c-fail')?.text).toBe('"fail" failed: disk on fire');
    expect(data.get('c-fail')).toEqual({ callId: 'c-fail', toolName: 'fail', isError: true, error: { kind: 'execution', message: '"fail" failed: disk on fire' } });
    expect(result.finalOutput).toBe('done');
  });

  it('lets a host that throws (a bug, never a failed call) fail the run instead of hiding it behind the SDK\'s generic text', async () => {
    const f = fixture();
    const broken: ToolHost = { ...f.host, call: async () => { throw new Error('host bug'); } };
    await expect(run(toAgentsTools(broken, { agent: agentRef }), [{ id: 'c1', name: 'lookup', args: { q: 'alpha' } }])).rejects.toThrow('host bug');
  });

  it('refuses invalid arguments in our pipeline, naming each argument; the SDK validated nothing', async () => {
    const f = fixture();
    const { sent, data } = await run(toAgentsTools(f.host, { agent: agentRef }), [{ id: 'c-bad', name: 'lookup', args: { q: 5, limit: 0 } }]);
    expect(sent.get('c-bad')?.text).toMatch(/^Invalid arguments for "lookup": args\.q: .*\n?.*args\.limit/s);
    expect(callEvent(f.events, 'c-bad')).toMatchObject({ argsValid: false, args: { q: 5, limit: 0 } });
    expect(data.get('c-bad')?.error?.kind).toBe('invalid-args');
    expect(f.runs.lookup).toBe(0);
  });

  it('refuses a __proto__ key the model sends, naming its path (the SDK keeps it as an own key)', async () => {
    const f = fixture();
    const { sent } = await run(toAgentsTools(f.host, { agent: agentRef }), [{ id: 'c-proto', name: 'lookup', args: '{"q":"a","__proto__":{"polluted":true}}' }]);
    expect(sent.get('c-proto')?.text).toMatch(/^Invalid arguments for "lookup": .*__proto__/s);
    expect(f.runs.lookup).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('leaves arguments that are not JSON to the SDK: its own fixed message, and nothing reaches the host', async () => {
    const f = fixture();
    const { sent, data } = await run(toAgentsTools(f.host, { agent: agentRef }), [{ id: 'c-json', name: 'lookup', args: '{"q": "a"' }]);
    expect(sent.get('c-json')?.text).toBe('An error occurred while parsing tool arguments. Please try again with valid JSON.');
    expect([f.events, data.size]).toEqual([[], 0]);
  });

  it('keeps the results of two parallel calls of one step apart, for the model and for the app', async () => {
    const f = fixture();
    const { sent, data } = await run(toAgentsTools(f.host, { agent: agentRef }), [
      { id: 'p1', name: 'lookup', args: { q: 'alpha' } },
      { id: 'p2', name: 'lookup', args: { q: 'beta', limit: 3 } },
    ]);
    expect(sent.get('p1')?.text).toBe('lookup "alpha": alpha-1, alpha-2');
    expect(sent.get('p2')?.text).toBe('lookup "beta": beta-1, beta-2, beta-3');
    expect(data.get('p1')?.value).toEqual({ q: 'alpha', hits: ['alpha-1', 'alpha-2'] });
    expect(data.get('p2')?.value).toEqual({ q: 'beta', hits: ['beta-1', 'beta-2', 'beta-3'] });
    // Parallel-safe calls ran side by side.
    expect(f.timeline.slice(0, 2)).toEqual(['lookup:alpha:start', 'lookup:beta:start']);
  });

  it('runs an exclusive call as a barrier although the SDK starts every call of the step at once', async () => {
    const f = fixture();
    await run(toAgentsTools(f.host, { agent: agentRef }), [
      { id: 'e1', name: 'slow', args: { tag: 'one' } },
      { id: 'e2', name: 'lookup', args: { q: 'alpha' } },
      { id: 'e3', name: 'slow', args: { tag: 'two' } },
    ]);
    expect(f.timeline).toEqual(['slow:one:start', 'slow:one:end', 'lookup:alpha:start', 'lookup:alpha:end', 'slow:two:start', 'slow:two:end']);
  });

  it('brings additional contexts to the model as parts of their own after the result', async () => {
    const f = fixture();
    const { sent } = await run(toAgentsTools(f.host, { agent: agentRef }), [{ id: 'c-ctx', name: 'lookup', args: { q: 'ctx' } }]);
    expect(sent.get('c-ctx')?.parts).toEqual([
      { type: 'input_text', text: 'lookup "ctx": ctx-1, ctx-2' },
      { type: 'input_text', text: 'remember: ctx results are cached' },
    ]);
  });

  it('sends an image block as an image part', async () => {
    const f = fixture();
    const { sent } = await run(toAgentsTools(f.host, { agent: agentRef }), [{ id: 'c-img', name: 'shot', args: {} }]);
    expect(sent.get('c-img')?.parts).toEqual([
      { type: 'input_text', text: 'a picture:' },
      { type: 'input_image', image: 'data:image/png;base64,iVBORw0KGgo=' },
    ]);
  });

});

describe('when the run streams', () => {
  it('gives the same output and record as a run without streaming', async () => {
    const f = fixture();
    const { model, agent } = scriptedAgent(toAgentsTools(f.host, { agent: agentRef }), [toolStep([{ id: 's1', name: 'lookup', args: { q: 'alpha' } }]), textStep('done')]);
    const stream = await runner.run(agent, 'go', { stream: true });
    const streamedItems: unknown[] = [];
    for await (const event of stream) if (event.type === 'run_item_stream_event') streamedItems.push(event.item);
    await stream.completed;
    expect(stream.finalOutput).toBe('done');
    expect(model.calls.every((c) => c.streamed)).toBe(true);
    expect(sentResults(model.lastCall?.request.input).get('s1')?.text).toBe('lookup "alpha": alpha-1, alpha-2');
    expect(streamedItems.map(agentsCallData).filter(Boolean)).toEqual([{ callId: 's1', toolName: 'lookup', isError: false, value: { q: 'alpha', hits: ['alpha-1', 'alpha-2'] } }]);
  });
});

describe('when the model reuses a call id in one step', () => {
  it('the SDK refuses the step before any tool runs (so a call id names one call of a run)', async () => {
    const f = fixture();
    const { agent } = scriptedAgent(toAgentsTools(f.host, { agent: agentRef }), [toolStep([{ id: 'dup', name: 'lookup', args: { q: 'a' } }, { id: 'dup', name: 'lookup', args: { q: 'b' } }]), textStep('done')]);
    await expect(runner.run(agent, 'go')).rejects.toBeInstanceOf(ModelBehaviorError);
    expect([f.runs.lookup, f.events]).toEqual([0, []]);
  });
});

describe('when OpenAI\'s hosted program calls a tool', () => {
  const programCall = (callerId: unknown): ScriptedCall => ({ id: 'pc-1', name: 'lookup', args: { q: 'alpha' }, caller: { type: 'program', callerId } });

  it('with programmaticCallers, offers allowedCallers and runs the call through the pipeline as a provider-program call', async () => {
    const f = fixture();
    const tools = toAgentsTools(f.host, { agent: agentRef, include: ['lookup'], programmaticCallers: true });
    const { model, sent, data } = await run(tools, [programCall('prog_7')], { hosted: true });
    const offered = (model.firstCall!.request.tools as unknown as { name: string; allowedCallers?: unknown }[]).find((t) => t.name === 'lookup');
    expect(offered?.allowedCallers).toEqual(['direct', 'programmatic']);
    expect(callEvent(f.events, 'pc-1')?.origin).toEqual({ kind: 'provider-program', provider: 'openai', callerId: 'prog_7' });
    // The output goes back to the program that made the call.
    expect(sent.get('pc-1')).toMatchObject({ text: 'lookup "alpha": alpha-1, alpha-2', caller: { type: 'program', callerId: 'prog_7' } });
    expect(data.get('pc-1')?.value).toEqual({ q: 'alpha', hits: ['alpha-1', 'alpha-2'] });
  });

  it('lets policy see the origin: a guard on provider programs denies their calls only', async () => {
    const f = fixture();
    f.host.hooks.guard((e) => (e.origin.kind === 'provider-program' ? 'no hosted programs here' : undefined));
    const tools = toAgentsTools(f.host, { agent: agentRef, programmaticCallers: true });
    const { sent } = await run(tools, [programCall('prog_7'), { id: 'direct-1', name: 'lookup', args: { q: 'beta' } }], { hosted: true });
    expect(sent.get('pc-1')?.text).toBe('The call to "lookup" was denied by the guard: no hosted programs here');
    expect(sent.get('direct-1')?.text).toBe('lookup "beta": beta-1, beta-2');
    expect(f.runs.lookup).toBe(1);
  });

  it('refuses a program caller without a proper id as an invalid call, recorded, never run as the model\'s own', async () => {
    const f = fixture();
    // A raw function_call item whose program caller has no id at all.
    const { agent } = scriptedAgent([...toAgentsTools(f.host, { agent: agentRef, programmaticCallers: true }), programmaticToolCalling], [
      modelResponder(() => [{ type: 'function_call', callId: 'pc-2', name: 'lookup', arguments: '{"q":"a"}', caller: { type: 'program' } as never }]),
      textStep('done'),
    ]);
    await runner.run(agent, 'go');
    // One whose id is not a string.
    const bad = scriptedAgent([...toAgentsTools(f.host, { agent: agentRef, programmaticCallers: true }), programmaticToolCalling], [toolStep([programCall(42)]), textStep('done')]);
    await runner.run(bad.agent, 'go');
    expect([resultEvent(f.events, 'pc-2')?.error?.kind, resultEvent(f.events, 'pc-1')?.error?.kind]).toEqual(['invalid-call', 'invalid-call']);
    expect(resultEvent(f.events, 'pc-1')?.error?.message).toMatch(/malformed origin/);
    expect(f.runs.lookup).toBe(0);
  });

  it('without programmaticCallers, the SDK refuses the call before any tool runs: the run fails and the host records nothing', async () => {
    const f = fixture();
    const { agent } = scriptedAgent([...toAgentsTools(f.host, { agent: agentRef }), programmaticToolCalling], [toolStep([programCall('prog_7')]), textStep('done')]);
    await expect(runner.run(agent, 'go')).rejects.toBeInstanceOf(ModelBehaviorError);
    expect([f.runs.lookup, f.events]).toEqual([0, []]);
  });
});

describe('when a call carries a caller the SDK lets through as direct (issue 24, finding 10)', () => {
  it('refuses a caller type other than direct or program, recorded with its claimed origin; the body never runs', async () => {
    for (const programmaticCallers of [false, true]) {
      const f = fixture();
      const { agent } = scriptedAgent([...toAgentsTools(f.host, { agent: agentRef, programmaticCallers }), programmaticToolCalling], [
        modelResponder(() => [{ type: 'function_call', callId: 'pc-w', name: 'lookup', arguments: '{"q":"a"}', caller: { type: 'sandbox', callerId: 'prog_9' } as never }]),
        textStep('done'),
      ]);
      await runner.run(agent, 'go');
      expect(resultEvent(f.events, 'pc-w')?.error).toMatchObject({ kind: 'invalid-call', message: expect.stringContaining('names a caller of type "sandbox": only \'direct\' and \'program\' are callers') });
      expect(callEvent(f.events, 'pc-w')?.origin).toEqual({ kind: 'provider-program', provider: 'openai', callerId: 'prog_9' });
      expect(f.runs.lookup).toBe(0);
    }
  });
});

describe('with approval: \'framework\'', () => {
  const channel = () => {
    const asked: string[] = [];
    const approval: ApprovalChannel = { request: async ({ execution }) => (asked.push(execution.callId), 'allow-once') };
    return { asked, approval };
  };
  /** The first run: the model asks to deploy; the run pauses. */
  const pause = async (f: Fixture, calls: readonly ScriptedCall[] = [{ id: 'c-fw', name: 'deploy', args: { env: 'prod' } }]) => {
    const { agent, model } = scriptedAgent(toAgentsTools(f.host, { agent: agentRef, approval: 'framework' }), [toolStep(calls)]);
    const result = await runner.run(agent, 'go');
    model.assertComplete();
    return result;
  };
  /** The state carried to "another process": a fresh agent and tool list, the state from its string. */
  const resume = async (f: Fixture, text: string, decide: (state: RunState<unknown, never>) => void) => {
    const { agent, model } = scriptedAgent(toAgentsTools(f.host, { agent: agentRef, approval: 'framework' }), [textStep('done')]);
    const state = await RunState.fromString(agent, text);
    decide(state as never);
    const result = await runner.run(agent, state);
    return { result, sent: sentResults(model.lastCall?.request.input), data: callData(result) };
  };

  it('runs the approved call once after the state crossed toString/fromString, recorded as approved in the framework, the channel never asked', async () => {
    const { asked, approval } = channel();
    const f = fixture({ approval });
    const paused = await pause(f);
    const { result, sent, data } = await resume(f, paused.state.toString(), (state) => state.approve(state.getInterruptions()[0]!));
    expect(result.finalOutput).toBe('done');
    expect(sent.get('c-fw')?.text).toBe(JSON.stringify({ deployed: 'prod' }, null, 2));
    expect(data.get('c-fw')?.value).toEqual({ deployed: 'prod' });
    expect([f.runs.deploy, asked]).toEqual([1, []]);
    const decided = f.events.find((e) => e.type === 'tool/decision' && e.callId === 'c-fw' && e.stage === 'approval');
    expect(decided).toMatchObject({ decision: 'allow', by: { kind: 'approval', via: 'framework', framework: 'openai-agents' } });
  });

  it('never runs a call the person rejected: the model reads their message, the host records nothing', async () => {
    const f = fixture();
    const paused = await pause(f);
    const { sent } = await resume(f, paused.state.toString(), (state) => state.reject(state.getInterruptions()[0]!, { message: 'not on a Friday' }));
    expect(sent.get('c-fw')?.text).toBe('not on a Friday');
    expect([f.runs.deploy, f.events]).toEqual([0, []]);
  });

  it('does not interrupt for a call the pipeline denies or refuses: it runs, and the model reads why', async () => {
    const f = fixture();
    const { agent } = scriptedAgent(toAgentsTools(f.host, { agent: agentRef, approval: 'framework' }), [toolStep([{ id: 'c-deny', name: 'lookup', args: { q: 'secret' } }, { id: 'c-bad', name: 'deploy', args: {} }]), textStep('done')]);
    const result = await runner.run(agent, 'go');
    expect(result.interruptions).toEqual([]);
    expect(resultEvent(f.events, 'c-deny')?.denied?.by).toBe('guard');
    expect(resultEvent(f.events, 'c-bad')?.error?.kind).toBe('invalid-args');
  });

  it('leaves arguments that are not a JSON object to the SDK\'s rule: it interrupts without a preflight; approved, our pipeline refuses them', async () => {
    const f = fixture();
    const { agent, model } = scriptedAgent(toAgentsTools(f.host, { agent: agentRef, approval: 'framework' }), [
      toolStep([{ id: 'n-arr', name: 'lookup', args: '[1,2]' }, { id: 'n-json', name: 'lookup', args: '{"q":' }]),
      textStep('done'),
    ]);
    const paused = await runner.run(agent, 'go');
    expect(paused.interruptions.map((i) => (i.rawItem as { callId: string }).callId)).toEqual(['n-arr', 'n-json']);
    expect(f.events).toEqual([]);
    for (const item of paused.interruptions) paused.state.approve(item);
    await runner.run(agent, paused.state);
    const sent = sentResults(model.lastCall?.request.input);
    expect(sent.get('n-arr')?.text).toMatch(/^Invalid arguments for "lookup": /);
    expect(sent.get('n-json')?.text).toBe('An error occurred while parsing tool arguments. Please try again with valid JSON.');
    expect(resultEvent(f.events, 'n-arr')?.error?.kind).toBe('invalid-args');
    expect(f.runs.lookup).toBe(0);
  });

  it('(the SDK\'s own limit) fails the run when such a call is approved after RunState.fromString: reject those instead', async () => {
    const f = fixture();
    const paused = await pause(f, [{ id: 'n-arr', name: 'lookup', args: '[1,2]' }]);
    await expect(resume(f, paused.state.toString(), (state) => state.approve(state.getInterruptions()[0]!))).rejects.toThrow(/Cannot re-evaluate conditional approval/);
    const { sent } = await resume(f, paused.state.toString(), (state) => state.reject(state.getInterruptions()[0]!, { message: 'malformed call' }));
    expect(sent.get('n-arr')?.text).toBe('malformed call');
    expect(f.runs.lookup).toBe(0);
  });

  it('sends the asks of a run_code program\'s calls to the host\'s channel: the run never pauses inside a program', async () => {
    const { asked, approval } = channel();
    const f = fixture({ approval, runCode: true });
    const code = 'return await tools.deploy({ env: "prod" });';
    const { agent } = scriptedAgent(toAgentsTools(f.host, { agent: agentRef, approval: 'framework' }), [toolStep([{ id: 'run-1', name: 'run_code', args: { code } }]), textStep('done')]);
    const result = await runner.run(agent, 'go');
    expect(result.interruptions).toEqual([]);
    expect(asked).toHaveLength(1);
    expect(f.runs.deploy).toBe(1);
    expect((callData(result).get('run-1')?.value as { result: unknown }).result).toEqual({ deployed: 'prod' });
  });

  it('ignores a sticky alwaysApprove: the call meets the host\'s channel (and fails closed without one), and so does the next call of the tool', async () => {
    const { asked, approval } = channel();
    const f = fixture({ approval });
    const { agent } = scriptedAgent(toAgentsTools(f.host, { agent: agentRef, approval: 'framework' }), [
      toolStep([{ id: 'd1', name: 'deploy', args: { env: 'prod' } }]),
      toolStep([{ id: 'd2', name: 'deploy', args: { env: 'dev' } }]),
      textStep('done'),
    ]);
    const paused = await runner.run(agent, 'go');
    paused.state.approve(paused.interruptions[0]!, { alwaysApprove: true });
    const result = await runner.run(agent, paused.state);
    expect(result.finalOutput).toBe('done');
    // Neither call was approved by the framework: the host's channel answered both.
    expect([asked, f.runs.deploy]).toEqual([['d1', 'd2'], 2]);
    const viaFramework = f.events.filter((e) => e.type === 'tool/decision' && e.stage === 'approval' && 'via' in e.by && e.by.via === 'framework');
    expect(viaFramework).toEqual([]);

    const g = fixture();
    const again = scriptedAgent(toAgentsTools(g.host, { agent: agentRef, approval: 'framework' }), [toolStep([{ id: 'd1', name: 'deploy', args: { env: 'prod' } }]), textStep('done')]);
    const pausedAgain = await runner.run(again.agent, 'go');
    pausedAgain.state.approve(pausedAgain.interruptions[0]!, { alwaysApprove: true });
    await runner.run(again.agent, pausedAgain.state);
    expect(sentResults(again.model.lastCall?.request.input).get('d1')?.text).toMatch(/denied by the approver: unavailable: no approval channel/);
    expect(g.runs.deploy).toBe(0);
  });

  it('leaves a sticky alwaysReject to the SDK: nothing runs, now or for the next call of the tool', async () => {
    const f = fixture(channel());
    const { agent, model } = scriptedAgent(toAgentsTools(f.host, { agent: agentRef, approval: 'framework' }), [
      toolStep([{ id: 'd1', name: 'deploy', args: { env: 'prod' } }]),
      toolStep([{ id: 'd2', name: 'deploy', args: { env: 'dev' } }]),
      textStep('done'),
    ]);
    const paused = await runner.run(agent, 'go');
    paused.state.reject(paused.interruptions[0]!, { alwaysReject: true, message: 'never' });
    const result = await runner.run(agent, paused.state);
    expect(result.finalOutput).toBe('done');
    expect(f.runs.deploy).toBe(0);
    expect([...sentResults(model.lastCall?.request.input).values()].map((s) => s.text)).toEqual(['never', 'never']);
  });
});

describe('when building the tool list', () => {
  it('exposes all, or include minus exclude, in registration order', () => {
    const f = fixture();
    expect(toAgentsTools(f.host).map((t) => t.name)).toEqual(['lookup', 'deploy', 'fail', 'wait', 'slow', 'shot']);
    expect(toAgentsTools(f.host, { include: ['wait', 'lookup', 'fail'], exclude: ['fail'] }).map((t) => t.name)).toEqual(['lookup', 'wait']);
    expect(() => toAgentsTools(f.host, { include: ['lookup', 'nope'] })).toThrow(ToolSelectionError);
  });

  it('refuses a bad approval or programmaticCallers option by name', () => {
    const f = fixture();
    expect(() => toAgentsTools(f.host, { approval: 'always' as never })).toThrow(/approval must be 'host' or 'framework', got "always"/);
    expect(() => toAgentsTools(f.host, { programmaticCallers: 'yes' as never })).toThrow(/programmaticCallers must be a boolean/);
  });

  it('gives an MCP-style name the SDK\'s spelling for the model, and calls the host\'s tool', async () => {
    const events: ToolEvent[] = [];
    const host = createToolHost({ onEvent: (e) => events.push(e) });
    host.register(defineTool({ name: 'fs.read-file', description: 'Reads.', parameters: { path: { type: 'string', required: true } }, execute: (args) => `read ${args.path}` }));
    const tools = toAgentsTools(host);
    expect(tools.map((t) => t.name)).toEqual(['fs_read_file']);
    const { sent, data } = await run(tools, [{ id: 'm1', name: 'fs_read_file', args: { path: '/a' } }]);
    expect(sent.get('m1')?.text).toBe('read /a');
    expect(data.get('m1')?.toolName).toBe('fs.read-file');
    expect(callEvent(events, 'm1')?.toolName).toBe('fs.read-file');
  });

  it('refuses two tools the SDK would give one name, naming both', () => {
    // (Distinct program names, tools.fs_read and tools.fs__read, so the host takes both.)
    const host = createToolHost();
    host.register([
      defineTool({ name: 'fs..read', description: 'a', execute: () => 1 }),
      defineTool({ name: 'fs__read', description: 'b', execute: () => 2 }),
    ]);
    expect(() => toAgentsTools(host)).toThrow(AgentsToolNameError);
    expect(() => toAgentsTools(host)).toThrow('Tools "fs..read" and "fs__read" would both be named "fs__read" in the Agents SDK');
    expect(toAgentsTools(host, { exclude: ['fs__read'] }).map((t) => t.name)).toEqual(['fs__read']);
  });
});

describe('agentsCallData', () => {
  it('reads our record from an output item, also one restored with RunState.fromString, and nothing from other items', async () => {
    const f = fixture();
    const first = scriptedAgent(toAgentsTools(f.host, { agent: agentRef, approval: 'framework' }), [toolStep([{ id: 'c-now', name: 'lookup', args: { q: 'alpha' } }, { id: 'c-fw', name: 'deploy', args: { env: 'prod' } }])]);
    const paused = await runner.run(first.agent, 'go');
    const second = scriptedAgent(toAgentsTools(f.host, { agent: agentRef, approval: 'framework' }), [textStep('done')]);
    const state = await RunState.fromString(second.agent, paused.state.toString());
    state.reject(state.getInterruptions()[0]!);
    const result = await runner.run(second.agent, state);
    // c-now ran in the first process; its record came back with the state.
    expect(callData(result).get('c-now')).toEqual({ callId: 'c-now', toolName: 'lookup', isError: false, value: { q: 'alpha', hits: ['alpha-1', 'alpha-2'] } });
    const others = result.newItems.filter((i) => agentsCallData(i) === undefined).map((i) => i.type);
    expect(others).toContain('tool_call_item');
    expect(others).toContain('message_output_item');
    expect([agentsCallData(null), agentsCallData({ customData: { ptc: { callId: 1 } } })]).toEqual([undefined, undefined]);
  });
});
