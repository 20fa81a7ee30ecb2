/**
 * The output cap: `logs` + `result` reaching the model are at most `maxOutputBytes` (as JSON
 * text). Over it, the larger part (then, if still over, the other) is replaced by a spill handle
 * `{ spilled: { id, bytes }, head, tail }`: the whole text stays in the spill store and the model
 * sees where it starts and ends. Never a silent cut; intermediate values inside the run have no
 * byte cap at all.
 */
import type { JsonValue } from '../../tools/index.js';
import type { SpillHandle, SpillStore } from './spill-store.js';

/** What the model gets instead of an oversized part. */
export interface SpilledPart {
  readonly spilled: SpillHandle;
  /** The first characters of the spilled JSON text. */
  readonly head: string;
  /** The last characters of the spilled JSON text. */
  readonly tail: string;
}

/** Capped logs and result, with the byte counts before and after. */
export interface CappedOutput {
  readonly result: JsonValue | SpilledPart;
  readonly logs: string[] | SpilledPart;
  /** Bytes of logs + result the program produced. */
  readonly producedBytes: number;
  /** Bytes of logs + result handed to the model. */
  readonly returnedBytes: number;
}

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');

/** Cuts `text` to at most `n` UTF-16 units without splitting a surrogate pair. */
function sliceHead(text: string, n: number): string {
  if (text.length <= n) return text;
  const end = /[\uD800-\uDBFF]/.test(text[n - 1] ?? '') ? n - 1 : n;
  return text.slice(0, Math.max(0, end));
}
function sliceTail(text: string, n: number): string {
  if (text.length <= n) return text;
  const start = text.length - n;
  return text.slice(/[\uDC00-\uDFFF]/.test(text[start] ?? '') ? start + 1 : start);
}

/** Applies the cap; `resultJson` is the program's return value as JSON text. */
export function capOutput(options: { resultJson: string; logs: string[]; maxOutputBytes: number; spills: SpillStore }): CappedOutput {
  const { resultJson, logs, maxOutputBytes, spills } = options;
  const logsJson = JSON.stringify(logs);
  const produced = bytesOf(resultJson) + bytesOf(logsJson);
  let result: JsonValue | SpilledPart | undefined;
  let logsOut: string[] | SpilledPart = logs;
  if (produced <= maxOutputBytes) return { result: JSON.parse(resultJson) as JsonValue, logs, producedBytes: produced, returnedBytes: produced };

  // Previews: together at most about half the cap, so the handles and the rest fit.
  const preview = Math.max(16, Math.floor(maxOutputBytes / 8));
  const spill = (text: string): SpilledPart => ({ spilled: spills.put(text), head: sliceHead(text, preview), tail: sliceTail(text, preview) });
  const resultBigger = bytesOf(resultJson) >= bytesOf(logsJson);
  if (resultBigger) result = spill(resultJson);
  else logsOut = spill(logsJson);
  const size = () => bytesOf(JSON.stringify(result ?? JSON.parse(resultJson))) + bytesOf(JSON.stringify(logsOut));
  if (size() > maxOutputBytes) {
    if (resultBigger) logsOut = spill(logsJson);
    else result = spill(resultJson);
  }
  const finalResult = result ?? (JSON.parse(resultJson) as JsonValue);
  return { result: finalResult, logs: logsOut, producedBytes: produced, returnedBytes: bytesOf(JSON.stringify(finalResult)) + bytesOf(JSON.stringify(logsOut)) };
}
