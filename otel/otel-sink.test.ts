import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openRunBridge } from '../bridge/index.js';
import { createToolHost, decision, defineTool, type ToolEvent, type ToolHost, type ToolHostOptions } from '../tools/index.js';
import { deferred } from '../tools/test-support.js';
import { otelEventSink, type OtelEventSinkOptions } from './index.js';

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('ptc-test');
  return { tracer, spans: (): ReadableSpan[] => exporter.getFinishedSpans(), named: (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name) };
}

const EPOCH = 1_700_000_000_000;

/** A host on a clock that moves 7 ms per reading, traced into memory, with the events kept. */
function setup(sinkOptions: Omit<OtelEventSinkOptions, 'tracer'> = {}, hostOptions: ToolHostOptions = {}) {
  const t = tracing();
  let clock = EPOCH;
  const events: ToolEvent[] = [];
  const sink = otelEventSink({ tracer: t.tracer, ...sinkOptions });
  const host = createToolHost({ now: () => (clock += 7), ...hostOptions, onEvent: (e) => events.push(e) });
  host.onEvent(sink);
  host.register(tools());
  return { ...t, host, sink, events };
}

function tools() {
  return [
    defineTool({
      name: 'echo',
      description: 'Echo the text back.',
      parameters: { text: { type: 'string', required: true } },
      output: { schema: { type: 'object', properties: { echoed: { type: 'string', required: true } } } },
      isConcurrencySafe: true,
      execute: (args) => ({ echoed: args.text }),
    }),
    defineTool({
      name: 'fail',
      description: 'Always fails.',
      parameters: { size: { type: 'number' } },
      execute: (args) => {
        throw new Error(args.size ? 'x'.repeat(args.size) : 'disk on fire');
      },
    }),
    defineTool({
      name: 'big',
      description: 'Returns a large value.',
      output: { schema: { type: 'string' } },
      execute: () => 'v'.repeat(100_000),
    }),
  ];
}

const ms = (hr: readonly [number, number]) => hr[0] * 1000 + hr[1] / 1e6;
const timeOf = (events: ToolEvent[], type: ToolEvent['type'], callId: string) => events.find((e) => e.type === type && 'callId' in e && e.callId === callId)!.time;
const allText = (span: ReadableSpan) => JSON.stringify([span.attributes, span.events, span.status, span.name]);

describe('a model call', () => {
  it('is one INTERNAL span "execute_tool <tool>" with the GenAI attributes and ours, timed by its events', async () => {
    const s = setup({ host: undefined });
    await s.host.call({ id: 'call_1', name: 'echo', args: { text: 'hi' } });
    const [span, ...rest] = s.spans();
    expect(rest).toEqual([]);
    expect(span!.name).toBe('execute_tool echo');
    expect(span!.kind).toBe(SpanKind.INTERNAL);
    expect(span!.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
      'ptc.origin.kind': 'model',
      'ptc.args.valid': true,
      'ptc.decision': 'allow',
      'ptc.decision.by': 'default',
      'ptc.duration_ms': expect.any(Number),
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.parentSpanContext).toBeUndefined();
    expect(ms(span!.startTime)).toBe(timeOf(s.events, 'tool/call', 'call_1'));
    expect(ms(span!.endTime)).toBe(timeOf(s.events, 'tool/result', 'call_1'));
    expect(ms(span!.endTime)).toBeGreaterThan(ms(span!.startTime));
    expect(span!.events.map((e) => [e.name, e.attributes])).toEqual([['ptc.decision', { 'ptc.decision.stage': 'policy', 'ptc.decision': 'allow', 'ptc.decision.by': 'default' }]]);
  });

  it('carries the tool description when given the host, cut at 1024 characters', async () => {
    const s = setup();
    const sink = otelEventSink({ tracer: s.tracer, host: s.host });
    s.host.onEvent(sink);
    s.host.register(defineTool({ name: 'long', description: 'd'.repeat(5000), execute: () => 1 }));
    await s.host.call({ id: 'c', name: 'echo', args: { text: 'x' } });
    await s.host.call({ id: 'd', name: 'long', args: {} });
    const described = s.spans().filter((span) => span.attributes['gen_ai.tool.description'] !== undefined);
    expect(described.map((span) => span.attributes['gen_ai.tool.description'])).toEqual(['Echo the text back.', `${'d'.repeat(1024)}…[cut at 1024 of 5000 chars]`]);
  });

  it('is a span for an unknown tool too, with its error type and invalid args', async () => {
    const s = setup();
    await s.host.call({ id: 'u', name: 'nope', args: { a: 1 } });
    const [span] = s.spans();
    expect(span!.name).toBe('execute_tool nope');
    expect(span!.attributes).toMatchObject({ 'error.type': 'unknown-tool', 'ptc.args.valid': false });
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: expect.stringContaining('Unknown tool "nope"') });
  });
});

describe('when a call is refused or fails', () => {
  it('a guard denial sets status ERROR with the reason, and who decided', async () => {
    const s = setup();
    s.host.hooks.guard((e) => (e.toolName === 'echo' ? 'no echoes today' : undefined));
    await s.host.call({ id: 'g', name: 'echo', args: { text: 'x' } });
    const [span] = s.spans();
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.status.message).toMatch(/denied by the guard: no echoes today/);
    expect(span!.attributes).toMatchObject({ 'error.type': 'denied', 'ptc.denied.by': 'guard', 'ptc.decision': 'deny', 'ptc.decision.by': 'guard', 'ptc.decision.index': 0 });
    expect(span!.events[0]!.attributes).toMatchObject({ 'ptc.decision.reason': 'no echoes today' });
  });

  it('a listener denial names the listener', async () => {
    const s = setup();
    s.host.hooks.preExecute(() => undefined);
    s.host.hooks.preExecute(() => decision.deny('not on Sundays'));
    await s.host.call({ id: 'l', name: 'echo', args: { text: 'x' } });
    expect(s.spans()[0]!.attributes).toMatchObject({ 'ptc.denied.by': 'listener', 'ptc.decision.by': 'listener', 'ptc.decision.index': 1 });
  });

  it('an ask records the policy decision and the approver answer as two span events', async () => {
    const s = setup({}, { approval: { request: async () => 'deny' } });
    s.host.hooks.preExecute(() => decision.ask('needs a person'));
    await s.host.call({ id: 'a', name: 'echo', args: { text: 'x' } }, { agent: { id: 'agent-1' } });
    const [span] = s.spans();
    expect(span!.attributes).toMatchObject({ 'ptc.decision': 'ask', 'ptc.approval': 'deny', 'ptc.denied.by': 'approval', 'error.type': 'denied' });
    expect(span!.events.map((e) => [e.attributes?.['ptc.decision.stage'], e.attributes?.['ptc.decision']])).toEqual([
      ['policy', 'ask'],
      ['approval', 'deny'],
    ]);
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("an approval given in the framework's own flow names the framework and its approval id, not the note", async () => {
    const s = setup();
    s.host.hooks.preExecute(() => decision.ask('needs a person'));
    await s.host.call({ id: 'f', name: 'echo', args: { text: 'x' } }, { agent: { id: 'agent-1' }, approved: { framework: 'ai-sdk', approvalId: 'appr_7', note: 'PRIVATE-NOTE ok by Dana' } });
    const [span] = s.spans();
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.attributes).toMatchObject({ 'ptc.decision': 'ask', 'ptc.approval': 'allow', 'ptc.approval.via': 'framework', 'ptc.approval.framework': 'ai-sdk', 'ptc.approval.id': 'appr_7' });
    expect(allText(span!)).not.toContain('PRIVATE-NOTE');
  });

  it('a block sets status ERROR with the reason and marks the span blocked', async () => {
    const s = setup();
    s.host.hooks.postExecute(() => ({ type: 'block', reason: 'contains a credit card number' }));
    await s.host.call({ id: 'b', name: 'echo', args: { text: 'x' } });
    const [span] = s.spans();
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: expect.stringContaining('contains a credit card number') });
    expect(span!.attributes).toMatchObject({ 'error.type': 'blocked', 'ptc.blocked': true, 'ptc.blocked.index': 0, 'ptc.post_execute': ['block'] });
  });

  it('a tool error sets status ERROR with its message, cut at 1024 characters', async () => {
    const s = setup();
    await s.host.call({ id: 'e', name: 'fail', args: {} });
    await s.host.call({ id: 'e2', name: 'fail', args: { size: 100_000 } });
    const [small, huge] = s.spans();
    expect(small!.status).toEqual({ code: SpanStatusCode.ERROR, message: '"fail" failed: disk on fire' });
    expect(small!.attributes['error.type']).toBe('execution');
    expect(huge!.status.message!.length).toBeLessThan(1100);
    expect(huge!.status.message).toMatch(/…\[cut at 1024 of \d+ chars\]$/);
  });
});

describe('what is recorded', () => {
  it('records no argument or result values by default', async () => {
    const s = setup();
    s.host.register(defineTool({ name: 'lookup', description: 'A test tool.', parameters: { key: { type: 'string', required: true } }, execute: () => ({ found: 'RESULT-VALUE-42' }) }));
    await s.host.call({ id: 'v', name: 'lookup', args: { key: 'ARG-VALUE-17' } });
    const [span] = s.spans();
    expect(allText(span!)).not.toMatch(/ARG-VALUE-17|RESULT-VALUE-42/);
    expect(span!.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(span!.attributes['gen_ai.tool.call.result']).toBeUndefined();
  });

  it('records arguments and values when opted in, as JSON cut at maxValueChars', async () => {
    const s = setup({ recordArgs: true, recordValues: true, maxValueChars: 100 });
    await s.host.call({ id: 'v', name: 'echo', args: { text: 'hello' } });
    await s.host.call({ id: 'w', name: 'big', args: {} });
    const [echo, big] = s.spans();
    expect(echo!.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"hello"}');
    expect(echo!.attributes['gen_ai.tool.call.result']).toBe('{"echoed":"hello"}');
    expect(big!.attributes['gen_ai.tool.call.result']).toBe(`"${'v'.repeat(99)}…[cut at 100 chars]`);
  });

  it('records no value of a failed call even when opted in', async () => {
    const s = setup({ recordValues: true });
    await s.host.call({ id: 'e', name: 'fail', args: {} });
    expect(s.spans()[0]!.attributes['gen_ai.tool.call.result']).toBeUndefined();
  });

  it('records a provider-run program call with its provider and caller id', async () => {
    const s = setup();
    await s.host.call({ id: 'toolu_1', name: 'echo', args: { text: 'x' } }, { origin: { kind: 'provider-program', provider: 'anthropic', callerId: 'srvtoolu_01' } });
    const [span] = s.spans();
    expect(span!.attributes).toMatchObject({ 'ptc.origin.kind': 'provider-program', 'ptc.origin.provider': 'anthropic', 'ptc.origin.caller_id': 'srvtoolu_01' });
    expect(span!.attributes['ptc.parent_call_id']).toBeUndefined();
    expect(span!.parentSpanContext).toBeUndefined();
  });

  it('maps any origin kind generically: provider-program fields when present, unknown kinds by name', () => {
    const t = tracing();
    const sink = otelEventSink({ tracer: t.tracer });
    const call = (callId: string, origin: unknown) => {
      sink({ type: 'tool/call', seq: 1, time: EPOCH, callId, toolName: 'echo', args: {}, argsValid: true, origin } as never);
      sink({ type: 'tool/result', seq: 2, time: EPOCH + 1, callId, toolName: 'echo', isError: false, content: [], additionalContexts: [], post: [], durationMs: 1 } as never);
    };
    call('p', { kind: 'provider-program', provider: 'anthropic', callerId: 'srvtoolu_01' });
    call('f', { kind: 'from-the-future' });
    call('x', null);
    expect(t.spans().map((s) => [s.attributes['ptc.origin.kind'], s.attributes['ptc.origin.provider'], s.attributes['ptc.origin.caller_id']])).toEqual([
      ['provider-program', 'anthropic', 'srvtoolu_01'],
      ['from-the-future', undefined, undefined],
      ['unknown', undefined, undefined],
    ]);
  });
});

describe('a program run (the real bridge, no context manager registered)', () => {
  /** A tool that runs a "program" of three child calls through the PTC bridge, as run_code does. */
  const programTool = (host: ToolHost) =>
    defineTool({
      name: 'program',
      description: 'Runs three child calls through the bridge.',
      async execute(_args, exec) {
        const bridge = openRunBridge({ host, parentCallId: exec.callId, limits: { wallMs: 10_000, maxCalls: 10, maxInFlight: 4, maxLogBytes: 1000, maxArgBytes: 10_000, maxArgDepth: 20, maxArgNodes: 1000 }, toolNames: new Map([['echo', 'echo'], ['fail', 'fail']]) });
        const outcomes = await Promise.all([bridge.guest.call('echo', '{"text":"a"}'), bridge.guest.call('echo', '{"text":"b"}'), bridge.guest.call('fail', '{}')]);
        await bridge.close({ outcome: 'ok' });
        return outcomes.length;
      },
    });

  it('gives one parent span and its three children, with the run events on the parent', async () => {
    const s = setup();
    s.host.register(programTool(s.host));
    await s.host.call({ id: 'run_1', name: 'program', args: {} });
    const [parent] = s.named('execute_tool program');
    const children = s.spans().filter((span) => span !== parent);
    expect(children).toHaveLength(3);
    for (const child of children) {
      expect(child.parentSpanContext?.spanId).toBe(parent!.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(parent!.spanContext().traceId);
      expect(child.attributes).toMatchObject({ 'ptc.origin.kind': 'ptc', 'ptc.parent_call_id': 'run_1', 'ptc.run.token_id': parent!.attributes['ptc.run.token_id'] });
    }
    expect(parent!.attributes['ptc.run.token_id']).toMatch(/^[0-9a-f]{16}$/);
    expect(children.map((c) => c.status.code).sort()).toEqual([SpanStatusCode.UNSET, SpanStatusCode.UNSET, SpanStatusCode.ERROR]);
    expect(parent!.events.map((e) => e.name)).toEqual(['ptc.decision', 'ptc.run.start', 'ptc.dispatch', 'ptc.dispatch', 'ptc.dispatch', 'ptc.run.end']);
    expect(parent!.events.at(-1)!.attributes).toMatchObject({ 'ptc.run.outcome': 'ok', 'ptc.run.calls': 3, 'ptc.run.token_id': parent!.attributes['ptc.run.token_id'] });
    expect(parent!.events.filter((e) => e.name === 'ptc.dispatch').map((e) => e.attributes?.['gen_ai.tool.name'])).toEqual(['echo', 'echo', 'fail']);
    expect(s.sink.openSpans).toBe(0);
  });

  it('a refusal after the run span ended becomes a zero-length ERROR span under the run', async () => {
    const s = setup();
    s.host.register(programTool(s.host));
    await s.host.call({ id: 'run_9', name: 'program', args: {} });
    const [parent] = s.named('execute_tool program');
    s.host.emit({ type: 'ptc/call-refused', parentCallId: 'run_9', tokenId: 'abc', toolName: 'echo', reason: 'the run already ended' });
    const late = s.spans().at(-1)!;
    expect(late.name).toBe('execute_tool echo');
    expect(late.parentSpanContext?.spanId).toBe(parent!.spanContext().spanId);
    expect(late.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the run already ended' });
    expect(late.attributes).toMatchObject({ 'error.type': 'refused', 'ptc.parent_call_id': 'run_9' });
  });
});

describe('when a context manager is registered', () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    context.disable();
  });

  it('a top-level call made inside an active span nests under it', async () => {
    const s = setup();
    await s.tracer.startActiveSpan('agent step', async (step) => {
      await s.host.runTurn([
        { id: 'c1', name: 'echo', args: { text: 'a' } },
        { id: 'c2', name: 'fail', args: {} },
      ]);
      step.end();
    });
    const [step] = s.named('agent step');
    const tools = s.spans().filter((span) => span.name.startsWith('execute_tool'));
    expect(tools).toHaveLength(2);
    for (const span of tools) {
      expect(span.parentSpanContext?.spanId).toBe(step!.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(step!.spanContext().traceId);
    }
  });

  it('a call outside any span is a root span', async () => {
    const s = setup();
    await s.host.call({ id: 'r', name: 'echo', args: { text: 'a' } });
    expect(s.spans()[0]!.parentSpanContext).toBeUndefined();
  });

  it('with the middleware, spans a tool opens itself nest under its call', async () => {
    const s = setup();
    s.host.hooks.execute(s.sink.middleware);
    s.host.register(defineTool({ name: 'fetcher', description: 'A test tool.', execute: () => s.tracer.startActiveSpan('GET /thing', async (span) => (span.end(), 'ok')) }));
    await s.host.call({ id: 'm', name: 'fetcher', args: {} });
    const [inner] = s.named('GET /thing');
    const [call] = s.named('execute_tool fetcher');
    expect(inner!.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
  });

  it('a background job is a span under the call that started it, with its progress, ending ERROR when killed', async () => {
    const s = setup();
    s.host.hooks.execute(s.sink.middleware);
    const gate = deferred();
    let buildId = '';
    s.host.register(
      defineTool({
        name: 'start_jobs',
        description: 'Starts two background jobs.',
        execute: (_args, exec) => {
          buildId = exec.host.jobs.start({ kind: 'build', label: 'npm run build', run: async ({ progress }) => (progress({ done: 1, total: 2 }), await gate.promise, 'built') }).jobId;
          exec.host.jobs.start({ kind: 'watch', label: 'tail -f', run: () => new Promise(() => {}) });
          return 'started';
        },
      }),
    );
    await s.host.call({ id: 'j', name: 'start_jobs', args: {} });
    expect(s.sink.openSpans).toBe(2);
    gate.resolve();
    await s.host.jobs.wait(undefined, buildId);
    s.host.close();
    const [call] = s.named('execute_tool start_jobs');
    const [build] = s.named('job build');
    const [watch] = s.named('job watch');
    expect(build!.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
    expect(build!.attributes).toMatchObject({ 'ptc.job.id': buildId, 'ptc.job.kind': 'build', 'ptc.job.status': 'succeeded' });
    expect(build!.attributes['ptc.job.label']).toBeUndefined();
    expect(build!.events.map((e) => [e.name, e.attributes])).toEqual([['ptc.job.progress', { 'ptc.job.done': 1, 'ptc.job.total': 2 }]]);
    expect(build!.status.code).toBe(SpanStatusCode.UNSET);
    expect(watch!.status.code).toBe(SpanStatusCode.ERROR);
    expect(watch!.attributes).toMatchObject({ 'ptc.job.status': 'killed', 'error.type': 'killed' });
    expect(s.sink.openSpans).toBe(0);
  });
});

describe('the sink holds nothing it should not', () => {
  it('has no open span after many calls of every outcome', async () => {
    const s = setup();
    s.host.hooks.guard((e) => ((e.args as { text?: string }).text === 'deny' ? 'denied' : undefined));
    s.host.hooks.postExecute((e) => ((e.args as { text?: string }).text === 'block' ? { type: 'block', reason: 'blocked' } : undefined));
    const texts = ['ok', 'deny', 'block'];
    const calls = Array.from({ length: 60 }, (_, i) => ({ id: `c${i}`, name: i % 10 === 9 ? 'nope' : i % 5 === 4 ? 'fail' : 'echo', args: { text: texts[i % 3]! } }));
    await s.host.runTurn(calls);
    await Promise.all(calls.map((c, i) => s.host.call({ ...c, id: `again${i}` })));
    expect(s.spans()).toHaveLength(120);
    expect(s.sink.openSpans).toBe(0);
  });

  it('close() ends a call whose result never came as ERROR, and ignores what comes after', async () => {
    const s = setup();
    const never = deferred<string>();
    s.host.register(defineTool({ name: 'hang', description: 'A test tool.', execute: () => never.promise }));
    const pending = s.host.call({ id: 'h', name: 'hang', args: {} });
    await Promise.resolve();
    expect(s.sink.openSpans).toBe(1);
    expect(s.spans()).toEqual([]);
    s.sink.close();
    s.sink.close();
    expect(s.sink.openSpans).toBe(0);
    const [span] = s.spans();
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the sink was closed before this call ended' });
    expect(span!.attributes['ptc.incomplete']).toBe(true);
    never.resolve('late');
    await pending;
    await s.host.call({ id: 'after', name: 'echo', args: { text: 'x' } });
    expect(s.spans()).toHaveLength(1);
  });

  it('past maxOpenSpans ends the oldest open span as ERROR', () => {
    const t = tracing();
    const sink = otelEventSink({ tracer: t.tracer, maxOpenSpans: 2 });
    for (const id of ['a', 'b', 'c']) sink({ type: 'tool/call', seq: 1, time: EPOCH, callId: id, toolName: 'x', args: {}, argsValid: true, origin: { kind: 'model' } });
    expect(sink.openSpans).toBe(2);
    expect(t.spans().map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['ptc.incomplete'], s.status.code])).toEqual([['a', true, SpanStatusCode.ERROR]]);
  });

  it('two open calls under one id end in arrival order', () => {
    const t = tracing();
    const sink = otelEventSink({ tracer: t.tracer });
    const callEvent = (time: number) => ({ type: 'tool/call', seq: 1, time, callId: 'same', toolName: 'x', args: {}, argsValid: true, origin: { kind: 'model' } }) as const;
    const result = (time: number) => ({ type: 'tool/result', seq: 2, time, callId: 'same', toolName: 'x', isError: false, content: [], additionalContexts: [], post: [], durationMs: 0 }) as const;
    sink(callEvent(EPOCH));
    sink(callEvent(EPOCH + 10));
    sink(result(EPOCH + 20));
    sink(result(EPOCH + 30));
    expect(t.spans().map((s) => [ms(s.startTime) - EPOCH, ms(s.endTime) - EPOCH])).toEqual([
      [0, 20],
      [10, 30],
    ]);
    expect(sink.openSpans).toBe(0);
  });
});

describe('hostile, malformed and out-of-order events', () => {
  afterEach(() => vi.restoreAllMocks());

  it('never throw, never warn, and change nothing', () => {
    const warn = vi.spyOn(process, 'emitWarning');
    const t = tracing();
    const sink = otelEventSink({ tracer: t.tracer });
    const hostile = Object.defineProperty({ type: 'tool/call' }, 'callId', {
      get() {
        throw new Error('gotcha');
      },
    });
    const events: unknown[] = [
      null,
      undefined,
      42,
      'tool/call',
      {},
      { type: 'nope' },
      { type: '__proto__' },
      { type: 'constructor' },
      { type: 'toString' },
      { type: 'tool/result', callId: 'never-opened', isError: true },
      { type: 'tool/decision', callId: 'never-opened', stage: 'policy', decision: 'deny' },
      { type: 'ptc/run-start', callId: 'never-opened', tokenId: 't' },
      { type: 'ptc/run-end', callId: 'never-opened' },
      { type: 'ptc/call-refused', parentCallId: 'never-opened', toolName: 'x', reason: 'r' },
      { type: 'tool/ptc-dispatch', pairId: 'no-slash', toolName: 'x' },
      { type: 'tool/ptc-dispatch', pairId: '/leading', toolName: 'x' },
      { type: 'tool/ptc-dispatch', pairId: 7 },
      { type: 'tool/call', callId: 5, toolName: 'x' },
      { type: 'tool/call', callId: { id: 1 } },
      { type: 'job/progress', jobId: 'ghost', progress: null },
      { type: 'job/end', jobId: 'ghost', status: 'failed' },
      { type: 'job/start', jobId: null },
    ];
    for (const event of events) expect(() => sink(event as never)).not.toThrow();
    expect(t.spans()).toEqual([]);
    expect(sink.openSpans).toBe(0);
    expect(warn).not.toHaveBeenCalled();
    expect(() => sink(hostile as never)).not.toThrow();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('a call with garbled fields still gets a span that closes', () => {
    const t = tracing();
    const sink = otelEventSink({ tracer: t.tracer, recordArgs: true });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    sink({ type: 'tool/call', callId: 'g', toolName: 12, time: 'yesterday', origin: 'model', args: cyclic } as never);
    sink({ type: 'tool/decision', callId: 'g', stage: 'x', decision: {}, by: 'guard', reason: ['r'] } as never);
    sink({ type: 'tool/result', callId: 'g', isError: true, error: { kind: 99, message: null }, post: 'none', denied: 'yes' } as never);
    const [span] = t.spans();
    expect(span!.name).toBe('execute_tool (no name)');
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the call failed' });
    expect(span!.attributes).toMatchObject({ 'error.type': '_OTHER', 'ptc.origin.kind': 'unknown', 'ptc.decision': 'unknown' });
    expect(span!.attributes['gen_ai.tool.call.arguments']).toContain('[nested too deeply]');
    expect(sink.openSpans).toBe(0);
  });

  it('through host.emit (the public way in), a forged result for a call never made changes nothing', async () => {
    const s = setup();
    s.host.emit({ type: 'tool/result', callId: 'forged', toolName: 'echo', isError: false, content: [], additionalContexts: [], post: [], durationMs: 1 });
    await s.host.call({ id: 'real', name: 'echo', args: { text: 'x' } });
    expect(s.spans().map((span) => span.attributes['gen_ai.tool.call.id'])).toEqual(['real']);
  });

  it('a tracer that throws never breaks a call, and is reported once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const broken = {
      startSpan() {
        throw new Error('exporter on fire');
      },
      startActiveSpan() {
        throw new Error('exporter on fire');
      },
    } as unknown as Tracer;
    const host = createToolHost();
    host.register(tools());
    host.onEvent(otelEventSink({ tracer: broken }));
    const results = await host.runTurn([
      { id: '1', name: 'echo', args: { text: 'a' } },
      { id: '2', name: 'echo', args: { text: 'b' } },
    ]);
    expect(results.map((r) => r.isError)).toEqual([false, false]);
    expect(warn.mock.calls.filter(([text]) => String(text).includes('ptc-runtime otel'))).toHaveLength(1);
  });
});

describe('options', () => {
  it('are checked when the sink is made, naming the option', () => {
    expect(() => otelEventSink({ tracer: {} as Tracer })).toThrow(/options\.tracer must be an OpenTelemetry Tracer/);
    expect(() => otelEventSink({ maxValueChars: 0 })).toThrow(/maxValueChars must be a positive integer, got 0/);
    expect(() => otelEventSink({ maxOpenSpans: 1.5 })).toThrow(/maxOpenSpans must be a positive integer, got 1.5/);
    expect(() => otelEventSink(null as never)).toThrow(/options must be an object, got null/);
  });

  it('default to the globally registered tracer provider', async () => {
    const exporter = new InMemorySpanExporter();
    const global = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(trace.setGlobalTracerProvider(global)).toBe(true);
    try {
      const host = createToolHost({ onEvent: otelEventSink() });
      host.register(tools());
      await host.call({ id: 'g', name: 'echo', args: { text: 'x' } });
      expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['execute_tool echo']);
    } finally {
      trace.disable();
    }
  });
});
