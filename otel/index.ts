/**
 * `ptc-runtime/otel`: the host's events as OpenTelemetry spans (GenAI semantic conventions'
 * `execute_tool` spans, a program's calls under its run_code span). `@opentelemetry/api` is an
 * optional peer dependency: only this subpath loads it. See docs/observability.md.
 */
export { otelEventSink } from './event-sink.js';
export type { OtelEventSink, OtelEventSinkOptions } from './event-sink.js';
