/**
 * The `calls` list in run_code's value is for the model, so it is short: a program may make
 * thousands of calls, and listing each would put back into the context what PTC keeps out of it.
 * Past {@link MAX_LISTED_CALLS} it keeps the first and last calls and says how many it left out;
 * the counts by outcome are always complete.
 */
import type { ChildCallRecord } from '../../bridge/index.js';

/** One child call in the value: tool, outcome, time, and whether it completed. */
export type RunCodeCall = Pick<ChildCallRecord, 'tool' | 'status' | 'ms' | 'settlement'>;

/** Calls listed one by one at most (the first 40 and the last 10 beyond it). */
export const MAX_LISTED_CALLS = 50;

/** Counts of a run's calls by outcome. */
export interface CallCounts {
  readonly total: number;
  readonly ok: number;
  readonly error: number;
  readonly denied: number;
  /** Refused by the bridge before the pipeline (unknown tool, argument caps, past maxCalls). */
  readonly refused: number;
  /** Cut short by the end of the run: cancelled or may have completed. */
  readonly interrupted: number;
}

/** The short list and complete counts of a run's calls. */
export function listCalls(records: readonly ChildCallRecord[]): { calls: RunCodeCall[]; omitted: number; counts: CallCounts } {
  const counts = { total: records.length, ok: 0, error: 0, denied: 0, refused: 0, interrupted: 0 };
  for (const r of records) {
    if (r.status === 'ok' || r.status === 'error' || r.status === 'denied' || r.status === 'refused') counts[r.status]++;
    if (r.settlement !== 'completed') counts.interrupted++;
  }
  const brief = ({ tool, status, ms, settlement }: ChildCallRecord): RunCodeCall => ({ tool, status, ms: Math.round(ms * 100) / 100, settlement });
  if (records.length <= MAX_LISTED_CALLS) return { calls: records.map(brief), omitted: 0, counts };
  const head = records.slice(0, MAX_LISTED_CALLS - 10).map(brief);
  const tail = records.slice(-10).map(brief);
  return { calls: [...head, ...tail], omitted: records.length - MAX_LISTED_CALLS, counts };
}
