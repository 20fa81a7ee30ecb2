import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decision } from './decision.js';
import { defineTool } from './define-tool.js';
import { createToolHost } from './host.js';
import { takeJsonText } from './json-slices.js';
import { PRETTY_MAX_CHARS } from './json-text.js';

/** 12,000 rows (84,000 values): over the one-go budget, so the pipeline materializes them in slices. */
const makeRows = (n = 12_000) => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, score: i, done: i % 2 === 0, tags: ['x'] }));
const row = z.object({ id: z.string(), score: z.number(), done: z.boolean(), tags: z.array(z.string()) });

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every(isDeepFrozen);
}

describe('a large tool result in the pipeline', () => {
  it('reaches post-execute listeners and the result copied, deep-frozen, and apart from the tool own value', async () => {
    const host = createToolHost();
    const value = makeRows();
    host.register(defineTool({ name: 'rows', description: 'Rows.', execute: () => value }));
    let seen: unknown;
    host.hooks.postExecute((_e, result) => {
      seen = result.value;
      return undefined;
    });
    const result = await host.call({ id: '1', name: 'rows', args: {} });
    expect(result.isError).toBe(false);
    expect(seen).toBe(result.value);
    expect(isDeepFrozen(seen)).toBe(true);
    expect(seen).toEqual(value);
    expect(seen).not.toBe(value);
    expect(Object.isFrozen(value[0])).toBe(false);
  });

  it('is an invalid-output error naming the path when something deep in it is not JSON', async () => {
    const host = createToolHost();
    const value: unknown[] = makeRows();
    (value[11_000] as Record<string, unknown>).when = new Date(0);
    host.register(defineTool({ name: 'rows', description: 'Rows.', execute: () => value }));
    const result = await host.call({ id: '1', name: 'rows', args: {} });
    expect(result.error?.kind).toBe('invalid-output');
    expect(result.error?.message).toContain('"rows" returned an invalid value: value[11000].when: a class instance (Date) is not a JSON value');
  });

  it('is validated against an array output schema item by item, naming the first bad item', async () => {
    const host = createToolHost();
    const value = makeRows();
    (value[10_500] as Record<string, unknown>).score = 'high';
    host.register(defineTool({ name: 'rows', description: 'Rows.', output: { schema: z.array(row) }, execute: () => value }));
    const result = await host.call({ id: '1', name: 'rows', args: {} });
    expect(result.error?.kind).toBe('invalid-output');
    expect(result.error?.message).toMatch(/value\[10500\]\.score/);
  });

  it("keeps an array schema's own checks (length bounds, refinements) and its transforms", async () => {
    const host = createToolHost();
    host.register([
      defineTool({ name: 'too_many', description: 'Rows.', output: { schema: z.array(row).max(100) }, execute: () => makeRows() }),
      defineTool({ name: 'refined', description: 'Rows.', output: { schema: z.array(row).refine((r) => r.length === 3, 'not three') }, execute: () => makeRows() }),
      defineTool({ name: 'ok', description: 'Rows.', output: { schema: z.array(row.transform((r) => ({ ...r, tagged: true }))).min(1) }, execute: () => makeRows() as never }),
    ]);
    const tooMany = await host.call({ id: '1', name: 'too_many', args: {} });
    expect(tooMany.error?.kind).toBe('invalid-output');
    expect(tooMany.error?.message).toMatch(/100/);
    const refined = await host.call({ id: '2', name: 'refined', args: {} });
    expect(refined.error?.message).toMatch(/not three/);
    const ok = await host.call({ id: '3', name: 'ok', args: {} });
    expect(ok.isError).toBe(false);
    expect((ok.value as { tagged: boolean }[])[11_999]!.tagged).toBe(true);
    expect(isDeepFrozen(ok.value)).toBe(true);
  });

  it('is validated against any other schema in one run, with the same result', async () => {
    const host = createToolHost();
    const value = { rows: makeRows() };
    host.register(defineTool({ name: 'rows', description: 'Rows.', output: { schema: z.object({ rows: z.array(row) }) }, execute: () => value }));
    const ok = await host.call({ id: '1', name: 'rows', args: {} });
    expect(ok.isError).toBe(false);
    expect(isDeepFrozen(ok.value)).toBe(true);
    (value.rows[3] as Record<string, unknown>).id = 5;
    const bad = await host.call({ id: '2', name: 'rows', args: {} });
    expect(bad.error?.message).toMatch(/value\.rows\[3\]\.id/);
  });

  it("keeps its JSON text for a program's call; a listener's replacement gets its own", async () => {
    const host = createToolHost();
    host.register(defineTool({ name: 'rows', description: 'Rows.', execute: () => makeRows() }));
    const direct = await host.call({ id: '1', name: 'rows', args: {} });
    // A model's call: its content took the text (next test), none is left over.
    expect(takeJsonText(direct.value)).toBeUndefined();
    const fromProgram = await host.call({ id: '2', name: 'rows', args: {} }, { origin: { kind: 'ptc', parentCallId: 'p', token: 't'.repeat(32) } });
    expect(takeJsonText(fromProgram.value)?.text).toBe(JSON.stringify(fromProgram.value));
    const dispose = host.hooks.postExecute(() => decision.replaceValue(makeRows(11_000)));
    const replaced = await host.call({ id: '3', name: 'rows', args: {} }, { origin: { kind: 'ptc', parentCallId: 'p', token: 't'.repeat(32) } });
    expect((replaced.value as unknown[]).length).toBe(11_000);
    expect(takeJsonText(replaced.value)?.text).toBe(JSON.stringify(replaced.value));
    dispose.dispose();
  });
});

describe("a model's call of a large value", () => {
  const textOf = (result: { content: readonly { type: string; text?: string }[] }): string => result.content[0]?.text ?? '';

  it('gets as content the compact text its walk made once that is over 1 MiB, and the indented text below that', async () => {
    const host = createToolHost();
    host.register([
      defineTool({ name: 'many', description: 'Rows.', execute: () => makeRows(30_000) }),
      defineTool({ name: 'some', description: 'Rows.', execute: () => makeRows() }),
    ]);
    const many = await host.call({ id: '1', name: 'many', args: {} });
    const compact = JSON.stringify(many.value);
    expect(compact.length).toBeGreaterThan(PRETTY_MAX_CHARS);
    expect(textOf(many)).toBe(compact);
    expect(takeJsonText(many.value)).toBeUndefined();
    const some = await host.call({ id: '2', name: 'some', args: {} });
    expect(JSON.stringify(some.value).length).toBeLessThan(PRETTY_MAX_CHARS);
    expect(textOf(some)).toBe(JSON.stringify(some.value, null, 2));
  });

  it("renders a listener's large replacement from its own text, and makes no text for a tool that renders itself", async () => {
    const host = createToolHost();
    host.register([
      defineTool({ name: 'small', description: 'One row.', execute: () => makeRows(1) }),
      defineTool({ name: 'counted', description: 'Rows.', output: { render: (_args, value) => `${(value as unknown[]).length} rows` }, execute: () => makeRows(30_000) }),
    ]);
    const dispose = host.hooks.postExecute((execution) => (execution.toolName === 'small' ? decision.replaceValue(makeRows(30_000)) : undefined));
    const replaced = await host.call({ id: '1', name: 'small', args: {} });
    expect(textOf(replaced)).toBe(JSON.stringify(replaced.value));
    dispose.dispose();
    const counted = await host.call({ id: '2', name: 'counted', args: {} });
    expect(textOf(counted)).toBe('30000 rows');
    expect(takeJsonText(counted.value)).toBeUndefined();
  });
});

describe("a post-execute listener's large replacement value", () => {
  it('is materialized in slices: the event loop turns before the result is settled', async () => {
    const host = createToolHost();
    host.register(defineTool({ name: 'small', description: 'One row.', execute: () => makeRows(1) }));
    let turned = false;
    host.hooks.postExecute(() => {
      setImmediate(() => (turned = true));
      return decision.replaceValue(makeRows());
    });
    const result = await host.call({ id: '1', name: 'small', args: {} });
    expect(turned).toBe(true);
    expect((result.value as unknown[]).length).toBe(12_000);
    expect(isDeepFrozen(result.value)).toBe(true);
  });

  it('is refused with the path when something deep in it is not JSON, or when it fails the schema', async () => {
    const host = createToolHost();
    host.register([
      defineTool({ name: 'plain', description: 'Rows.', execute: () => makeRows(1) }),
      defineTool({ name: 'checked', description: 'Rows.', output: { schema: z.array(row) }, execute: () => makeRows(1) }),
    ]);
    host.hooks.postExecute((execution) => {
      const rows: unknown[] = makeRows();
      if (execution.toolName === 'plain') Object.defineProperty(rows[11_000], 'n', { get: () => 1, enumerable: true });
      else (rows[10_500] as Record<string, unknown>).score = 'high';
      return decision.replaceValue(rows as never);
    });
    const plain = await host.call({ id: '1', name: 'plain', args: {} });
    expect(plain.error?.kind).toBe('invalid-output');
    expect(plain.error?.message).toContain('value[11000].n: an accessor property is not a JSON value');
    const checked = await host.call({ id: '2', name: 'checked', args: {} });
    expect(checked.error?.kind).toBe('invalid-output');
    expect(checked.error?.message).toMatch(/value\[10500\]\.score/);
  });
});
