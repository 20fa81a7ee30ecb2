/** Small checks shared by the runners: byte caps, call ids, abort reasons, dropped calls. */
import type { LateCallEvent } from './isolate/run-types.js';

/** UTF-8 bytes of a string. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Whether `text` is over `cap` UTF-8 bytes (cheap length checks first). */
export function overBytes(text: string, cap: number): boolean {
  return text.length > cap || (text.length * 3 > cap && utf8Length(text) > cap);
}

/** A call id as the guest numbers them: a positive safe integer. */
export function isCallId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** A readable account of why a signal aborted a run. */
export function abortMessage(reason: unknown): string {
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message) return `The run was aborted: ${reason.message}.`;
  if (typeof reason === 'string' && reason) return `The run was aborted: ${reason}.`;
  return 'The run was aborted by the host.';
}

/**
 * A run in progress that its runner can stop (when the runner closes). Runners keep their runs
 * in a set instead of linking an AbortController to each run's signal: Node's
 * `addEventListener` alone costs ~20 µs on a cold start.
 */
export interface StoppableRun {
  stop(reason: unknown): void;
}

/** At most this many dropped calls of one message are reported (a flood stays bounded). */
const MAX_REPORTED_DROPS = 1000;

/**
 * Reports each call of a `calls` message (id, name, args triples) that was dropped, by name
 * (cut to 200 characters); anything else is ignored. A throwing `report` must not break the host.
 */
export function reportDroppedCalls(kind: unknown, items: unknown, reason: LateCallEvent['reason'], report: ((event: LateCallEvent) => void) | undefined): void {
  if (report === undefined || kind !== 'calls' || !Array.isArray(items)) return;
  for (let i = 1; i < items.length && i < 3 * MAX_REPORTED_DROPS; i += 3) {
    const name: unknown = items[i];
    try {
      report({ name: typeof name === 'string' ? name.slice(0, 200) : '', reason });
    } catch {
      // the observer's problem
    }
  }
}
