/**
 * Length-prefixed JSON frames on a byte stream (the pipes between the host and a sandbox
 * process). Each frame is a 4-byte little-endian length and that many bytes of UTF-8 JSON.
 * Unlike Node's built-in IPC channel, the reader knows a frame's size before buffering it, so the
 * host refuses an oversized frame from a hostile sandbox process instead of parsing it.
 */

/** A frame could not be read: too large, not JSON, or not an object. */
export class FrameError extends Error {
  override readonly name = 'FrameError';
}

/** Encodes one message as a frame. */
export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32LE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

/** Splits a byte stream into parsed messages; `maxBytes()` caps each frame as it arrives. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(
    private readonly maxBytes: () => number,
    private readonly onMessage: (message: Record<string, unknown>) => void,
  ) {}

  /** Feeds bytes; throws a FrameError for an oversized or malformed frame (stop reading then). */
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= 4) {
      const head = this.peekHeader();
      const size = head.readUInt32LE(0);
      if (size > this.maxBytes()) throw new FrameError(`a message of ${size} bytes is over the frame cap of ${this.maxBytes()} bytes`);
      if (this.buffered < 4 + size) return;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
      const body = all.subarray(4, 4 + size);
      const rest = all.subarray(4 + size);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch {
        throw new FrameError('a message is not valid JSON');
      }
      if (message === null || typeof message !== 'object' || Array.isArray(message)) throw new FrameError('a message is not an object');
      this.onMessage(message as Record<string, unknown>);
    }
  }

  private peekHeader(): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first;
    const joined = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [joined];
    return joined;
  }
}
