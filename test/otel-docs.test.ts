/** The setup shown in docs/observability.md is examples/otel-setup.ts, verbatim; this runs it. */
import { readFileSync } from 'node:fs';
import { context, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { defineTool } from '../tools/index.js';
import { tracedHost } from '../examples/otel-setup.js';

afterAll(() => {
  context.disable();
});

describe('the setup in docs/observability.md', () => {
  it('is examples/otel-setup.ts, verbatim', () => {
    const doc = readFileSync(new URL('../docs/observability.md', import.meta.url), 'utf8');
    const file = readFileSync(new URL('../examples/otel-setup.ts', import.meta.url), 'utf8');
    expect(/```ts\n([\s\S]*?)```/.exec(doc)?.[1]).toBe(file);
  });

  it('traces calls into the exporter, nested under the caller and with the tool body inside the call', async () => {
    const exporter = new InMemorySpanExporter();
    const { host, sink, provider } = tracedHost(exporter);
    const tracer = provider.getTracer('app');
    host.register(defineTool({ name: 'lookup', description: 'Looks a thing up.', execute: () => tracer.startActiveSpan('db query', (span) => (span.end(), 'found')) }));
    host.hooks.guard((e) => (e.callId === 'denied' ? 'not this one' : undefined));
    await tracer.startActiveSpan('agent step', async (step) => {
      await host.runTurn([
        { id: 'ok', name: 'lookup', args: {} },
        { id: 'denied', name: 'lookup', args: {} },
      ]);
      step.end();
    });
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [step] = byName('agent step');
    const calls = byName('execute_tool lookup');
    expect(calls.map((c) => c.parentSpanContext?.spanId)).toEqual([step!.spanContext().spanId, step!.spanContext().spanId]);
    expect(calls.map((c) => c.status.code).sort()).toEqual([SpanStatusCode.UNSET, SpanStatusCode.ERROR]);
    const ok = calls.find((c) => c.attributes['gen_ai.tool.call.id'] === 'ok')!;
    expect(byName('db query')[0]!.parentSpanContext?.spanId).toBe(ok.spanContext().spanId);
    expect(sink.openSpans).toBe(0);
    await provider.shutdown();
  });
});
