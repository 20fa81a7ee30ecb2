import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { createTraceWriter, GENESIS_HASH, hashLine, readJsonl, tokenIdOf, verifyTrace, type ToolEvent } from '../tools/index.js';
import { buildCallTree } from '../cli/trace/call-tree.js';
import { renderHtml } from '../cli/trace/render-html.js';
import { renderTree } from '../cli/trace/render-tree.js';
import { createHost } from '../examples/tools.js';

/** A real trace: example tools, a denial, a PTC-origin call, an approval, closed. */
async function sampleTrace(): Promise<string[]> {
  const lines: string[] = [];
  let t = 1_000;
  const host = createHost({ now: () => (t += 5), approval: { request: async () => 'allow-once' } });
  const writer = createTraceWriter({ write: (l) => lines.push(l), host, now: () => t });
  host.onEvent(writer);
  const agent = { id: 'a1' };
  await host.call({ id: 'c1', name: 'team_get', args: { id: 'u-103' } }, { agent });
  await host.call({ id: 'c2', name: 'docs_read', args: { docId: 'doc-07' } }, { agent });
  await host.call({ id: 'c3', name: 'docs_read', args: { docId: 'doc-01' } }, { agent, origin: { kind: 'ptc', parentCallId: 'c0', token: 'live-secret-token-123' } });
  await host.call({ id: 'c4', name: 'expense_flag', args: { expenseId: 'exp-0002', reason: 'check' } }, { agent });
  writer.close();
  return lines;
}
const text = (lines: readonly string[]) => lines.join('\n') + '\n';

describe('when a trace is written', () => {
  it('chains every line to the previous one by the SHA-256 of its exact bytes', async () => {
    const lines = await sampleTrace();
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed[0]).toMatchObject({ seq: 0, type: 'trace/header', format: 'ptc-trace/1', prevHash: GENESIS_HASH });
    parsed.slice(1).forEach((p, i) => {
      expect(p.seq).toBe(i + 1);
      expect(p.prevHash).toBe(hashLine(lines[i]!));
      expect(typeof p.time).toBe('number');
    });
    expect(parsed.at(-1)).toMatchObject({ type: 'trace/end', events: lines.length - 2 });
    expect(verifyTrace(text(lines))).toMatchObject({ ok: true, problems: [], lines: lines.length, headHash: hashLine(lines.at(-1)!) });
  });

  it('never writes the live token, only its digest', async () => {
    const t = text(await sampleTrace());
    expect(t).not.toContain('live-secret-token-123');
    expect(t).toContain(tokenIdOf('live-secret-token-123'));
  });

  it('replaces a token that reaches the sink in an origin by its digest', () => {
    const lines: string[] = [];
    const writer = createTraceWriter({ write: (l) => lines.push(l) });
    writer({ type: 'tool/call', seq: 1, time: 1, callId: 'x', toolName: 't', args: {}, argsValid: true, origin: { kind: 'ptc', parentCallId: 'p', token: 'tok-abc' } } as unknown as ToolEvent);
    expect(lines.join('')).not.toContain('tok-abc');
    expect(JSON.parse(lines[1]!).origin).toEqual({ kind: 'ptc', parentCallId: 'p', tokenId: tokenIdOf('tok-abc') });
  });

  it('records the execution mode of each call when given the host', async () => {
    const calls = (await sampleTrace()).map((l) => JSON.parse(l)).filter((e) => e.type === 'tool/call');
    expect(Object.fromEntries(calls.map((c) => [c.callId, c.mode]))).toEqual({ c1: 'parallel', c2: 'parallel', c3: 'parallel', c4: 'exclusive' });
  });

  it('refuses events after close', () => {
    const writer = createTraceWriter({ write: () => {} });
    writer.close();
    expect(() => writer({ type: 'tool/ptc-dispatch', seq: 1, time: 1, pairId: 'p', toolName: 't', args: null })).toThrow(/closed/);
  });
});

describe('when a trace has been tampered with', () => {
  it('names an edited line', async () => {
    const lines = await sampleTrace();
    lines[4] = lines[4]!.replace('"isError":false', '"isError":true').replace('"toolName":"', '"toolName":"x');
    const r = verifyTrace(text(lines));
    expect(r.ok).toBe(false);
    expect(r.problems[0]).toMatchObject({ line: 5, kind: 'edited' });
  });

  it('names a deleted line', async () => {
    const lines = await sampleTrace();
    lines.splice(6, 1);
    expect(verifyTrace(text(lines)).problems[0]).toMatchObject({ line: 7, kind: 'deleted' });
  });

  it('names an inserted line, even one with a correct prevHash', async () => {
    const lines = await sampleTrace();
    const forged = JSON.stringify({ seq: 4, time: 1, prevHash: hashLine(lines[3]!), type: 'tool/decision', callId: 'c9', decision: 'allow' });
    const withForged = [...lines.slice(0, 4), forged, ...lines.slice(4)];
    expect(verifyTrace(text(withForged)).problems[0]).toMatchObject({ line: 5, kind: 'inserted' });
    const withJunk = [...lines.slice(0, 4), JSON.stringify({ seq: 4, time: 1, prevHash: 'f'.repeat(64) }), ...lines.slice(4)];
    expect(verifyTrace(text(withJunk)).problems[0]).toMatchObject({ line: 5, kind: 'inserted' });
  });

  it('names reordered lines', async () => {
    const lines = await sampleTrace();
    [lines[3], lines[4]] = [lines[4]!, lines[3]!];
    const r = verifyTrace(text(lines));
    expect(r.problems[0]).toMatchObject({ line: 4, kind: 'reordered' });
  });

  it('reports a missing end line as truncated and a missing header as deleted', async () => {
    const lines = await sampleTrace();
    expect(verifyTrace(text(lines.slice(0, -1))).problems).toEqual([expect.objectContaining({ kind: 'truncated', line: lines.length - 1 })]);
    expect(verifyTrace(text(lines.slice(1))).problems[0]).toMatchObject({ line: 1, kind: 'deleted' });
  });

  it('reports garbage and plain session logs without throwing', () => {
    expect(verifyTrace('').problems[0]).toMatchObject({ kind: 'not-a-trace' });
    expect(verifyTrace('{"seq":1,"type":"tool/call"}\n').problems[0]).toMatchObject({ kind: 'not-a-trace', line: 1 });
    // A plain session log has no chain: it is not a trace, and nothing in it was "edited".
    const plain = verifyTrace('{"seq":1,"type":"tool/call"}\n{"seq":2,"type":"tool/result"}\n{"seq":3,"type":"tool/call"}\n');
    expect(plain.problems).toEqual([expect.objectContaining({ kind: 'not-a-trace', line: 1 })]);
    expect(verifyTrace('not json\n[1]\n').problems[0]).toMatchObject({ kind: 'malformed', line: 1 });
  });

  it('detects any single edit, deletion, insertion or swap of lines', async () => {
    const lines = await sampleTrace();
    const op = fc.oneof(
      fc.record({ kind: fc.constant('edit' as const), at: fc.nat(lines.length - 1), char: fc.string({ minLength: 1, maxLength: 3 }), pos: fc.nat() }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(lines.length - 1) }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(lines.length), copyOf: fc.nat(lines.length - 1) }),
      fc.record({ kind: fc.constant('swap' as const), at: fc.nat(lines.length - 2) }),
    );
    fc.assert(
      fc.property(op, (o) => {
        const copy = [...lines];
        if (o.kind === 'edit') {
          const line = copy[o.at]!;
          const p = o.pos % (line.length + 1);
          const edited = line.slice(0, p) + o.char + line.slice(p);
          if (edited === line) return;
          copy[o.at] = edited;
        } else if (o.kind === 'delete') copy.splice(o.at, 1);
        else if (o.kind === 'insert') copy.splice(o.at, 0, lines[o.copyOf]!);
        else [copy[o.at], copy[o.at + 1]] = [copy[o.at + 1]!, copy[o.at]!];
        expect(verifyTrace(text(copy)).ok).toBe(false);
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});

describe('when the checked-in sample logs are loaded', () => {
  const dir = 'test/fixtures/session-logs';
  it('verifies the ptc-trace/1 sample as intact', () => {
    const v = verifyTrace(readFileSync(`${dir}/ptc-trace-1.jsonl`, 'utf8'));
    expect(v.problems).toEqual([]);
    expect(v.events.length).toBe(42);
  });

  it('reports every hostile or plain log without throwing, and never as intact', () => {
    // Intact by design: the format sample, and hostile samples whose attack is on the reader, not the chain.
    const intact = ['ptc-trace-1.jsonl', 'hostile-trace-escapes.jsonl', 'hostile-trace-reused-ids.jsonl'];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl') && !intact.includes(f))) {
      const v = verifyTrace(readFileSync(`${dir}/${file}`)); // bytes, as the CLI reads them
      expect(v.ok, file).toBe(false);
      expect(v.problems.length, file).toBeGreaterThan(0);
    }
  });

  it('builds a call tree and an HTML page from every sample without throwing', () => {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
      const { events } = readJsonl(readFileSync(`${dir}/${file}`, 'utf8'));
      const tree = buildCallTree(events);
      expect(renderHtml(tree, { title: file })).toContain('</html>');
      expect(typeof renderTree(tree)).toBe('string');
    }
  });
});
