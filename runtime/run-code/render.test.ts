import { describe, expect, it } from 'vitest';
import { renderRunCode } from './render.js';

const text = (v: unknown) => (renderRunCode(v as never)[0] as { text: string }).text;

describe('what the model reads of run_code', () => {
  it('is the result, the logs, the call counts and only the calls that did not succeed', () => {
    const calls = [
      ...Array.from({ length: 30 }, () => ({ tool: 'expenses', status: 'ok', ms: 1.2, settlement: 'completed' })),
      { tool: 'read_doc', status: 'denied', ms: 0.4, settlement: 'completed' },
    ];
    const out = text({
      result: { over: ['ada'] },
      logs: ['checked 30 people'],
      calls,
      stats: { totalMs: 12, calls: { total: 31, ok: 30, error: 0, denied: 1, refused: 0, interrupted: 0 }, childResultBytes: 9000 },
    });
    expect(out).toContain('"over"');
    expect(out).toContain('  checked 30 people');
    expect(out).toContain('calls: 31 (30 ok, 1 denied)');
    expect(out).toContain('  read_doc: denied');
    expect(out).not.toContain('expenses');
    expect(out).not.toContain('totalMs');
  });

  it('shows a rejection with its diagnostics by line', () => {
    const out = text({ rejected: 'The program was not run: fix these type errors.', diagnostics: [{ line: 3, column: 7, message: "Property 'x' does not exist." }] });
    expect(out).toBe("The program was not run: fix these type errors.\n  line 3, column 7: Property 'x' does not exist.");
  });

  it('shows a spilled result as its handle', () => {
    const out = text({ result: { spilled: { id: 'sp-1', bytes: 900000 }, head: '[1,2', tail: '9]' }, logs: [], calls: [], stats: { calls: { total: 0 } } });
    expect(out).toContain('"spilled"');
    expect(out).toContain('sp-1');
  });
});
