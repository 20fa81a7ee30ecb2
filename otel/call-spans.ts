/**
 * One `execute_tool <tool>` span per call, from its `tool/call` to its `tool/result`, with the
 * policy decisions in between as span events. The parent is the call's run when a program made
 * it (`origin.parentCallId`, an open span: its `tool/call` came first and its `tool/result` comes
 * after the run's last child), else the context active at `tool/call`: the host emits that
 * event synchronously inside `host.call`, before the pipeline's first await, so it is the
 * caller's context. A result that is an error (denial, block, a failing tool) sets status ERROR
 * with its message and `error.type` to its kind.
 */
import { context as otelContext, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Tracer } from '@opentelemetry/api';
import type { ToolHost } from '../tools/index.js';
import { defined, EXECUTE_TOOL, GEN_AI, idText, messageText, numberField, originAttributes, PTC, SPAN_EVENT, startTime, timeOf, type EventHandlers, type Fields } from './attributes.js';
import { boundedJson } from './bounded-text.js';
import type { CallEntry, OpenSpans, RecentMap } from './open-spans.js';

/** What the call spans record beyond names, ids and outcomes. */
export interface CallRecording {
  readonly host: Pick<ToolHost, 'get'> | undefined;
  readonly recordArgs: boolean;
  readonly recordValues: boolean;
  readonly maxValueChars: number;
}

/** Handlers of `tool/call`, `tool/decision` and `tool/result`. */
export function callSpanHandlers(tracer: Tracer, calls: OpenSpans<CallEntry>, recentRuns: RecentMap<Context>, record: CallRecording): EventHandlers {
  const describe = (toolName: string): string | undefined => {
    try {
      return messageText(record.host?.get(toolName)?.description);
    } catch {
      return undefined;
    }
  };

  return {
    'tool/call': (e) => {
      if (typeof e.callId !== 'string') return;
      const toolName = idText(e.toolName) ?? '(no name)';
      const parentCallId = (e.origin as Fields | undefined)?.parentCallId;
      const parent = (typeof parentCallId === 'string' ? calls.first(parentCallId)?.context : undefined) ?? otelContext.active();
      const attributes: Attributes = {
        [GEN_AI.operationName]: EXECUTE_TOOL,
        [GEN_AI.toolName]: toolName,
        [GEN_AI.toolCallId]: idText(e.callId) ?? '',
        [GEN_AI.toolType]: 'function',
        ...originAttributes(e.origin),
        [PTC.argsValid]: e.argsValid === true,
      };
      const description = typeof e.toolName === 'string' ? describe(e.toolName) : undefined;
      if (description !== undefined) attributes[GEN_AI.toolDescription] = description;
      if (record.recordArgs && e.args !== undefined) attributes[GEN_AI.toolCallArguments] = boundedJson(e.args, record.maxValueChars);
      const span = tracer.startSpan(`${EXECUTE_TOOL} ${toolName}`, { kind: SpanKind.INTERNAL, attributes, ...startTime(e) }, parent);
      calls.add(e.callId, { span, context: trace.setSpan(parent, span), isRun: false });
    },

    'tool/decision': (e) => {
      const entry = typeof e.callId === 'string' ? calls.first(e.callId) : undefined;
      if (!entry) return;
      const stage = e.stage === 'approval' ? 'approval' : 'policy';
      const by = e.by as Fields | undefined;
      const decided = defined({ [PTC.decision]: idText(e.decision) ?? 'unknown', [PTC.decisionBy]: idText(by?.kind), [PTC.decisionIndex]: numberField(by?.index) });
      // An approval given in a framework's own flow names the framework and its approval id
      // (its free-text note is not recorded: it is a person's words).
      const via = defined({ [PTC.approvalVia]: idText(by?.via), [PTC.approvalFramework]: idText(by?.framework), [PTC.approvalId]: idText(by?.approvalId) });
      entry.span.addEvent(SPAN_EVENT.decision, defined({ [PTC.decisionStage]: stage, ...decided, ...via, [PTC.decisionReason]: messageText(e.reason) }), timeOf(e));
      if (stage === 'approval') entry.span.setAttributes({ [PTC.approval]: decided[PTC.decision]!, ...via });
      else entry.span.setAttributes(decided);
    },

    'tool/result': (e) => {
      const entry = typeof e.callId === 'string' ? calls.take(e.callId) : undefined;
      if (!entry) return;
      const { span } = entry;
      const denied = e.denied as Fields | undefined;
      const blocked = e.blocked as Fields | undefined;
      const post = Array.isArray(e.post) ? e.post.map((p: Fields | undefined) => idText(p?.type) ?? 'unknown') : [];
      span.setAttributes(
        defined({
          [PTC.durationMs]: numberField(e.durationMs),
          [PTC.deniedBy]: idText(denied?.by),
          [PTC.blocked]: blocked ? true : undefined,
          [PTC.blockedIndex]: numberField(blocked?.index),
          [PTC.postExecute]: post.length > 0 ? post : undefined,
        }),
      );
      if (e.isError === true) {
        const error = e.error as Fields | undefined;
        span.setAttribute(GEN_AI.errorType, idText(error?.kind) ?? '_OTHER');
        span.setStatus({ code: SpanStatusCode.ERROR, message: messageText(error?.message) ?? 'the call failed' });
      } else if (record.recordValues && e.value !== undefined) {
        span.setAttribute(GEN_AI.toolCallResult, boundedJson(e.value, record.maxValueChars));
      }
      span.end(timeOf(e));
      if (entry.isRun) recentRuns.set(e.callId as string, entry.context);
    },
  };
}
