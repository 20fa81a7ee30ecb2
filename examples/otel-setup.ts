import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { createToolHost } from 'ptc-runtime';
import { otelEventSink } from 'ptc-runtime/otel';

export function tracedHost(exporter: SpanExporter) {
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()); // calls nest under your active spans
  const sink = otelEventSink({ tracer: provider.getTracer('my-agent') });
  const host = createToolHost({ onEvent: sink });
  host.hooks.execute(sink.middleware); // optional: spans a tool's own code opens nest under its call
  return { host, sink, provider };
}
