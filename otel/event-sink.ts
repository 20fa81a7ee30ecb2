/**
 * `otelEventSink`: the host's events as OpenTelemetry spans. The span model, and why it holds:
 *
 * - One span per call, `execute_tool <tool>`, opened at its `tool/call` event and ended at its
 *   `tool/result`, at the events' own times, so a span lasts as long as the call did
 *   (call-spans.ts). Every call emits exactly that pair (tools/pipeline.ts), so the span map,
 *   keyed by call id, empties itself; `close()` ends what a closed host left open, and
 *   `maxOpenSpans` bounds the rest.
 * - A program's calls are children of its run_code span, started under it explicitly: nesting
 *   needs no context manager and nothing carried across the isolate bridge. Any other call
 *   nests under the context active when it was made. Run events are span events on the run
 *   (run-events.ts); background jobs get spans of their own (job-spans.ts).
 * - Nothing the model or a program sent is recorded by default: no arguments, no values, no
 *   job labels; `recordArgs` / `recordValues` opt in, cut at `maxValueChars`. Run tokens never
 *   reach events (only their digest, `tokenId`), so they cannot reach a span.
 * - The sink never throws: an event of an unknown type, out of order or malformed is ignored;
 *   a tracer that throws is reported once as a process warning. (The host's dispatch would
 *   catch a throw too, but then every event of a broken tracer would warn.)
 */
import { context as otelContext, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { errorText, InvalidOptionError } from '../tools/errors.js';
import type { ExecuteMiddleware, ToolEvent, ToolHost } from '../tools/index.js';
import { PTC, type EventHandlers, type Fields } from './attributes.js';
import { callSpanHandlers } from './call-spans.js';
import { jobSpanHandlers } from './job-spans.js';
import { OpenSpans, RecentMap, type CallEntry } from './open-spans.js';
import { runEventHandlers } from './run-events.js';

/** Options of {@link otelEventSink}. */
export interface OtelEventSinkOptions {
  /** Where spans go. Default: `trace.getTracer('ptc-runtime')`, the globally registered provider's. */
  readonly tracer?: Tracer;
  /** Read tool descriptions from this host for `gen_ai.tool.description` (cut at 1024 characters). */
  readonly host?: Pick<ToolHost, 'get'>;
  /** Record each call's arguments as `gen_ai.tool.call.arguments` (and job labels). Default false. */
  readonly recordArgs?: boolean;
  /** Record each successful call's value as `gen_ai.tool.call.result` (and job values, progress messages). Default false. */
  readonly recordValues?: boolean;
  /** Longest recorded argument or value, in characters of JSON (default 2048); longer is cut. */
  readonly maxValueChars?: number;
  /** Open spans beyond this (results that never came) are ended as ERROR, oldest first (default 10,000). */
  readonly maxOpenSpans?: number;
}

/** An event sink that traces; also a middleware and a way to end what is still open. */
export interface OtelEventSink {
  /** Give to `createToolHost({ onEvent })` or `host.onEvent(...)`. */
  (event: ToolEvent): void;
  /**
   * Optional: `host.hooks.execute(sink.middleware)` runs each tool's body inside its span, so
   * spans the tool's own code opens (an HTTP client, a database driver) nest under the call.
   */
  readonly middleware: ExecuteMiddleware;
  /** Call and job spans still open (waiting for their result). */
  readonly openSpans: number;
  /**
   * Ends every open span now, as ERROR with `ptc.incomplete: true` (a host closed mid-call, a
   * result that will never come), and ignores events from then on. Idempotent.
   */
  close(): void;
}

const DEFAULT_MAX_VALUE_CHARS = 2048;
const DEFAULT_MAX_OPEN_SPANS = 10_000;
/** Ended run spans remembered for late refusals (runs are short; refusals come within moments). */
const RECENT_RUNS = 64;

/** Creates an event sink that records calls, runs and jobs as OpenTelemetry spans. */
export function otelEventSink(options: OtelEventSinkOptions = {}): OtelEventSink {
  if (typeof options !== 'object' || options === null) throw new InvalidOptionError({ where: 'otelEventSink', option: 'options', value: options, expected: 'an object' });
  const tracer = options.tracer ?? trace.getTracer('ptc-runtime');
  if (typeof (tracer as Partial<Tracer>)?.startSpan !== 'function') {
    throw new InvalidOptionError({ where: 'otelEventSink', option: 'options.tracer', value: tracer, expected: 'an OpenTelemetry Tracer (an object with startSpan), for example provider.getTracer("my-app")' });
  }
  const maxValueChars = positiveInteger(options.maxValueChars, DEFAULT_MAX_VALUE_CHARS, 'maxValueChars');
  const maxOpenSpans = positiveInteger(options.maxOpenSpans, DEFAULT_MAX_OPEN_SPANS, 'maxOpenSpans');
  const record = { host: options.host, recordArgs: options.recordArgs === true, recordValues: options.recordValues === true, maxValueChars };

  const evicted = `no end was recorded: more than maxOpenSpans=${maxOpenSpans} spans were open`;
  const calls = new OpenSpans<CallEntry>(maxOpenSpans, (entry) => endIncomplete(entry.span, evicted));
  const jobs = new OpenSpans<Span>(maxOpenSpans, (span) => endIncomplete(span, evicted));
  const recentRuns = new RecentMap<Context>(RECENT_RUNS);
  const handlers: EventHandlers = {
    ...callSpanHandlers(tracer, calls, recentRuns, record),
    ...runEventHandlers(tracer, calls, recentRuns),
    ...jobSpanHandlers(tracer, jobs, record),
  };
  let closed = false;
  let warned = false;

  const sink = ((event: ToolEvent) => {
    if (closed) return;
    try {
      if (typeof event !== 'object' || event === null) return;
      const type = (event as { type?: unknown }).type;
      // An own-property lookup: an event typed "constructor" or "__proto__" is just unknown.
      if (typeof type === 'string' && Object.hasOwn(handlers, type)) handlers[type]!(event as unknown as Fields);
    } catch (err) {
      if (warned) return;
      warned = true;
      process.emitWarning(`ptc-runtime otel: the sink failed on an event and ignored it (further failures of this sink are not reported): ${errorText(err)}`);
    }
  }) as OtelEventSink;

  const middleware: ExecuteMiddleware = (execution, next) => {
    let entry: CallEntry | undefined;
    try {
      const callId: unknown = execution?.callId;
      entry = !closed && typeof callId === 'string' ? calls.first(callId) : undefined;
    } catch {
      entry = undefined;
    }
    return entry ? otelContext.with(entry.context, next) : next();
  };

  const close = () => {
    if (closed) return;
    closed = true;
    for (const entry of calls.drain()) endIncomplete(entry.span, 'the sink was closed before this call ended');
    for (const span of jobs.drain()) endIncomplete(span, 'the sink was closed before this job ended');
    recentRuns.clear();
  };

  Object.defineProperties(sink, {
    middleware: { value: middleware, enumerable: true },
    openSpans: { get: () => calls.size + jobs.size, enumerable: true },
    close: { value: close, enumerable: true },
  });
  return Object.freeze(sink);
}

function endIncomplete(span: Span, why: string): void {
  span.setAttribute(PTC.incomplete, true);
  span.setStatus({ code: SpanStatusCode.ERROR, message: why });
  span.end();
}

function positiveInteger(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidOptionError({ where: 'otelEventSink', option: name, value, expected: 'a positive integer' });
  }
  return value;
}
