import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameError, FrameReader } from './frames.js';
import type { RunLimits } from '../program-runner.js';
import type { WireMessage } from './wire.js';

/** Messages read from `bytes` (fed in pieces of `step` bytes). */
function read(bytes: Buffer, step = bytes.length, maxBytes = 1 << 30): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const reader = new FrameReader(() => maxBytes, (m) => out.push(m));
  for (let at = 0; at < bytes.length; at += step) reader.push(bytes.subarray(at, at + step));
  return out;
}

/** A segmented frame built by hand: header object, then raw strings. */
function segmented(header: Record<string, unknown>, segments: string[], body?: (b: Buffer) => Buffer): Buffer {
  const head = Buffer.from(JSON.stringify(header));
  const raw = Buffer.concat(segments.map((s) => Buffer.from(s)));
  let inner: Buffer = Buffer.concat([Buffer.from([0]), Buffer.alloc(4), head, raw]);
  inner.writeUInt32LE(head.length, 1);
  if (body) inner = body(inner);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(inner.length);
  return Buffer.concat([len, inner]);
}

describe('frames', () => {
  const big = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, text: 'quote " and é and \\u2028 \u2028', n: i / 3 })));

  it('carries long JSON texts raw and gives back the same message, in any chunking', () => {
    const messages: WireMessage[] = [
      { t: 'results', runId: 1, items: [1, 1, big, '', 2, 0, 'tool', 'short message'] },
      { t: 'done', runId: 1, outcome: { ok: true, resultJson: big, cpuMs: 1, wallMs: 2 } },
      { t: 'run', runId: 2, request: { js: `return ${big};`, toolNames: ['a'], limits: {} as RunLimits } },
      { t: 'calls', runId: 2, items: [3, 'echo', '{"n":1}'] },
    ];
    const bytes = Buffer.concat(messages.map(encodeFrame));
    // The long texts are not escaped into the frame: it is about their size, not 15% more.
    expect(encodeFrame(messages[0]!).length).toBeLessThan(Buffer.byteLength(big) + 200);
    expect(read(bytes)).toEqual(messages);
    expect(read(bytes, 7)).toEqual(messages);
  });

  it('refuses a segmented frame whose table does not match its bytes', () => {
    const ok = { t: 'results', runId: 1, items: [1, 1, null, ''], $raw: [[0, 2]], $len: [5] };
    expect(read(segmented(ok, ['"abc"']))).toEqual([{ t: 'results', runId: 1, items: [1, 1, '"abc"', ''] }]);
    const bad: [string, Buffer][] = [
      ['longer than the frame', segmented({ ...ok, $len: [50] }, ['"abc"'])],
      ['bytes left over', segmented(ok, ['"abc"', 'xx'])],
      ['over a value, not a free slot', segmented({ ...ok, items: [1, 1, 'taken', ''] }, ['"abc"'])],
      ['outside the items', segmented({ ...ok, $raw: [[0, 9]] }, ['"abc"'])],
      ['no table', segmented({ t: 'x' }, [])],
      ['a field that is not free', segmented({ t: 'done', outcome: { resultJson: '1' }, $raw: [[1]], $len: [5] }, ['"abc"'])],
      ['an unknown place', segmented({ t: 'done', $raw: [[7]], $len: [5] }, ['"abc"'])],
      ['a header longer than the body', segmented(ok, ['"abc"'], (b) => (b.writeUInt32LE(1 << 20, 1), b))],
    ];
    for (const [what, bytes] of bad) expect(() => read(bytes), what).toThrow(FrameError);
  });

  it('refuses a frame over the cap before reading it, and a body that is not a JSON object', () => {
    expect(() => read(encodeFrame({ t: 'calls', runId: 1, items: [1, 'x', 'x'.repeat(5000)] }), 1 << 20, 1000)).toThrow(/over the frame cap of 1000 bytes/);
    const text = (s: string) => {
      const b = Buffer.from(s);
      const h = Buffer.alloc(4);
      h.writeUInt32LE(b.length);
      return Buffer.concat([h, b]);
    };
    expect(() => read(text('[1,2]'))).toThrow('a message is not an object');
    expect(() => read(text('{nope'))).toThrow('a message is not valid JSON');
  });
});
