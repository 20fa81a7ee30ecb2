/**
 * spill_read through the real run_code (isolate and sandbox process): a run's output over
 * maxOutputBytes is spilled for the run's agent, and that agent alone pages through it, each
 * answer within the cap, within the store's retention.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentRef, ToolResult } from '../tools/index.js';
import { createSpillStore, type RunCodeTool, type SpilledPart } from '../runtime/index.js';
import { runCodeHost, runnerModes } from './run-code-support.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

const CAP = 1_000;
const AGENT: AgentRef = { id: 'agent-1' }; // runCodeHost's runs are made for it
// Multi-byte text: 2-byte é, 3-byte CJK, 4-byte emoji, and U+2028 (shown as an escape).
const PROGRAM = 'const rows = []; for (let i = 0; i < 120; i++) rows.push({ i, name: "行" + i + " é 😀\\u2028" }); return rows;';
const expected = Array.from({ length: 120 }, (_, i) => ({ i, name: `行${i} é 😀\u2028` }));
const textOf = (r: ToolResult) => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

describe.each(runnerModes())('spill_read after run_code (%s)', (mode) => {
  const setup = (options: Parameters<typeof runCodeHost>[1] = {}) => {
    const s = runCodeHost(mode, { limits: { maxOutputBytes: CAP }, ...options });
    opened.push(s.runCode);
    let n = 0;
    const read = (args: unknown, agent: AgentRef | null = AGENT) => s.host.call({ id: `read_${++n}`, name: 'spill_read', args }, agent ? { agent } : {});
    return { ...s, read };
  };

  it('pages the agent through its spilled result, every answer under the cap, never splitting a character', async () => {
    const s = setup();
    const v = await s.value(PROGRAM);
    const part = v.result as unknown as SpilledPart;
    expect(part.spilled.bytes).toBeGreaterThan(CAP);
    let joined = '';
    let offset = 0;
    let pages = 0;
    while (offset < part.spilled.bytes) {
      const r = await s.read({ id: part.spilled.id, offset });
      expect(r.isError).toBe(false);
      expect(Buffer.byteLength(textOf(r), 'utf8')).toBeLessThanOrEqual(CAP);
      const page = r.value as { text: string; offset: number; nextOffset: number; remaining: number };
      expect(page.offset).toBe(offset);
      expect(page.text).not.toMatch(/\uFFFD/);
      expect(textOf(r).split('\n')).toHaveLength(2);
      joined += page.text;
      offset = page.nextOffset;
      pages++;
    }
    expect(pages).toBeGreaterThan(part.spilled.bytes / CAP);
    expect(JSON.parse(joined)).toEqual(expected);
    // The events record each read as a call of its own, for the agent.
    const reads = s.events.filter((e) => e.type === 'tool/call' && e.toolName === 'spill_read');
    expect(reads).toHaveLength(pages);
    expect(reads.every((e) => e.type === 'tool/call' && e.agent?.id === AGENT.id)).toBe(true);
  });

  it('gives another agent, and a call with no agent, the answer an unknown id gets', async () => {
    const s = setup();
    const { id } = ((await s.value(PROGRAM)).result as unknown as SpilledPart).spilled;
    const answers = await Promise.all([s.read({ id }, { id: 'agent-2' }), s.read({ id }, null), s.read({ id: 'spill_doesNotExist0000' })]);
    expect(answers.map((r) => r.isError)).toEqual([true, true, true]);
    const shape = (r: ToolResult) => r.error?.message.replace(/"spill_[A-Za-z0-9_-]+"/g, '<id>');
    expect(new Set(answers.map(shape)).size).toBe(1);
    expect(answers.map(textOf).join('')).not.toContain('行');
  });

  it('forgets a spill after the store’s retention (injected clock)', async () => {
    let now = 0;
    const s = setup({ spills: createSpillStore({ ttlMs: 60_000, now: () => now }) });
    const { id } = ((await s.value(PROGRAM)).result as unknown as SpilledPart).spilled;
    now = 59_999;
    expect((await s.read({ id, limit: 10 })).isError).toBe(false);
    now = 60_000;
    expect((await s.read({ id })).error?.message).toContain('no spill with this id is kept for you');
  });

  it('is not something a program can call', async () => {
    const s = setup();
    const { id } = ((await s.value(PROGRAM)).result as unknown as SpilledPart).spilled;
    const checked = await s.run(`return await tools.spill_read({ id: ${JSON.stringify(id)} });`);
    expect(checked.value).toMatchObject({ rejected: expect.any(String), diagnostics: [expect.objectContaining({ message: expect.stringContaining("'spill_read'") })] });
    const unchecked = setup({ typecheck: 'off' });
    const v = await unchecked.value(`try { await tools.spill_read({ id: ${JSON.stringify(id)} }); return 'called'; } catch (e) { return e.message; }`);
    expect(v.result).toBe('tools.spill_read is not a function');
  });
});
