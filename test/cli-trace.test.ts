import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureCli } from './support/capture-cli.js';
import { createToolHost, decision, defineTool, traceFileSink } from '../tools/index.js';
import { createHost } from '../examples/tools.js';
import { registerBridgeRun } from './support/bridge-run.js';
import { buildCallTree } from '../cli/trace/call-tree.js';
import { renderHtml } from '../cli/trace/render-html.js';
import { renderTree } from '../cli/trace/render-tree.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-trace-'));
let tracePath = '';

const capture = captureCli;

beforeAll(async () => {
  tracePath = join(dir, 'run.jsonl');
  const host = createHost({ approval: { request: async () => 'allow-once' } });
  const sink = traceFileSink(tracePath, { host });
  host.onEvent(sink);
  registerBridgeRun(host);
  const result = await host.call({ id: 'run-1', name: 'run_code_stub', args: {} }, { agent: { id: 'cli' } });
  expect(result.value).toEqual({ ok: [true, true, false, true], flag: true, late: false });
  sink.close();
});
afterEach(() => vi.restoreAllMocks());

describe('when verifying a trace from the command line', () => {
  it('says ok with the head hash for an intact trace', async () => {
    const r = await capture(['trace', 'verify', tracePath]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ok: \d+ lines, \d+ events, chain intact; head [0-9a-f]{64}\n$/);
  });

  it('exits 1 and names the edited line', async () => {
    const lines = readFileSync(tracePath, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"tool/call"') && l.includes('"platform"'));
    lines[at] = lines[at]!.replace('"platform"', '"design"');
    const bad = join(dir, 'edited.jsonl');
    writeFileSync(bad, lines.join('\n'));
    const r = await capture(['trace', 'verify', bad, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).problems[0]).toMatchObject({ line: at + 1, kind: 'edited' });
  });

  it('shows a trace whose header line was deleted as a broken chain, not as a plain log', async () => {
    const headless = join(dir, 'headless.jsonl');
    writeFileSync(headless, readFileSync(tracePath, 'utf8').split('\n').slice(1).join('\n'));
    const r = await capture(['trace', 'show', headless, '--no-color']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/CHAIN BROKEN/);
    expect(r.err).not.toMatch(/plain session log/);
  });

  it('exits 2 with one line on stderr for a missing file', async () => {
    const r = await capture(['trace', 'verify', join(dir, 'nope.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`ptc: cannot read trace ${join(dir, 'nope.jsonl')}: no such file\n`);
  });
});

describe('when showing a trace', () => {
  it('prints each run with its children in order, decisions, outcomes and the late call', async () => {
    const r = await capture(['trace', 'show', tracePath]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/chain intact/);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^run_code_stub run-1 \[exclusive\] \{\}/);
    const children = lines.filter((l) => /^[├└]─ /.test(l)).map((l) => l.slice(3).split(' ')[0]);
    expect(children).toEqual(['team_list', 'docs_read', 'docs_read', 'budget_get', 'expense_flag', 'docs_search', 'REFUSED']);
    expect(r.out).toMatch(/deny by guard #0: document doc-07 is classified confidential.*⇒ DENIED by guard/);
    expect(r.out).toMatch(/ask by listener #0: flagging an expense.*→ approval allow.*⇒ ok/);
    expect(r.out).toMatch(/expense_flag .*\[exclusive\]/);
    expect(r.out).toMatch(/REFUSED late call team_get: the run already ended/);
    expect(r.out).toMatch(/run: ok, 6 call\(s\)/);
    expect(r.out).toMatch(/\n7 call\(s\): 6 ok, 1 denied, 0 blocked, 0 failed, 0 without result; 1 late or refused\n$/);
  });

  it('shows a plain session log but says it cannot be verified', async () => {
    const plain = join(dir, 'plain.jsonl');
    // A session log as jsonlFileSink writes it: the events, no header, no hash chain.
    const events = readFileSync(tracePath, 'utf8').split('\n').slice(1, -2).map((l) => {
      const { prevHash: _chain, ...event } = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify(event);
    });
    writeFileSync(plain, events.join('\n') + '\n');
    const r = await capture(['trace', 'show', plain]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/plain session log/);
  });

  it('never passes control characters from a hostile trace to the terminal', async () => {
    const hostile = join(dir, 'hostile.jsonl');
    writeFileSync(hostile, JSON.stringify({ seq: 1, time: 1, type: 'tool/call', callId: 'x', toolName: 'evil\u001b[2J', args: { a: '\u001b]0;pwned\u0007' }, origin: { kind: 'model' } }) + '\n');
    const r = await capture(['trace', 'show', hostile, '--no-color']);
    expect(r.out).not.toContain('\u001b');
    expect(r.out).not.toContain('\u0007');
  });

  it('shows bidi overrides, isolates and zero-width characters from arguments and errors as escapes', async () => {
    const hostile = join(dir, 'bidi.jsonl');
    const events = [
      { seq: 1, time: 1, type: 'tool/call', callId: 'b1', toolName: 'read\u200Bfile', args: { path: 'report\u202Efdp.exe', note: '\u2066hidden\u2069' }, origin: { kind: 'model' } },
      { seq: 2, time: 2, type: 'tool/result', callId: 'b1', toolName: 'read\u200Bfile', isError: true, error: { kind: 'execution', message: 'denied \u202Eyes\u202C \uFEFF' }, durationMs: 1, origin: { kind: 'model' } },
    ];
    writeFileSync(hostile, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const r = await capture(['trace', 'show', hostile, '--no-color']);
    expect(r.out).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF]/);
    expect(r.out).toContain('read\\u200Bfile');
    expect(r.out).toContain('report\\u202Efdp.exe');
    expect(r.out).toContain('\\u2066hidden\\u2069');
    expect(r.out).toContain('denied \\u202Eyes\\u202C \\uFEFF');
  });
});

describe('when a program was rejected by the type check', () => {
  it('shows its run_code call as an error with the reason, not as ok', () => {
    const tree = buildCallTree([
      { type: 'tool/call', callId: 'r1', toolName: 'run_code', args: { code: 'tools.nope()' }, time: 1, origin: { kind: 'model' } },
      { type: 'tool/result', callId: 'r1', toolName: 'run_code', isError: false, value: { rejected: 'The program was not run: fix these type errors and call run_code again.', diagnostics: [{ line: 1, column: 7, message: 'x' }] }, time: 2 },
    ]);
    expect(tree.roots[0]).toMatchObject({ outcome: 'error', detail: 'The program was not run: fix these type errors and call run_code again.' });
    expect(renderTree(tree)).toMatch(/0 ok, 0 denied, 0 blocked, 1 failed/);
  });
});

describe('when a client cancels a run_code call', () => {
  it('flags its aborted children as late/revoked, not the cancelled run_code itself', () => {
    const aborted = (callId: string, toolName: string) => ({ type: 'tool/result', callId, toolName, isError: true, error: { kind: 'aborted', message: 'cancelled while running' }, time: 3 });
    const tree = buildCallTree([
      { type: 'tool/call', callId: 'mcp-1', toolName: 'run_code', args: { code: 'await tools.slow()' }, time: 1, origin: { kind: 'model' } },
      { type: 'tool/call', callId: 'mcp-1/r.1', toolName: 'slow', args: {}, time: 2, origin: { kind: 'ptc', parentCallId: 'mcp-1', tokenId: 'x' } },
      aborted('mcp-1/r.1', 'slow'),
      aborted('mcp-1', 'run_code'),
    ]);
    expect(tree.roots[0]).toMatchObject({ callId: 'mcp-1', outcome: 'error', late: false });
    expect(tree.roots[0]!.children[0]).toMatchObject({ callId: 'mcp-1/r.1', late: true });
    expect(renderTree(tree)).toMatch(/1 late or refused/);
  });
});

describe('when a run summed up its late calls past the cap', () => {
  it('counts the summary as the calls it stands for, and a hostile count as one', () => {
    const refused = (count: unknown) => ({ type: 'ptc/call-refused', parentCallId: 'r1', tokenId: 'x', toolName: '(more late calls)', reason: 'more late calls were refused', count, time: 3 });
    const tree = buildCallTree([
      { type: 'tool/call', callId: 'r1', toolName: 'run_code', args: { code: 'return 1' }, time: 1, origin: { kind: 'model' } },
      { type: 'ptc/call-refused', parentCallId: 'r1', tokenId: 'x', toolName: 'echo', reason: 'the run already ended', time: 2 },
      refused(40),
      refused(1e300),
      { type: 'tool/result', callId: 'r1', toolName: 'run_code', isError: false, value: { result: 1 }, time: 4 },
    ]);
    expect(tree.roots[0]!.refused.map((r) => r.count)).toEqual([1, 40, 1]);
    expect(renderTree(tree)).toMatch(/; 42 late or refused/);
    expect(renderHtml(tree, { title: 't' })).toMatch(/42 late or refused/);
  });
});

describe('when a trace is hostile', () => {
  const call = (callId: string, parent?: string) => ({ type: 'tool/call', callId, toolName: 't', args: {}, time: 1, origin: parent ? { kind: 'ptc', parentCallId: parent, tokenId: 'x' } : { kind: 'model' } });

  it('shows calls whose parent links form a cycle instead of dropping them', () => {
    // A parent comes before its children: "a" names a parent that has not started, so it is a root.
    const tree = buildCallTree([call('a', 'b'), call('b', 'a'), call('c')]);
    expect(tree.roots.map((r) => r.callId)).toEqual(['a', 'c']);
    expect(tree.roots[0]!.children.map((c) => c.callId)).toEqual(['b']);
  });

  it('caps the nesting of parent links so rendering cannot overflow the stack', () => {
    const events = [call('n0'), ...Array.from({ length: 5000 }, (_, i) => call(`n${i + 1}`, `n${i}`))];
    const tree = buildCallTree(events);
    expect(tree.roots.length).toBeGreaterThan(1);
    expect(renderHtml(tree, { title: 'deep' })).toContain('</html>');
  });

  it('previews arguments nested deeper than JSON.stringify can go', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const tree = buildCallTree([{ ...call('d'), args: deep }]);
    expect(renderTree(tree)).toContain('[[[[');
  });
});

describe('when rendering a trace as HTML', () => {
  it('writes a self-contained page with lanes, a barrier and a denial mark', async () => {
    const out = join(dir, 'report.html');
    const r = await capture(['trace', 'html', tracePath, '-o', out]);
    expect(r.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('class="mark-denied"');
    expect(html).toContain('class="barrier"');
    expect(html).not.toMatch(/<script|src=|href="http/);
  });

  it('escapes hostile strings instead of running them', () => {
    const tree = buildCallTree([{ type: 'tool/call', callId: '<b>', toolName: '<script>alert(1)</script>', args: { x: '"><img src=x onerror=alert(1)>' }, time: 1, origin: { kind: 'model' } }]);
    const html = renderHtml(tree, { title: '<i>t</i>' });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('requires -o', async () => {
    const r = await capture(['trace', 'html', tracePath]);
    expect(r.code).toBe(2);
  });
});

describe('when a trace has calls from a provider\'s sandbox and approvals given in a framework', () => {
  it('marks the provider program\'s calls and names the framework that approved', async () => {
    const path = join(dir, 'adapters.jsonl');
    const host = createToolHost();
    const sink = traceFileSink(path, { host });
    host.onEvent(sink);
    host.register(defineTool({ name: 'lookup', description: 'Looks up.', parameters: { q: { type: 'string', required: true } }, execute: (a) => `found ${a.q}` }));
    host.hooks.preExecute((e) => ((e.args as { q: string }).q === 'deploy' ? decision.ask('needs a person') : undefined));
    await host.call({ id: 'toolu_1', name: 'lookup', args: { q: 'x' } }, { origin: { kind: 'provider-program', provider: 'anthropic', callerId: 'srvtoolu_9' } });
    await host.call({ id: 'call_2', name: 'lookup', args: { q: 'y' } }, { origin: { kind: 'provider-program', provider: 'openai', callerId: 'prog_3' } });
    await host.call({ id: 'aitc_3', name: 'lookup', args: { q: 'deploy' } }, { approved: { framework: 'ai-sdk', approvalId: 'ap-7' } });
    sink.close();
    const r = await capture(['trace', 'show', path, '--no-color']);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('lookup toolu_1 [exclusive] via anthropic code execution srvtoolu_9 {"q":"x"}');
    expect(lines[2]).toBe('lookup call_2 [exclusive] via openai hosted program prog_3 {"q":"y"}');
    expect(lines[4]).toBe('lookup aitc_3 [exclusive] {"q":"deploy"}');
    expect(lines[5]).toMatch(/^ {2}ask by listener #0: needs a person → approval allow by framework ai-sdk ap-7 {2}⇒ ok/);
    const html = renderHtml(buildCallTree(readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)), { title: 't' });
    expect(html).toContain('<span class="via">via anthropic code execution srvtoolu_9</span>');
  });
});
