import { describe, expect, it } from 'vitest';
import { materializeJsonInSlices, takeJsonText } from './json-slices.js';
import { materializeResultValue } from './materialize-result.js';
import { z } from 'zod';
import type { ResultTextStream } from './result-text-stream.js';

function recorder(): { stream: ResultTextStream; parts: string[]; ends: string[] } {
  const parts: string[] = [];
  const ends: string[] = [];
  return { stream: { items: (t) => parts.push(t), end: (t) => ends.push(t) }, parts, ends };
}

const rows = Array.from({ length: 120_000 }, (_, i) => ({ id: `r${i}-é😀\u2028`, n: i / 3, tags: i % 1000 === 0 ? Array.from({ length: 20_000 }, (_, j) => j) : ['a'] }));

describe('a large array result streamed as it is walked', () => {
  it('hands on whole top-level items in order: the parts joined with commas are the text between the brackets', async () => {
    const { stream, parts, ends } = recorder();
    const value = await materializeJsonInSlices(rows, 'value', true, stream);
    const made = takeJsonText(value)!;
    const text = made.text;
    expect(text).toBe(JSON.stringify(rows));
    // (the text is a rope of the parts: its UTF-8 length is counted from them, multi-byte characters too)
    expect(made.bytes).toBe(Buffer.byteLength(JSON.stringify(rows), 'utf8'));
    expect(parts.length).toBeGreaterThan(1);
    expect(`[${parts.join(',')}]`).toBe(text);
    for (const part of parts) expect(() => JSON.parse(`[${part}]`)).not.toThrow();
    expect(ends).toEqual([text]);
    expect(ends[0]).toBe(text);
  });

  it('streams the validated value when there is an output schema', async () => {
    const { stream, parts, ends } = recorder();
    const schema = z.array(z.object({ id: z.string(), n: z.number(), tags: z.array(z.union([z.string(), z.number()])) }));
    const value = await materializeResultValue(schema, rows, true, stream);
    const text = takeJsonText(value)!.text;
    expect(`[${parts.join(',')}]`).toBe(text);
    expect(ends).toEqual([text]);
  });

  it('streams nothing for a large object, nor for a value walked in one go', async () => {
    const big = recorder();
    await materializeJsonInSlices({ rows }, 'value', true, big.stream);
    expect(big.parts).toEqual([]);
    expect(big.ends).toEqual([]);
    const small = recorder();
    materializeJsonInSlices(rows.slice(0, 100), 'value', true, small.stream);
    expect(small.parts).toEqual([]);
  });

  it('waits at its next pause while the consumer is behind, and goes on once it caught up', async () => {
    const parts: string[] = [];
    const ends: string[] = [];
    let release!: () => void;
    const caughtUp = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const stream: ResultTextStream = {
      items: (t) => parts.push(t),
      end: (t) => ends.push(t),
      behind: () => {
        asked++;
        return caughtUp;
      },
    };
    let settled = false;
    const walked = materializeJsonInSlices(rows, 'value', true, stream) as Promise<unknown>;
    void walked.then(() => (settled = true));
    // Many turns of the event loop: the walk (well over a slice of work) stays at its pause.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toBe(1);
    const before = parts.length;
    expect(before).toBeGreaterThan(0);
    expect(settled).toBe(false);
    release();
    const text = takeJsonText((await walked) as never)!.text;
    expect(parts.length).toBeGreaterThan(before);
    expect(`[${parts.join(',')}]`).toBe(text);
    expect(text).toBe(JSON.stringify(rows));
    expect(ends).toEqual([text]);
  });

  it('stops streaming when the walk refuses the value: no end', async () => {
    const { stream, parts, ends } = recorder();
    const bad = rows.map((row, i) => (i === rows.length - 5 ? { ...row, f: () => 1 } : row));
    await expect(materializeJsonInSlices(bad, 'value', true, stream)).rejects.toThrow(/value\[119995\]\.f/);
    expect(parts.length).toBeGreaterThan(0);
    expect(ends).toEqual([]);
  });
});
