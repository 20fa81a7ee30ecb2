/**
 * Background jobs as spans: `job <kind>` from `job/start` to `job/end`, under the context active
 * when the job started (the call that started it, with the sink's middleware), with a
 * `ptc.job.progress` event per progress report (the job manager coalesces them). A job that
 * failed or was killed is ERROR. Its label, value and progress messages are recorded only when
 * opted in: a label is often a command line.
 */
import { context as otelContext, SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { defined, GEN_AI, idText, messageText, numberField, PTC, SPAN_EVENT, startTime, timeOf, type EventHandlers, type Fields } from './attributes.js';
import { boundedJson } from './bounded-text.js';
import type { OpenSpans } from './open-spans.js';

/** What the job handlers record. */
export interface JobRecording {
  readonly recordArgs: boolean;
  readonly recordValues: boolean;
  readonly maxValueChars: number;
}

/** Handlers of the job events, keeping open job spans in `jobs`. */
export function jobSpanHandlers(tracer: Tracer, jobs: OpenSpans<Span>, record: JobRecording): EventHandlers {
  return {
    'job/start': (e) => {
      if (typeof e.jobId !== 'string') return;
      const kind = idText(e.kind) ?? 'job';
      const attributes = defined({ [PTC.jobId]: idText(e.jobId), [PTC.jobKind]: kind, [PTC.jobLabel]: record.recordArgs ? messageText(e.label) : undefined });
      jobs.add(e.jobId, tracer.startSpan(`job ${kind}`, { kind: SpanKind.INTERNAL, attributes, ...startTime(e) }, otelContext.active()));
    },

    'job/progress': (e) => {
      const span = typeof e.jobId === 'string' ? jobs.first(e.jobId) : undefined;
      if (!span) return;
      const progress = e.progress as Fields | undefined;
      const attributes = defined({
        [PTC.jobDone]: numberField(progress?.done),
        [PTC.jobTotal]: numberField(progress?.total),
        [PTC.jobMessage]: record.recordValues ? messageText(progress?.message) : undefined,
      });
      span.addEvent(SPAN_EVENT.jobProgress, attributes, timeOf(e));
    },

    'job/end': (e) => {
      const span = typeof e.jobId === 'string' ? jobs.take(e.jobId) : undefined;
      if (!span) return;
      const status = idText(e.status) ?? 'unknown';
      span.setAttributes(
        defined({
          [PTC.jobStatus]: status,
          [PTC.jobOutputBytes]: numberField(e.outputBytes),
          [PTC.jobDroppedBytes]: numberField(e.droppedBytes),
          [PTC.durationMs]: numberField(e.durationMs),
          [PTC.jobValue]: record.recordValues && e.value !== undefined ? boundedJson(e.value, record.maxValueChars) : undefined,
        }),
      );
      if (status !== 'succeeded') {
        span.setAttribute(GEN_AI.errorType, status);
        span.setStatus({ code: SpanStatusCode.ERROR, message: messageText(e.error) ?? `the job ended ${status}` });
      }
      span.end(timeOf(e));
    },
  };
}
