/** UI cards of run_code (pure: they run live and on replay). */
import type { JsonValue, ResultCard } from '../../tools/index.js';
import { clip } from './run-failure.js';

/** The result card of run_code: a job card for a background handle, else the code card (its calls are filled in by the session view). */
export function presentRunCode(source: string, value: JsonValue): ResultCard | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (value.kind === 'background' && typeof value.jobId === 'string') {
    return { card: 'job', phase: 'result', label: 'run_code', jobKind: 'run_code', jobId: value.jobId, status: 'running' };
  }
  if (typeof value.rejected === 'string') return { card: 'code', phase: 'result', source, calls: [], outcome: 'error', preview: clip(value.rejected, 200) };
  const result = JSON.stringify(value.result ?? null);
  return { card: 'code', phase: 'result', source, calls: [], outcome: 'ok', preview: clip(result, 200) };
}
