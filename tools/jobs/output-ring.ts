/**
 * A job's output: a bounded ring of UTF-8 bytes. A background job can print without end (a
 * build log, a `tail -f`), and nothing reads it until the model asks, so the buffer keeps only
 * the newest `capacity` bytes and *counts* what it drops instead of losing it silently.
 *
 * Offsets are absolute byte positions in everything the job ever appended (dropped bytes
 * included), so a reader can page with `nextOffset` and see exactly how much it missed when
 * the ring moved past it. Reads never split a UTF-8 character: a window edge that falls inside
 * one moves to the nearest character boundary inside the window.
 */
import { InvalidOptionError } from '../errors.js';

/** Default ring size of one job's output: 256 KiB. */
export const DEFAULT_JOB_OUTPUT_BYTES = 256 * 1024;

/** One page of output. */
export interface OutputSlice {
  /** The text of the page. */
  readonly text: string;
  /** Absolute byte offset where `text` starts (may be after the offset asked for). */
  readonly offset: number;
  /** Absolute byte offset just after `text`: pass it back to read on. */
  readonly nextOffset: number;
  /** Bytes between the offset asked for and `offset` that the ring had already dropped. */
  readonly skippedBytes: number;
}

/** A bounded append-only byte ring with a dropped-bytes counter. */
export class OutputRing {
  private chunks: Buffer[] = [];
  private retained = 0;
  /** Bytes appended over the whole life of the ring. */
  totalBytes = 0;
  /** Bytes dropped from the head to stay within `capacity`. */
  droppedBytes = 0;

  constructor(readonly capacity: number = DEFAULT_JOB_OUTPUT_BYTES) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new InvalidOptionError({ where: 'OutputRing', option: 'capacity', value: capacity, expected: 'a positive integer' });
  }

  /** Appends text (UTF-8 encoded); drops the oldest bytes beyond capacity. */
  append(text: string): void {
    if (text.length === 0) return;
    let bytes = Buffer.from(text, 'utf8');
    this.totalBytes += bytes.length;
    if (bytes.length >= this.capacity) {
      this.droppedBytes += this.retained + (bytes.length - this.capacity);
      bytes = bytes.subarray(bytes.length - this.capacity);
      this.chunks = [Buffer.from(bytes)];
      this.retained = bytes.length;
      return;
    }
    this.chunks.push(bytes);
    this.retained += bytes.length;
    while (this.retained > this.capacity) {
      const head = this.chunks[0]!;
      const excess = this.retained - this.capacity;
      if (head.length <= excess) {
        this.chunks.shift();
        this.retained -= head.length;
        this.droppedBytes += head.length;
      } else {
        this.chunks[0] = head.subarray(excess);
        this.retained -= excess;
        this.droppedBytes += excess;
      }
    }
  }

  /**
   * Reads up to `limit` bytes from absolute `offset` (clamped to what is retained). A window
   * narrower than the character at its start returns that one character (at most 3 bytes over).
   */
  read(offset: number, limit: number): OutputSlice {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.retained);
    return sliceRing(all, this.droppedBytes, offset, limit);
  }
}

/**
 * A page of a ring whose retained bytes are `retained`, after `droppedBytes` dropped from the head
 * (what {@link OutputRing.read} does, for a ring kept elsewhere, e.g. in a shared job store).
 */
export function sliceRing(retained: Buffer, droppedBytes: number, offset: number, limit: number): OutputSlice {
  const totalBytes = droppedBytes + retained.length;
  const start = Math.max(offset, droppedBytes);
  const end = Math.min(start + Math.max(0, limit), totalBytes);
  const skippedBytes = Math.max(0, start - Math.max(0, offset));
  if (start >= end) {
    const at = Math.min(start, totalBytes);
    return { text: '', offset: at, nextOffset: at, skippedBytes };
  }
  const all = retained;
  let from = start - droppedBytes;
  let to = end - droppedBytes;
  // Move the edges onto character boundaries (skip UTF-8 continuation bytes 10xxxxxx).
  while (from < to && isContinuation(all[from]!)) from++;
  if (to < all.length) while (to > from && isContinuation(all[to]!)) to--;
  // A window narrower than one character still returns that character, so paging always advances.
  if (to === from && from < all.length) {
    to = from + 1;
    while (to < all.length && isContinuation(all[to]!)) to++;
  }
  return {
    text: all.subarray(from, to).toString('utf8'),
    offset: from + droppedBytes,
    nextOffset: to + droppedBytes,
    skippedBytes,
  };
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}
