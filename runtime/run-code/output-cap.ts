/**
 * The output cap: `maxOutputBytes` bounds what the model reads, which is run_code's rendered
 * text (render.ts) measured in UTF-8 bytes, not the JSON of the value (a 15 KB result nested
 * 500 deep once rendered into 7.5 MB of indentation; CJK text passed a cap counted in UTF-16
 * units at 1.5 times the bytes).
 *
 * When the whole text is over the cap, the result is shown compact instead of indented (the
 * renderer decides that from the same cap); if it is still over, the larger of the result and
 * the logs (as rendered) is spilled: its JSON text is kept whole in the spill store and the value carries
 * `{ spilled: { id, bytes }, head, tail }` instead; if the text is still over, the other part
 * is spilled too. Head and tail are cut on character boundaries by the bytes they take in the
 * rendered text, and sized so the text fits: each at most an eighth of the cap, less when the
 * rest of the report leaves less room. A part is spilled only if that makes it smaller: a part
 * never grows by spilling. Never a silent cut; intermediate values inside the run have no byte
 * cap at all. `returnedBytes` is the exact size of the text the model gets.
 */
import type { AgentRef, JsonValue } from '../../tools/index.js';
import type { CallCounts, RunCodeCall } from './call-list.js';
import { logsPart, renderText, resultPart } from './render.js';
import type { SpillHandle, SpillStore } from './spill-store.js';

/** What the model gets instead of an oversized part. */
export interface SpilledPart {
  readonly spilled: SpillHandle;
  /** The start of the spilled JSON text. */
  readonly head: string;
  /** The end of the spilled JSON text. */
  readonly tail: string;
}

/** Capped logs and result, with the byte counts before and after. */
export interface CappedOutput {
  readonly result: JsonValue | SpilledPart;
  readonly logs: string[] | SpilledPart;
  /** Bytes of the JSON of logs + result the program produced. */
  readonly producedBytes: number;
  /** Bytes of the rendered text the model gets (result, logs and the rest of the report). */
  readonly returnedBytes: number;
}

/** Options of {@link capOutput}: the two parts, and the rest of the report that shares the cap. */
export interface CapOutputOptions {
  /** The program's return value as JSON text. */
  readonly resultJson: string;
  readonly logs: string[];
  readonly maxOutputBytes: number;
  readonly spills: SpillStore;
  /** The agent of the run: a spill is read back by it only. */
  readonly owner?: AgentRef;
  /** The child calls as listed in the value, their counts and any type warnings: the rest of the report. */
  readonly calls?: readonly RunCodeCall[];
  readonly counts?: CallCounts;
  readonly diagnostics?: readonly { line: number; column: number; message: string }[];
}

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');

type Draft = { result: JsonValue | SpilledPart; logs: string[] | SpilledPart; calls: JsonValue; stats: JsonValue; diagnostics?: JsonValue };

/** Applies the cap. */
export function capOutput(options: CapOutputOptions): CappedOutput {
  const { resultJson, logs, maxOutputBytes: cap, spills } = options;
  const logsJson = JSON.stringify(logs);
  const producedBytes = bytesOf(resultJson) + bytesOf(logsJson);
  const resultValue = JSON.parse(resultJson) as JsonValue;
  // The value as run_code returns it, as far as the report shows it: the renderer measures it.
  const draft: Draft = {
    result: resultValue,
    logs,
    calls: (options.calls ?? []) as unknown as JsonValue,
    stats: { calls: (options.counts ?? {}) as unknown as JsonValue },
    ...(options.diagnostics ? { diagnostics: options.diagnostics as unknown as JsonValue } : {}),
  };
  const size = () => bytesOf(renderText(draft as unknown as JsonValue, cap));

  if (size() > cap) {
    // Over the cap the result is shown compact: that is the inline size spilling must beat.
    const parts = [
      { key: 'result' as const, json: resultJson, inline: bytesOf(resultPart(resultValue, 'compact')), render: (p: SpilledPart) => resultPart(p) },
      { key: 'logs' as const, json: logsJson, inline: logs.length === 0 ? 0 : bytesOf(logsPart(logs)), render: (p: SpilledPart) => logsPart(p) },
    ].sort((x, y) => y.inline - x.inline);
    for (const part of parts) {
      if (size() <= cap) break;
      if (part.inline === 0) continue;
      const inline = draft[part.key];
      const handle = spills.put(part.json, options.owner ? { owner: options.owner } : {});
      // The report with this part spilled and no previews: what is left of the cap is for them.
      draft[part.key] = { spilled: handle, head: '', tail: '' };
      const each = Math.max(0, Math.min(Math.floor(cap / 8), Math.floor((cap - size()) / 2)));
      const spilled: SpilledPart = { spilled: handle, head: headWithin(part.json, each), tail: tailWithin(part.json, each) };
      if (bytesOf(part.render(spilled)) < part.inline) {
        draft[part.key] = spilled as never;
      } else {
        draft[part.key] = inline as never;
        spills.delete(handle.id);
      }
    }
  }
  return { result: draft.result, logs: draft.logs, producedBytes, returnedBytes: size() };
}

/** Bytes a code unit takes in the rendered text (U+2028/U+2029 are shown as 6-byte escapes). */
function shownBytes(text: string, i: number): { bytes: number; units: number } {
  const c = text.charCodeAt(i);
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (c === 0x2028 || c === 0x2029) return { bytes: 6, units: 1 };
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { bytes: 4, units: 2 };
  }
  return { bytes: 3, units: 1 };
}

/** The longest start of `text` that takes at most `max` bytes as shown, never splitting a character. */
export function headWithin(text: string, max: number): string {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const step = shownBytes(text, i);
    if (bytes + step.bytes > max) break;
    bytes += step.bytes;
    i += step.units;
  }
  return text.slice(0, i);
}

/** The longest end of `text` that takes at most `max` bytes as shown, never splitting a character. */
export function tailWithin(text: string, max: number): string {
  let bytes = 0;
  let i = text.length;
  while (i > 0) {
    // Step back over a whole character: a low surrogate with its high one before it is one.
    const lowPair = i >= 2 && text.charCodeAt(i - 1) >= 0xdc00 && text.charCodeAt(i - 1) <= 0xdfff && text.charCodeAt(i - 2) >= 0xd800 && text.charCodeAt(i - 2) <= 0xdbff;
    const start = lowPair ? i - 2 : i - 1;
    const step = shownBytes(text, start);
    if (bytes + step.bytes > max) break;
    bytes += step.bytes;
    i = start;
  }
  return text.slice(i);
}
