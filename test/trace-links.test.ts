/**
 * Linked chains (issues 25, 26): one trace per host or replica; a run suspended on host A and
 * resumed on host B goes on in B's trace, whose `ptc/run-resumed` event names the head A's run
 * left behind (`prevTraceHead`). `ptc trace verify a b` checks the link, `ptc trace show a b`
 * shows the run whole. The chains here are built by hand with the real writer, as the durable
 * runs work will write them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from './support/capture-cli.js';
import { createTraceWriter, GENESIS_HASH, hashLine, verifyTraceSet, type ToolEvent, type TraceHead, type TraceWriter } from '../index.js';
import { buildCallTree } from '../cli/trace/call-tree.js';
import { renderHtml } from '../cli/trace/render-html.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-trace-links-'));
let n = 0;
const KEY = 'shared-replica-key-0123456789abcdef0123456789';

interface Chain {
  readonly lines: string[];
  readonly writer: TraceWriter;
  emit(event: Record<string, unknown>): void;
}
function chain(traceId: string, key?: string): Chain {
  const lines: string[] = [];
  let seq = 0;
  const writer = createTraceWriter({ write: (l) => lines.push(l), traceId, now: () => 1, ...(key ? { key } : {}) });
  return { lines, writer, emit: (event) => writer({ seq: ++seq, time: 100 + seq, ...event } as unknown as ToolEvent) };
}
const save = (lines: readonly string[], name = `t${++n}.jsonl`) => {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
};
const ptc = (parentCallId: string, tokenId: string) => ({ kind: 'ptc', parentCallId, tokenId });
const call = (callId: string, toolName: string, origin: Record<string, unknown>, args: unknown = {}) => ({ type: 'tool/call', callId, toolName, args, argsValid: true, origin });
const result = (callId: string, toolName: string, extra: Record<string, unknown> = {}) => ({ type: 'tool/result', callId, toolName, isError: false, content: [], additionalContexts: [], post: [], durationMs: 1, ...extra });

/**
 * Host A runs `run-1` until a deploy needs a person; the run suspends and A anchors its head.
 * Host B resumes it: the deploy is approved and runs, the program goes on and ends.
 */
function suspendedAndResumed(key?: string): { a: Chain; b: Chain; anchored: TraceHead } {
  const a = chain('host-a', key);
  a.emit(call('run-1', 'run_code', { kind: 'model' }, { code: 'await tools.read(); await tools.deploy(); await tools.notify()' }));
  a.emit({ type: 'ptc/run-start', callId: 'run-1', tokenId: 'tokA' });
  a.emit(call('run-1/c.1', 'read', ptc('run-1', 'tokA')));
  a.emit(result('run-1/c.1', 'read'));
  a.emit(call('run-1/c.2', 'deploy', ptc('run-1', 'tokA')));
  a.emit({ type: 'tool/decision', callId: 'run-1/c.2', toolName: 'deploy', stage: 'policy', decision: 'ask', by: { kind: 'listener', index: 0 }, reason: 'a person decides' });
  a.emit({ type: 'ptc/run-suspended', callId: 'run-1', tokenId: 'tokA', runId: 'r-1', pending: [{ approvalId: 'ap-1', toolName: 'deploy', reason: 'a person decides' }] });
  const anchored = a.writer.head;
  a.emit(result('run-1', 'run_code', { value: { suspended: { runId: 'r-1', pending: [{ approvalId: 'ap-1', toolName: 'deploy', args: {}, reason: 'a person decides' }], expiresAt: 9 } } }));
  a.writer.close();
  const b = chain('host-b', key);
  b.emit(call('other', 'team_get', { kind: 'model' }));
  b.emit(result('other', 'team_get'));
  b.emit({ type: 'ptc/run-resumed', callId: 'run-1', tokenId: 'tokB', runId: 'r-1', prevTraceHead: anchored });
  b.emit(call('run-1/c.2', 'deploy', ptc('run-1', 'tokB')));
  b.emit({ type: 'tool/decision', callId: 'run-1/c.2', toolName: 'deploy', stage: 'approval', decision: 'allow', by: { kind: 'approval' } });
  b.emit(result('run-1/c.2', 'deploy'));
  b.emit(call('run-1/c.3', 'notify', ptc('run-1', 'tokB')));
  b.emit(result('run-1/c.3', 'notify'));
  b.emit({ type: 'ptc/run-end', callId: 'run-1', tokenId: 'tokB', outcome: 'ok', calls: 3, durationMs: 7 });
  b.emit(result('run-1', 'run_code', { value: { result: 'done' } }));
  b.writer.close();
  return { a, b, anchored };
}

/** `lines` with line `at` replaced by `edit(record)`, and every later prevHash recomputed (an unkeyed forger's work). */
function rewrite(lines: readonly string[], at: number, edit: (r: Record<string, unknown>) => void, cutAfter = lines.length): string[] {
  const out: string[] = [];
  let prev = GENESIS_HASH;
  lines.slice(0, cutAfter).forEach((l, i) => {
    const r = JSON.parse(l) as Record<string, unknown>;
    if (i === at) edit(r);
    if (i > 0) r.prevHash = prev;
    const line = JSON.stringify(r);
    out.push(line);
    prev = hashLine(line);
  });
  return out;
}

describe('when both traces of a resumed run are verified together', () => {
  it('checks that the link names a line of the other trace with that seq and hash', async () => {
    const { a, b, anchored } = suspendedAndResumed();
    const [pa, pb] = [save(a.lines, 'a.jsonl'), save(b.lines, 'b.jsonl')];
    const r = await captureCli(['trace', 'verify', pa, pb]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ok: a\.jsonl: 10 lines/m);
    expect(r.out).toMatch(/^ok: b\.jsonl: 12 lines/m);
    expect(r.out).toContain(`  link: b.jsonl line 4 (ptc/run-resumed): links to line 8 of a.jsonl (trace host-a seq ${anchored.seq}): verified`);
    const json = JSON.parse((await captureCli(['trace', 'verify', pa, pb, '--json'])).out);
    expect(json).toMatchObject({ ok: true, links: [{ file: 'b.jsonl', line: 4, type: 'ptc/run-resumed', callId: 'run-1', to: anchored, status: 'verified' }] });
    expect(JSON.parse(a.lines[7]!)).toMatchObject({ seq: anchored.seq, type: 'ptc/run-suspended' });
  });

  it('calls a link to a trace it was not given unverified, not broken', async () => {
    const { b } = suspendedAndResumed();
    const r = await captureCli(['trace', 'verify', save(b.lines)]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/link: .* line 4 \(ptc\/run-resumed\): unverified link: links to trace host-a seq 7, which is in none of the files given/);
  });

  it('finds a linked line that was changed even when its own chain was recomputed', async () => {
    const { a, b } = suspendedAndResumed();
    const forged = rewrite(a.lines, 7, (r) => ((r.pending as { reason: string }[])[0]!.reason = 'routine, approved in advance'));
    expect(verifyTraceSet([{ name: 'a', input: forged.join('\n') }]).ok).toBe(true); // alone, nothing shows
    const r = await captureCli(['trace', 'verify', save(forged), save(b.lines)]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/link: .* line 4 \(ptc\/run-resumed\): BROKEN: links to trace host-a seq 7, but line 8 of .* \(seq 7\) does not have the hash the link records/);
  });

  it('finds the linked line missing from a trace cut before it', async () => {
    const { a, b } = suspendedAndResumed();
    // Cut before the suspension (as a crash would): the link names a line the file does not have.
    const cut = a.lines.slice(0, 7);
    const set = verifyTraceSet([{ name: 'a', input: cut.join('\n') }, { name: 'b', input: b.lines.join('\n') }]);
    expect(set.ok).toBe(false);
    expect(set.links[0]).toMatchObject({ status: 'broken', message: expect.stringMatching(/a has no line with seq 7/) });
    // Cut there and closed with a recomputed end line: A alone verifies, the link does not.
    const closed = [...cut, JSON.stringify({ seq: 7, time: 1, prevHash: hashLine(cut.at(-1)!), type: 'trace/end', events: 6 })];
    const set2 = verifyTraceSet([{ name: 'a', input: closed.join('\n') }, { name: 'b', input: b.lines.join('\n') }]);
    expect(set2.files[0]!.ok).toBe(true);
    expect(set2.ok).toBe(false);
    expect(set2.links[0]).toMatchObject({ status: 'broken', message: expect.stringMatching(/line 8 of a \(seq 7\) does not have the hash the link records/) });
  });

  it('reports a resume that records no link to the chain its run was suspended in as a missing link (exit 1)', async () => {
    const { a, b } = suspendedAndResumed();
    // B's resume without prevTraceHead (a host that did not anchor), its chain recomputed: B alone verifies.
    const unlinked = rewrite(b.lines, 3, (r) => delete r.prevTraceHead);
    expect(verifyTraceSet([{ name: 'b', input: unlinked.join('\n') }]).ok).toBe(true);
    const r = await captureCli(['trace', 'verify', save(a.lines, 'a-missing.jsonl'), save(unlinked, 'b-missing.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/link: b-missing\.jsonl line 4 \(ptc\/run-resumed\): BROKEN: resumes run r-1, suspended at line 8 of a-missing\.jsonl, but records no link to that chain \(no prevTraceHead\): the link is missing/);
  });

  it('checks links between keyed traces with the key, and leaves them unverified without it', () => {
    const { a, b } = suspendedAndResumed(KEY);
    const files = [{ name: 'a', input: a.lines.join('\n') + '\n' }, { name: 'b', input: b.lines.join('\n') + '\n' }];
    expect(verifyTraceSet(files, { key: KEY })).toMatchObject({ ok: true, links: [{ status: 'verified' }] });
    const noKey = verifyTraceSet(files);
    expect(noKey.ok).toBe(false); // the chains themselves cannot be checked
    expect(noKey.links[0]).toMatchObject({ status: 'unverified', message: expect.stringMatching(/keyed/) });
  });

  it('reports a malformed link as broken and two files naming one chain', () => {
    const a = chain('same');
    a.emit({ type: 'ptc/run-resumed', callId: 'r', prevTraceHead: { traceId: 'x', seq: '7', hash: 'nope' } });
    a.writer.close();
    const b = chain('same');
    b.writer.close();
    const set = verifyTraceSet([{ name: 'a', input: a.lines.join('\n') + '\n' }, { name: 'b', input: b.lines.join('\n') + '\n' }]);
    expect(set.ok).toBe(false);
    expect(set.links[0]).toMatchObject({ status: 'broken', message: expect.stringMatching(/prevTraceHead is not/) });
    expect(set.problems).toEqual(['a and b both name trace same: a trace id names one chain']);
  });
});

describe('when both traces of a resumed run are shown together', () => {
  it('shows the run once, with both segments in order, whatever the order of the files', async () => {
    const { a, b } = suspendedAndResumed();
    const [pa, pb] = [save(a.lines, 'a.jsonl'), save(b.lines, 'b.jsonl')];
    for (const files of [[pa, pb], [pb, pa]]) {
      const r = await captureCli(['trace', 'show', ...files, '--no-color']);
      expect(r.code).toBe(0);
      const lines = r.out.split('\n');
      expect(lines.filter((l) => l.startsWith('run_code '))).toHaveLength(1);
      expect(lines.filter((l) => /^[├└]─ /.test(l)).map((l) => l.slice(3).split(' ')[0])).toEqual(['read', 'deploy', 'SUSPENDED', 'RESUMED', 'deploy', 'notify']);
      expect(r.out).toMatch(/SUSPENDED in a\.jsonl line 8: 1 call\(s\) wait for a person: deploy \(a person decides\)/);
      expect(r.out).toMatch(/RESUMED in b\.jsonl line 4 from trace host-a seq 7: link verified \(a\.jsonl line 8\)/);
      expect(r.out).toMatch(/run_code run-1 .*\n {2}allow \(default\)|\(no decision recorded\) {2}⇒ ok/);
      expect(r.out).toMatch(/run: ok, 3 call\(s\)/);
      // The deploy waiting in A and its run in B are two calls, each settled by its own host; "other" is B's own.
      expect(r.out).toMatch(/ask by listener #0: a person decides {2}⇒ deferred: still waiting for a person when the run suspended/);
      expect(r.out).toMatch(/approval allow {2}⇒ ok/);
      expect(r.out).not.toMatch(/ID REUSED/);
      expect(r.out).toMatch(/\n6 call\(s\): 5 ok, 0 denied, 0 blocked, 0 failed, 1 deferred, 0 without result; 0 late or refused\n$/);
      expect(r.err).toMatch(/a\.jsonl: chain intact/);
      expect(r.err).toMatch(/b\.jsonl: chain intact/);
    }
  });

  it('shows the resumed segment alone under a run begun in a trace not given', async () => {
    const { b } = suspendedAndResumed();
    const r = await captureCli(['trace', 'show', save(b.lines), '--no-color']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^run_code run-1 \(begun in a trace not given\)$/m);
    expect(r.out).toMatch(/RESUMED in .* line 4 from trace host-a seq 7: link unverified: links to trace host-a seq 7, which is in none of the files given/);
    expect(r.out).not.toMatch(/LATE/);
  });

  it('attaches the resumed segment to the run the link names when a call id was reused', () => {
    const a = chain('host-a');
    a.emit(call('call_0', 'run_code', { kind: 'model' }, { code: 'first' }));
    a.emit(result('call_0', 'run_code', { value: { result: 1 } }));
    a.emit(call('call_0', 'run_code', { kind: 'model' }, { code: 'second' }));
    a.emit({ type: 'ptc/run-suspended', callId: 'call_0', pending: [] });
    const head = a.writer.head;
    a.emit(call('call_0', 'run_code', { kind: 'model' }, { code: 'third' }));
    a.writer.close();
    const b = chain('host-b');
    b.emit({ type: 'ptc/run-resumed', callId: 'call_0', tokenId: 't', prevTraceHead: head });
    b.emit(call('call_0/c.1', 'read', ptc('call_0', 't')));
    b.writer.close();
    const set = verifyTraceSet([{ name: 'a', input: a.lines.join('\n') }, { name: 'b', input: b.lines.join('\n') }]);
    const events = set.order.flatMap((i) => set.files[i]!.events.map((e, j) => ({ e, source: { file: ['a', 'b'][i]!, line: set.files[i]!.eventLines[j]!, ...(set.links[0]!.file === i && set.links[0]!.line === set.files[i]!.eventLines[j] ? { link: { status: set.links[0]!.status, message: '', target: { file: 'a', line: set.links[0]!.target!.line } } } : {}) } })));
    const tree = buildCallTree(events.map((x) => x.e), { sources: events.map((x) => x.source) });
    const runs = tree.roots.filter((r) => r.toolName === 'run_code');
    expect(runs.map((r) => [(r.args as { code: string }).code, r.children.map((c) => c.toolName)])).toEqual([
      ['first', []],
      ['second', ['read']],
      ['third', []],
    ]);
  });

  it('renders both segments and the link in the HTML report', async () => {
    const { a, b } = suspendedAndResumed();
    const out = join(dir, 'linked.html');
    const r = await captureCli(['trace', 'html', save(a.lines, 'a.jsonl'), save(b.lines, 'b.jsonl'), '-o', out]);
    expect(r.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/<li class="mark suspended">SUSPENDED in a\.jsonl line 8/);
    expect(html).toMatch(/<li class="mark resumed">RESUMED in b\.jsonl line 4 from trace host-a seq 7: link verified/);
    expect(html).toMatch(/<li class="link verified">b\.jsonl line 4: links to line 8 of a\.jsonl/);
    expect(html.match(/<li class="call [a-z]+" data-call-id="run-1">/g)).toHaveLength(1);
    expect(renderHtml(buildCallTree([]), { title: 'empty', files: [] })).toContain('</html>');
  });
});
