/**
 * ptc-runtime/otel end to end: real run_code programs (type-checked, run in an isolate or a
 * sandbox process) traced into the OpenTelemetry SDK's in-memory exporter.
 */
import { context, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { otelEventSink, type OtelEventSinkOptions } from '../otel/index.js';
import type { RunCodeTool } from '../runtime/index.js';
import { runCodeHost, runnerModes } from './run-code-support.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

const THREE_CALLS = `
const [a, b] = await Promise.all([tools.echo({ text: "alpha" }), tools.secret({})]);
let failed = "";
try { await tools.fail({}); } catch (e) { failed = e instanceof ToolCallError ? e.message : "?"; }
return { a: a.echoed, secretLength: b.value.length, failed };`;

describe.each(runnerModes())('run_code traced with otelEventSink (%s)', (mode) => {
  const setup = (options: Parameters<typeof runCodeHost>[1] = {}, sinkOptions: Omit<OtelEventSinkOptions, 'tracer'> = {}) => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer('ptc-e2e');
    const s = runCodeHost(mode, options);
    opened.push(s.runCode);
    const sink = otelEventSink({ tracer, ...sinkOptions });
    s.host.onEvent(sink);
    const spans = () => exporter.getFinishedSpans();
    const runSpan = () => spans().find((span) => span.name === 'execute_tool run_code')!;
    return { ...s, sink, tracer, spans, runSpan };
  };
  const childrenOf = (spans: ReadableSpan[], parent: ReadableSpan) => spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);

  it('a program with three child calls gives the run_code span and three children under it (no context manager)', async () => {
    const s = setup();
    const v = await s.value(THREE_CALLS);
    expect(v.result).toEqual({ a: 'alpha', secretLength: 15, failed: expect.stringContaining('disk on fire') });
    const run = s.runSpan();
    const children = childrenOf(s.spans(), run);
    expect(s.spans()).toHaveLength(4);
    expect(children.map((c) => c.name).sort()).toEqual(['execute_tool echo', 'execute_tool fail', 'execute_tool secret']);
    const tokenId = run.attributes['ptc.run.token_id'];
    expect(tokenId).toMatch(/^[0-9a-f]{16}$/);
    for (const child of children) {
      expect(child.spanContext().traceId).toBe(run.spanContext().traceId);
      expect(child.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'ptc.origin.kind': 'ptc', 'ptc.parent_call_id': 'run_1', 'ptc.run.token_id': tokenId });
      expect(child.attributes['gen_ai.tool.call.id']).toMatch(/^run_1\//);
    }
    expect(children.find((c) => c.name === 'execute_tool fail')!.status).toEqual({ code: SpanStatusCode.ERROR, message: '"fail" failed: disk on fire' });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    expect(run.events.map((e) => e.name)).toEqual(['ptc.decision', 'ptc.run.start', 'ptc.dispatch', 'ptc.dispatch', 'ptc.dispatch', 'ptc.run.end']);
    expect(run.events.at(-1)!.attributes).toMatchObject({ 'ptc.run.outcome': 'ok', 'ptc.run.calls': 3, 'ptc.run.token_id': tokenId });
    // Children start after their dispatch and end before the run does.
    const dispatchAt = Math.min(...run.events.filter((e) => e.name === 'ptc.dispatch').map((e) => e.time[0] * 1e3 + e.time[1] / 1e6));
    for (const child of children) {
      expect(child.startTime[0] * 1e3 + child.startTime[1] / 1e6).toBeGreaterThanOrEqual(dispatchAt);
      expect(child.endTime[0] * 1e3 + child.endTime[1] / 1e6).toBeLessThanOrEqual(run.endTime[0] * 1e3 + run.endTime[1] / 1e6);
    }
    expect(s.sink.openSpans).toBe(0);
  });

  it('records neither the program, its arguments nor the values it read', async () => {
    const s = setup();
    await s.value(THREE_CALLS);
    const text = JSON.stringify(s.spans().map((span) => [span.name, span.attributes, span.events, span.status]));
    expect(text).not.toContain('the real secret');
    expect(text).not.toContain('alpha');
    expect(text).not.toContain('Promise.all');
  });

  it('a child denied by a guard is an ERROR span under the run, with the reason', async () => {
    const s = setup();
    s.host.hooks.guard((e) => (e.toolName === 'echo' && e.origin.kind === 'ptc' ? 'no echoes from programs' : undefined));
    await s.value('try { await tools.echo({ text: "x" }); } catch { } return 1;');
    const [child] = childrenOf(s.spans(), s.runSpan());
    expect(child!.status).toEqual({ code: SpanStatusCode.ERROR, message: expect.stringContaining('no echoes from programs') });
    expect(child!.attributes).toMatchObject({ 'error.type': 'denied', 'ptc.denied.by': 'guard' });
  });

  it('a run ended by a limit names the limit on the run span', async () => {
    const s = setup({ typecheck: 'off', limits: { maxCalls: 2 } });
    const r = await s.run('for (let i = 0; i < 5; i++) { try { await tools.echo({ text: String(i) }); } catch {} } return 1;');
    expect(r.isError).toBe(true);
    const run = s.runSpan();
    expect(run.attributes).toMatchObject({ 'ptc.run.outcome': 'limit', 'ptc.limit.name': 'maxCalls', 'ptc.limit.value': 2 });
    expect(run.events.find((e) => e.name === 'ptc.run.end')!.attributes).toMatchObject({ 'ptc.limit.name': 'maxCalls', 'ptc.limit.value': 2 });
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(childrenOf(s.spans(), run)).toHaveLength(2);
    expect(s.sink.openSpans).toBe(0);
  });

  describe('with a context manager and an active span of the caller', () => {
    it('the run nests under the caller, its children under the run', async () => {
      const manager = new AsyncLocalStorageContextManager().enable();
      context.setGlobalContextManager(manager);
      try {
        const s = setup();
        await s.tracer.startActiveSpan('agent step', async (step) => {
          await s.value(THREE_CALLS);
          step.end();
        });
        const step = s.spans().find((span) => span.name === 'agent step')!;
        const run = s.runSpan();
        expect(run.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
        expect(childrenOf(s.spans(), run)).toHaveLength(3);
        expect(new Set(s.spans().map((span) => span.spanContext().traceId)).size).toBe(1);
      } finally {
        context.disable();
      }
    });
  });
});
