import { describe, expect, it } from 'vitest';
import { DEFAULT_JOB_OUTPUT_BYTES, OutputRing } from './output-ring.js';

describe('OutputRing', () => {
  it('documents a 256 KiB default', () => {
    expect(DEFAULT_JOB_OUTPUT_BYTES).toBe(262144);
    expect(new OutputRing().capacity).toBe(262144);
  });

  it('returns everything appended while under capacity', () => {
    const ring = new OutputRing(100);
    ring.append('hello ');
    ring.append('world');
    expect(ring.read(0, 100)).toEqual({ text: 'hello world', offset: 0, nextOffset: 11, skippedBytes: 0 });
    expect(ring.droppedBytes).toBe(0);
  });

  describe('when output exceeds capacity', () => {
    it('keeps the newest bytes and counts the dropped ones', () => {
      const ring = new OutputRing(10);
      ring.append('0123456789');
      ring.append('abcde');
      expect(ring.totalBytes).toBe(15);
      expect(ring.droppedBytes).toBe(5);
      expect(ring.read(0, 100)).toEqual({ text: '56789abcde', offset: 5, nextOffset: 15, skippedBytes: 5 });
    });

    it('keeps the tail of a single chunk larger than the ring', () => {
      const ring = new OutputRing(4);
      ring.append('ab');
      ring.append('0123456789');
      expect(ring.read(0, 100).text).toBe('6789');
      expect(ring.droppedBytes).toBe(8);
      expect(ring.totalBytes).toBe(12);
    });
  });

  it('pages with absolute offsets', () => {
    const ring = new OutputRing(100);
    ring.append('abcdefghij');
    const first = ring.read(0, 4);
    expect(first.text).toBe('abcd');
    const second = ring.read(first.nextOffset, 4);
    expect(second).toEqual({ text: 'efgh', offset: 4, nextOffset: 8, skippedBytes: 0 });
    expect(ring.read(50, 4)).toEqual({ text: '', offset: 10, nextOffset: 10, skippedBytes: 0 });
  });

  describe('when a window edge falls inside a multi-byte character', () => {
    it('never splits the character', () => {
      const ring = new OutputRing(100);
      ring.append('aé€😀b'); // 1 + 2 + 3 + 4 + 1 bytes
      expect(ring.read(0, 2).text).toBe('a');
      expect(ring.read(2, 100).text).toBe('€😀b');
      expect(ring.read(1, 5).text).toBe('é€');
    });

    it('returns one whole character when the window is narrower than it, so paging advances', () => {
      const ring = new OutputRing(100);
      ring.append('😀😀');
      const page = ring.read(0, 1);
      expect(page).toMatchObject({ text: '😀', nextOffset: 4 });
      expect(ring.read(page.nextOffset, 1).text).toBe('😀');
    });

    it('does not produce replacement characters when the ring drops half a character', () => {
      const ring = new OutputRing(5);
      ring.append('€€'); // 6 bytes, ring keeps the last 5
      expect(ring.read(0, 100).text).toBe('€');
    });
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => new OutputRing(0)).toThrow(/capacity must be a positive integer/);
  });
});
