/**
 * A PTC run's events on its run_code span. The run is the call whose id the events name
 * (`callId`, `parentCallId`), open from its `tool/call` until its `tool/result`, which comes
 * after `ptc/run-end`. A refusal can still come after that (a leaked promise, a late message
 * from a sandbox process): an ended span takes no events, so it gets a zero-length span of its
 * own under the run, found among the recently ended runs.
 */
import { SpanKind, SpanStatusCode, type Context, type Tracer } from '@opentelemetry/api';
import { defined, EXECUTE_TOOL, GEN_AI, idText, messageText, numberField, PTC, SPAN_EVENT, startTime, timeOf, type EventHandlers, type Fields } from './attributes.js';
import type { CallEntry, OpenSpans, RecentMap } from './open-spans.js';

/** Handlers of the run events, on the open call spans. */
export function runEventHandlers(tracer: Tracer, calls: OpenSpans<CallEntry>, recentRuns: RecentMap<Context>): EventHandlers {
  const runOf = (callId: unknown): CallEntry | undefined => (typeof callId === 'string' ? calls.first(callId) : undefined);

  return {
    'ptc/run-start': (e) => {
      const entry = runOf(e.callId);
      if (!entry) return;
      entry.isRun = true;
      const attributes = defined({ [PTC.runTokenId]: idText(e.tokenId) });
      entry.span.setAttributes(attributes);
      entry.span.addEvent(SPAN_EVENT.runStart, attributes, timeOf(e));
    },

    'ptc/run-end': (e) => {
      const entry = runOf(e.callId);
      if (!entry) return;
      const limit = e.limit as Fields | undefined;
      const attributes = defined({
        [PTC.runTokenId]: idText(e.tokenId),
        [PTC.runOutcome]: idText(e.outcome),
        [PTC.runCalls]: numberField(e.calls),
        [PTC.runDurationMs]: numberField(e.durationMs),
        [PTC.limitName]: idText(limit?.name),
        [PTC.limitValue]: numberField(limit?.value),
      });
      entry.span.addEvent(SPAN_EVENT.runEnd, attributes, timeOf(e));
      entry.span.setAttributes(attributes);
    },

    // The dispatch event names only its pair id, which the bridge makes `<run's call id>/<tag>.<n>`
    // (bridge/run-bridge.ts); the tag has no '/', so the run is what comes before the last one.
    'tool/ptc-dispatch': (e) => {
      if (typeof e.pairId !== 'string') return;
      const cut = e.pairId.lastIndexOf('/');
      const entry = cut > 0 ? runOf(e.pairId.slice(0, cut)) : undefined;
      entry?.span.addEvent(SPAN_EVENT.dispatch, defined({ [PTC.pairId]: idText(e.pairId), [GEN_AI.toolName]: idText(e.toolName) }), timeOf(e));
    },

    'ptc/call-refused': (e) => {
      if (typeof e.parentCallId !== 'string') return;
      const attributes = defined({ [GEN_AI.toolName]: idText(e.toolName), [PTC.runTokenId]: idText(e.tokenId), [PTC.reason]: messageText(e.reason) });
      const entry = runOf(e.parentCallId);
      if (entry) return void entry.span.addEvent(SPAN_EVENT.callRefused, attributes, timeOf(e));
      const run = recentRuns.get(e.parentCallId);
      if (!run) return;
      const span = tracer.startSpan(
        `${EXECUTE_TOOL} ${idText(e.toolName) ?? '(no name)'}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: { [GEN_AI.operationName]: EXECUTE_TOOL, ...attributes, [PTC.originKind]: 'ptc', [PTC.parentCallId]: idText(e.parentCallId) ?? '', [GEN_AI.errorType]: 'refused' },
          ...startTime(e),
        },
        run,
      );
      span.setStatus({ code: SpanStatusCode.ERROR, message: messageText(e.reason) ?? 'refused' });
      span.end(timeOf(e));
    },
  };
}
