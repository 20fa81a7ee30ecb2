/**
 * The SDK's own OpenTelemetry spans and ours in one trace: with the tool runner, each call's
 * `execute_tool` span (ptc-runtime/otel) is a child of the SDK's `anthropic.custom_tool_use`
 * span for the same tool_use, a queued exclusive call included, and a program's calls sit
 * under its run_code span. The only test that turns the SDK's spans on (its own file: it sets
 * the global context manager).
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import Anthropic from '@anthropic-ai/sdk';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAnthropicRunnableTools } from '../anthropic/index.js';
import { otelEventSink } from '../otel/index.js';
import { createRunCodeTool } from '../runtime/index.js';
import { createToolHost, defineTool } from '../tools/index.js';
import { MODEL, reply, text, toolUse } from './support/anthropic-fake.js';

beforeAll(() => void context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()));
afterAll(() => void context.disable());

describe('when the SDK\'s tool runner traces and so does the host', () => {
  it('nests each call\'s execute_tool span under the SDK\'s span of its tool_use', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const host = createToolHost();
    host.onEvent(otelEventSink({ tracer: provider.getTracer('ptc-test') }));
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    host.register([
      defineTool({ name: 'lookup', description: 'Looks up.', parameters: { q: { type: 'string', required: true } }, isConcurrencySafe: true, execute: async (a) => (await sleep(20), `found ${a.q}`) }),
      defineTool({ name: 'write_note', description: 'Writes.', parameters: { note: { type: 'string', required: true } }, execute: async (a) => (await sleep(1), `wrote ${a.note}`) }),
    ]);
    const runCode = createRunCodeTool({ host, isolation: 'isolate', limits: { wallMs: 30_000 } });
    host.register(runCode);

    const replies: Message[] = [
      reply([
        toolUse('toolu_a', 'lookup', { q: 'a' }),
        toolUse('toolu_w', 'write_note', { note: 'n' }), // exclusive: queued behind toolu_a
        toolUse('toolu_run', 'run_code', { code: 'return await tools.lookup({ q: "inner" });' }),
      ]),
      reply([text('done')]),
    ];
    let sent = 0;
    const client = new Anthropic({
      apiKey: 'test-key',
      maxRetries: 0,
      openTelemetry: { tracerProvider: provider },
      fetch: async () => new Response(JSON.stringify(replies[sent++]), { headers: { 'content-type': 'application/json' } }),
    });
    try {
      await client.beta.messages.toolRunner({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'go' }], tools: toAnthropicRunnableTools(host) }).runUntilDone();
    } finally {
      await runCode.close();
    }

    const spans = exporter.getFinishedSpans();
    const byCall = (prefix: string, id: string): ReadableSpan => {
      const span = spans.find((s) => s.name.startsWith(prefix) && s.attributes['gen_ai.tool.call.id'] === id);
      if (!span) throw new Error(`no ${prefix} span for ${id}; spans: ${spans.map((s) => `${s.name} ${String(s.attributes['gen_ai.tool.call.id'])}`).join(', ')}`);
      return span;
    };
    for (const id of ['toolu_a', 'toolu_w', 'toolu_run']) {
      const sdk = byCall('anthropic.custom_tool_use ', id);
      const ours = byCall('execute_tool ', id);
      expect(ours.parentSpanContext?.spanId, id).toBe(sdk.spanContext().spanId);
      expect(ours.spanContext().traceId).toBe(sdk.spanContext().traceId);
    }
    const inner = spans.find((s) => s.name === 'execute_tool lookup' && s.parentSpanContext?.spanId === byCall('execute_tool ', 'toolu_run').spanContext().spanId);
    expect(inner).toBeDefined();
  }, 60_000);
});
