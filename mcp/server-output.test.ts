import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_LINE_CHARS, MAX_TAIL_BYTES, OutputTail } from './server-output.js';

describe('when a server floods its output', () => {
  it('keeps only the end of 48 MB without a newline, in bounded memory', () => {
    const tail = new OutputTail();
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let i = 0; i < 750; i++) tail.push(chunk);
    tail.push(Buffer.from('\nlast words: missing API key\n'));
    expect(tail.text()).toMatch(/\nlast words: missing API key$/);
    expect(tail.text().length).toBeLessThanOrEqual(2_000);
    expect((tail as unknown as { bytes: number }).bytes).toBeLessThanOrEqual(MAX_TAIL_BYTES + 64 * 1024);
  });

  it('keeps the last lines of ordinary output', () => {
    const tail = new OutputTail();
    for (let i = 0; i < 100; i++) tail.push(Buffer.from(`line ${i}\n`));
    expect(tail.text(3)).toBe('line 97\nline 98\nline 99');
  });

  it('cuts a runaway line into bounded pieces for the sink, and splits ordinary lines', () => {
    const lines: string[] = [];
    const split = new LineSplitter((l) => lines.push(l));
    split.push(Buffer.from('a\nb'));
    split.push(Buffer.from('c\n'));
    for (let i = 0; i < 10; i++) split.push(Buffer.alloc(MAX_LINE_CHARS, 'x'));
    split.push(Buffer.from('\nend'));
    split.end();
    expect(lines.slice(0, 2)).toEqual(['a', 'bc']);
    expect(lines.slice(2, -1).every((l) => l.length <= MAX_LINE_CHARS + 1)).toBe(true);
    expect(lines.slice(2, -1).join('').replace(/…/g, '')).toBe('x'.repeat(10 * MAX_LINE_CHARS));
    expect(lines.at(-1)).toBe('end');
  });
});
