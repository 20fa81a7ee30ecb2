import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader } from './frames.js';
import { readHostMessage, readWorkerMessage, WireProtocolError, type HostToWorker, type WorkerToHost } from './wire.js';
import type { RunLimits } from '../program-runner.js';
import { MAX_CALL_BATCH } from '../isolate/guest/protocol.js';

/** `message` through a frame and back, read as the host reads a worker's frames. */
function roundTrip<T>(message: WorkerToHost | HostToWorker, read: (raw: Record<string, unknown>) => T): T[] {
  const out: T[] = [];
  new FrameReader(() => 1 << 30, (raw) => out.push(read(raw))).push(encodeFrame(message));
  return out;
}

const long = JSON.stringify('x'.repeat(5000));
const WORKER_MESSAGES: WorkerToHost[] = [
  { t: 'ready', pid: 42 },
  { t: 'calls', runId: 1, items: [1, 'echo', '{}', 2, 'read', long] },
  { t: 'log', runId: 1, level: 'warn', text: 'careful' },
  { t: 'idle', runId: 1 },
  { t: 'late', runId: 1, names: ['echo', 'x'.repeat(200)], more: 0 },
  { t: 'late', runId: 1, names: [], more: 7 },
  { t: 'done', runId: 1, outcome: { ok: true, resultJson: long, cpuMs: 1.5, wallMs: 3 } },
  { t: 'done', runId: 1, outcome: { ok: false, failure: { kind: 'thrown', message: 'Error: x', line: 2, column: 5 }, cpuMs: 0, wallMs: 1 } },
  { t: 'done', runId: 1, outcome: { ok: false, failure: { kind: 'limit', limit: 'cpuMs', value: 100, message: 'over' }, cpuMs: 100, wallMs: 120 } },
];
const HOST_MESSAGES: HostToWorker[] = [
  { t: 'run', runId: 3, request: { js: `return ${long};`, toolNames: ['echo'], limits: { cpuMs: 1 } as unknown as RunLimits, lineOffset: 0 } },
  { t: 'results', runId: 3, items: [1, 1, long, '', 2, 0, 'echo', 'failed'] },
  { t: 'abort', runId: 3 },
];

describe('the sandbox wire', () => {
  it('carries each message of either side through a frame unchanged', () => {
    for (const m of WORKER_MESSAGES) expect(roundTrip(m, readWorkerMessage)).toEqual([m]);
    for (const m of HOST_MESSAGES) expect(roundTrip(m, readHostMessage)).toEqual([m]);
  });

  it('carries a batch of exactly MAX_CALL_BATCH calls, the most the guest sends', () => {
    const items = Array.from({ length: MAX_CALL_BATCH }, (_, i) => [i + 1, 'echo', '{}']).flat();
    expect(roundTrip({ t: 'calls', runId: 1, items }, readWorkerMessage)).toEqual([{ t: 'calls', runId: 1, items }]);
  });

  it('refuses a worker frame that is not one of its messages, saying what is wrong', () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ t: 'run', runId: 1 }, /unknown message type "run"/],
      [{ t: 'calls', items: [1, 'echo', '{}'] }, /no run id/],
      [{ t: 'calls', runId: 1, items: [1, 'echo'] }, /triples/],
      [{ t: 'calls', runId: 1, items: ['1', 'echo', '{}'] }, /numeric id/],
      [{ t: 'calls', runId: 1, items: [] }, /triples/],
      [{ t: 'calls', runId: 1, items: Array.from({ length: 1025 }, (_, i) => [i + 1, 'echo', '{}']).flat() }, /more than 1024 calls/],
      [{ t: 'log', runId: 1, level: 'shout', text: 'x' }, /bad level/],
      [{ t: 'log', runId: 1, level: 'log', text: { toString: 1 } }, /bad level or text/],
      [{ t: 'done', runId: 1, outcome: { ok: true, resultJson: 42, cpuMs: 0, wallMs: 0 } }, /not JSON text/],
      [{ t: 'done', runId: 1, outcome: { ok: true, resultJson: '1', cpuMs: -1, wallMs: 0 } }, /CPU or wall time/],
      [{ t: 'done', runId: 1, outcome: { ok: 'yes', cpuMs: 0, wallMs: 0 } }, /neither a result nor a failure/],
      [{ t: 'done', runId: 1, outcome: { ok: false, failure: { kind: 'escaped', message: '' }, cpuMs: 0, wallMs: 0 } }, /unknown shape/],
      [{ t: 'done', runId: 1, outcome: { ok: false, failure: { kind: 'limit', limit: 'patience', value: 1, message: '' }, cpuMs: 0, wallMs: 0 } }, /no known limit/],
      [{ t: 'ready', pid: 'me' }, /no pid/],
      [{ t: 'idle', runId: -1 }, /run id/],
      [{ t: 'idle' }, /no run id/],
      [{ t: 'late', runId: 1, names: [], more: 0 }, /up to 100 names and a count/],
      [{ t: 'late', runId: 1, names: Array.from({ length: 101 }, () => 'echo'), more: 0 }, /up to 100 names/],
      [{ t: 'late', runId: 1, names: ['echo'], more: -1 }, /and a count/],
      [{ t: 'late', runId: 1, names: 'echo', more: 1 }, /up to 100 names/],
      [{ t: 'late', runId: 1, names: [{}], more: 0 }, /a name in "late"/],
      [{ t: 'late', runId: 1, names: ['x'.repeat(201)], more: 0 }, /up to 200 characters/],
    ];
    for (const [raw, problem] of bad) {
      expect(() => readWorkerMessage(raw), JSON.stringify(raw)).toThrow(WireProtocolError);
      expect(() => readWorkerMessage(raw)).toThrow(problem);
    }
  });

  it('reads any JSON object a worker might send as a message or a WireProtocolError, never anything else', () => {
    const field = fc.oneof(fc.constantFrom('ready', 'calls', 'log', 'late', 'done', 'run'), fc.jsonValue());
    const frame = fc.record({ t: field, runId: fc.oneof(fc.nat(), fc.jsonValue()), pid: fc.jsonValue(), items: fc.oneof(fc.array(fc.oneof(fc.nat(), fc.string())), fc.jsonValue()), level: fc.oneof(fc.constantFrom('log', 'warn'), fc.jsonValue()), text: fc.jsonValue(), names: fc.oneof(fc.array(fc.string()), fc.jsonValue()), more: fc.oneof(fc.nat(), fc.jsonValue()), outcome: fc.jsonValue() }, { requiredKeys: ['t'] });
    fc.assert(
      fc.property(frame, (raw) => {
        try {
          const m = readWorkerMessage(JSON.parse(JSON.stringify(raw)) as Record<string, unknown>);
          expect(['ready', 'calls', 'log', 'late', 'done']).toContain(m.t);
        } catch (err) {
          expect(WireProtocolError.isInstance(err), String(err)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
