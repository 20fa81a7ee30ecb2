/** The README's example is examples/quickstart.ts, verbatim; this runs it. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { quickstart } from '../examples/quickstart.js';

describe('the README example', () => {
  it('is the quickstart file, verbatim', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const file = readFileSync(new URL('../examples/quickstart.ts', import.meta.url), 'utf8');
    const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(file);
  });

  it('runs: two files read in parallel, the guard refuses the third, every call is in the log', async () => {
    const { result, events } = await quickstart();
    expect(result.isError).toBe(false);
    const value = result.value as { result: unknown[] };
    expect(value.result.slice(0, 2)).toEqual([5, 6]);
    expect(String(value.result[2])).toMatch(/denied by a guard: outside the workspace/);
    const children = events.filter((e) => e.type === 'tool/result' && e.toolName === 'read_file');
    expect(children).toHaveLength(3);
  }, 60_000);
});
