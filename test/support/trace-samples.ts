/**
 * How the checked-in trace samples of test/fixtures/session-logs/ were made (UPDATE_SESSION_LOGS=1
 * `npx vitest run test/trace-samples.test.ts` writes them again). Once checked in they are
 * durable: a later writer must not change them, every later reader must read them.
 *
 * - `ptc-trace-1-keyed.jsonl`: the events of `ptc-trace-1.jsonl` written again by a keyed writer
 *   (key SAMPLE_TRACE_KEY), so both samples give the same view;
 * - `hostile-trace-*.jsonl`: what the red team of issue 24 did to a trace, one file each.
 */
import { createTraceWriter, hashLine, type ToolEvent } from '../../tools/index.js';
import { SAMPLE_TRACE_KEY } from '../session-scenario.js';

/** Lines of a trace written by the real writer from event records (stamped in order unless they carry seq and time). */
export function writeTrace(records: readonly Record<string, unknown>[], options: { key?: string; traceId: string; times?: readonly [number, number] }): string[] {
  const lines: string[] = [];
  const [start, end] = options.times ?? [1_700_000_000_000, 1_700_000_000_999];
  let clock = 0;
  const writer = createTraceWriter({ write: (l) => lines.push(l), traceId: options.traceId, now: () => (clock++ === 0 ? start : end), ...(options.key ? { key: options.key } : {}) });
  records.forEach((r, i) => writer({ seq: i + 1, time: start + i + 1, ...r } as unknown as ToolEvent));
  writer.close();
  return lines;
}

/** The keyed sample: the unkeyed sample's events, with their own seq (host numbering) and time, chained under the sample key. */
export function keyedSample(unkeyedSample: string): string {
  const lines = unkeyedSample.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const header = lines[0]!;
  const end = lines.at(-1)!;
  const events = lines.slice(1, -1).map(({ seq, time, prevHash: _chain, hostSeq, ...event }) => ({ seq: hostSeq ?? seq, time, ...event }));
  return writeTrace(events, { key: SAMPLE_TRACE_KEY, traceId: 'sample-keyed-trace', times: [header.time as number, end.time as number] }).join('\n') + '\n';
}

/** Everything that drives a terminal, reorders or hides text (as in trace-reader-hostile.test.ts). */
export const HOSTILE_TEXT = '\u001b[1A\u001b[2K\r\b\u001b]52;c;cHduZWQ=\u0007\u009b2J\u007f\u202e\u2066\u200b\ufeff\u2028\ud800';

const call = (callId: string, toolName: string, args: unknown, extra: Record<string, unknown> = {}) => ({ type: 'tool/call', callId, toolName, args, argsValid: true, origin: { kind: 'model' }, ...extra });
const result = (callId: string, toolName: string, extra: Record<string, unknown> = {}) => ({ type: 'tool/result', callId, toolName, isError: false, content: [], additionalContexts: [], post: [], durationMs: 1, ...extra });

/** The hostile samples, by file name. */
export function hostileTraceSamples(): Record<string, string | Buffer> {
  const h = HOSTILE_TEXT;
  // Finding 5: a validly chained trace with terminal escapes in the fields `show` once printed raw.
  const escapes = writeTrace(
    [
      call(`c${h}`, `read${h}`, { [`k${h}`]: h }, { mode: `parallel${h}`, agent: { id: h, name: h } }),
      { type: 'tool/decision', callId: `c${h}`, toolName: `read${h}`, stage: 'policy', decision: `deny${h}`, by: { kind: `guard${h}`, index: 0 }, reason: h },
      result(`c${h}`, `read${h}`, { isError: true, denied: { by: `guard${h}`, reason: h } }),
      { type: 'ptc/run-suspended', callId: `c${h}`, pending: [{ toolName: h, reason: h }] },
      { type: 'ptc/run-resumed', callId: `c${h}`, prevTraceHead: { traceId: h, seq: 1, hash: 'ab'.repeat(32) } },
    ],
    { traceId: 'hostile-escapes' },
  );
  // Finding 6: two turns numbering their calls from call_0; the first is denied.
  const reused = writeTrace(
    [
      call('call_0', 'read_file', { path: '/etc/shadow' }),
      { type: 'tool/decision', callId: 'call_0', toolName: 'read_file', stage: 'policy', decision: 'deny', by: { kind: 'guard', index: 0 }, reason: 'system files are off limits' },
      result('call_0', 'read_file', { isError: true, denied: { by: 'guard', reason: 'system files are off limits' } }),
      call('call_0', 'read_file', { path: '/src/a.ts' }),
      { type: 'tool/decision', callId: 'call_0', toolName: 'read_file', stage: 'policy', decision: 'allow', by: { kind: 'default' } },
      result('call_0', 'read_file', { value: 'contents' }),
    ],
    { traceId: 'hostile-reused-ids' },
  );
  // Finding 7: a forged call put before the header of an intact trace.
  const forged = JSON.stringify({ seq: 1, time: 1_700_000_000_001, type: 'tool/call', callId: 'forged', toolName: 'wire_money', args: { to: 'attacker' }, argsValid: true, origin: { kind: 'model' } });
  // Finding 8: a real U+FFFD whose bytes EF BF BD were replaced by the single byte FF (same text once decoded).
  const fffd = Buffer.from(writeTrace([call('c', 'note', { text: 'a\ufffdb' })], { traceId: 'hostile-bytes' }).join('\n') + '\n', 'utf8');
  const at = fffd.indexOf(Buffer.from([0xef, 0xbf, 0xbd]));
  // Keyed: the tail cut and an end line appended that only SHA-256 could compute.
  const keyed = writeTrace([call('a', 'team_get', { id: 1 }), result('a', 'team_get'), call('b', 'expense_flag', { id: 2 }), result('b', 'expense_flag')], { key: SAMPLE_TRACE_KEY, traceId: 'hostile-keyed-cut' });
  const kept = keyed.slice(0, 3);
  const cut = [...kept, JSON.stringify({ seq: 3, time: 1_700_000_000_999, prevHash: hashLine(kept.at(-1)!), type: 'trace/end', events: 2 })];
  return {
    'hostile-trace-escapes.jsonl': escapes.join('\n') + '\n',
    'hostile-trace-reused-ids.jsonl': reused.join('\n') + '\n',
    'hostile-trace-prepended.jsonl': [forged, ...reused].join('\n') + '\n',
    'hostile-trace-bytes.jsonl': Buffer.concat([fffd.subarray(0, at), Buffer.from([0xff]), fffd.subarray(at + 3)]),
    'hostile-trace-keyed-cut.jsonl': cut.join('\n') + '\n',
  };
}
