/**
 * The host's event sink fan-out. What it guarantees, whatever the sinks do:
 * - every sink sees every event once, in `seq` order: an event emitted from inside a sink (a
 *   sink that reports, say) waits until the current one has reached every sink;
 * - `seq` and `time` are the host's: an emitted object cannot bring its own;
 * - an event is frozen, with what it carries (args, value, content, decisions, origin; the
 *   agent as a frozen copy of its id and name), before any sink sees it: one sink cannot
 *   rewrite what a later one (the audit log) records;
 * - a sink that throws, or an async sink that rejects, is reported as a warning and never breaks
 *   the call, even when what it throws cannot be printed.
 */
import { errorText } from './errors.js';
import type { EventSink, ToolEvent, UnstampedEvent } from './events.js';

/** A host's dispatcher: `emit` stamps, freezes and delivers; `sinks` is read at each delivery. */
export function createEventDispatch(now: () => number, sinks: () => readonly EventSink[]): (event: UnstampedEvent) => ToolEvent {
  let seq = 0;
  let delivering = false;
  const pending: ToolEvent[] = [];

  const report = (event: ToolEvent, err: unknown) => {
    process.emitWarning(`ptc-runtime: event sink failed on ${String(event.type)} #${event.seq}: ${errorText(err)}`);
  };
  const deliver = (event: ToolEvent) => {
    for (const sink of sinks()) {
      try {
        const returned: unknown = sink(event);
        if (returned !== undefined && typeof (returned as PromiseLike<unknown>)?.then === 'function') {
          Promise.resolve(returned).then(undefined, (err: unknown) => report(event, err));
        }
      } catch (err) {
        report(event, err);
      }
    }
  };

  return (event) => {
    // (seq and time first, then the event, is V8's fast clone; overwriting them after is cheap)
    const stampedSeq = ++seq;
    const stampedTime = now();
    const draft = { seq: stampedSeq, time: stampedTime, ...event } as { seq: number; time: number };
    if (draft.seq !== stampedSeq || draft.time !== stampedTime) {
      draft.seq = stampedSeq;
      draft.time = stampedTime;
    }
    const stamped = freezeEvent(draft as unknown as ToolEvent);
    if (delivering) {
      pending.push(stamped);
      return stamped;
    }
    delivering = true;
    try {
      deliver(stamped);
      for (let next = pending.shift(); next !== undefined; next = pending.shift()) deliver(next);
    } finally {
      delivering = false;
    }
    return stamped;
  };
}

/**
 * Freezes an event and the plain objects and arrays it holds. Snapshots the pipeline already
 * froze (args, values) stop the walk at once; the caller's `agent` is copied, not frozen in place.
 */
function freezeEvent(event: ToolEvent): ToolEvent {
  const record = event as unknown as Record<string, unknown>;
  const agent = record.agent as { id?: unknown; name?: unknown } | undefined;
  // The caller's agent object is theirs: the event records its id and name, frozen.
  if (typeof agent === 'object' && agent !== null && !Object.isFrozen(agent)) {
    record.agent = Object.freeze(agent.name === undefined ? { id: agent.id } : { id: agent.id, name: agent.name });
  }
  for (const key in record) freezeDeep(record[key]);
  return Object.freeze(event);
}

function freezeDeep(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) freezeDeep(child);
}
