/**
 * What a server streams at us besides answers (stderr, log notifications), held at a fixed cost.
 * A server can write gigabytes without a newline; nothing here grows with that or rescans it:
 * the tail keeps the last {@link MAX_TAIL_BYTES} bytes (for a start error or a death report),
 * and the opt-in line sink gets lines cut at {@link MAX_LINE_CHARS}, each chunk looked at once.
 */

/** Bytes of a server's output kept for its error messages. */
export const MAX_TAIL_BYTES = 16 * 1024;
/** Longest line handed to a sink; a longer one is cut into pieces of this size, each cut marked `…`. */
export const MAX_LINE_CHARS = 4_000;

/** The end of a stream, at most {@link MAX_TAIL_BYTES}; linear in what is pushed. */
export class OutputTail {
  private chunks: Buffer[] = [];
  private bytes = 0;

  push(chunk: Buffer): void {
    if (chunk.length >= MAX_TAIL_BYTES) {
      this.chunks = [chunk.subarray(chunk.length - MAX_TAIL_BYTES)];
      this.bytes = MAX_TAIL_BYTES;
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes - this.chunks[0]!.length >= MAX_TAIL_BYTES) this.bytes -= this.chunks.shift()!.length;
  }

  /** The last `maxLines` lines (at most `maxChars` characters), as text. */
  text(maxLines = 20, maxChars = 2_000): string {
    let text = Buffer.concat(this.chunks).toString('utf8');
    if (this.bytes > MAX_TAIL_BYTES) text = text.slice(1); // a character cut by the ring's edge
    const lines = text.replace(/\s+$/, '').split('\n').slice(-maxLines).join('\n');
    return lines.length > maxChars ? `…${lines.slice(lines.length - maxChars + 1)}` : lines;
  }
}

/** Splits a byte stream into lines for a sink, cutting runaway lines (see the file note). */
export class LineSplitter {
  private partial = '';

  constructor(private readonly emit: (line: string) => void) {}

  push(chunk: Buffer): void {
    const text = chunk.toString('utf8');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.add(text.slice(start, nl));
      this.emit(this.partial);
      this.partial = '';
      start = nl + 1;
    }
    this.add(text.slice(start));
  }

  /** Hands over what is left without a newline (at close). */
  end(): void {
    if (this.partial) this.emit(this.partial);
    this.partial = '';
  }

  private add(piece: string): void {
    for (let at = 0; at < piece.length; ) {
      if (this.partial.length >= MAX_LINE_CHARS) {
        this.emit(`${this.partial}…`);
        this.partial = '';
      }
      const room = MAX_LINE_CHARS - this.partial.length;
      this.partial += piece.slice(at, at + room);
      at += room;
    }
  }
}
