/**
 * The trace reader against a hostile trace file (issue 24, findings 5-8): every line `ptc trace
 * show` prints is escaped whatever field a value sits in; a reused call id never hides a call or
 * its denial; a file with chain lines is always a chain; `verify` checks the bytes of each line.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from './support/capture-cli.js';
import { createToolHost, createTraceWriter, defineTool, hashLine, verifyTrace, type ToolEvent } from '../tools/index.js';
import { buildCallTree } from '../cli/trace/call-tree.js';
import { renderHtml } from '../cli/trace/render-html.js';
import { renderTree } from '../cli/trace/render-tree.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-trace-hostile-'));
let fileNo = 0;
const save = (text: string | Uint8Array) => {
  const path = join(dir, `t${++fileNo}.jsonl`);
  writeFileSync(path, text);
  return path;
};

/** A validly chained trace of these records, written by the real writer (the records are written as given). */
function chain(records: readonly Record<string, unknown>[]): string {
  const lines: string[] = [];
  const writer = createTraceWriter({ write: (l) => lines.push(l), now: () => 1 });
  records.forEach((r, i) => writer({ seq: i + 1, time: 100 + i, ...r } as unknown as ToolEvent));
  writer.close();
  return lines.join('\n') + '\n';
}

/**
 * Everything that can drive a terminal, reorder or hide text: cursor up and erase line (the
 * attack on the verdict), carriage return, backspace, OSC 52 and BEL, C1 CSI, DEL, bidi
 * override and isolate, zero-width space and BOM, line separator, a lone surrogate.
 */
const HOSTILE = '\u001b[1A\u001b[2K\r\b\u001b]52;c;cHduZWQ=\u0007\u009b2J\u007f\u202e\u2066\u200b\ufeff\u2028\ud800';
/** What must never reach the terminal: the characters visibleText escapes (newline aside). */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/u;

/** One event of every type the reader knows, with every optional field present, linked to each other. */
const EVERY_EVENT: Record<string, unknown>[] = [
  { type: 'tool/call', callId: 'run-1', toolName: 'run_code', args: { code: 'return 1', k: ['v'] }, argsValid: true, origin: { kind: 'model' }, agent: { id: 'a1', name: 'agent' }, mode: 'exclusive' },
  { type: 'tool/decision', callId: 'run-1', toolName: 'run_code', stage: 'policy', decision: 'allow', by: { kind: 'default' } },
  { type: 'ptc/run-start', callId: 'run-1', tokenId: 'tok1' },
  { type: 'tool/ptc-dispatch', pairId: 'run-1/c.1', toolName: 'read', args: { path: '/a' } },
  { type: 'tool/call', callId: 'run-1/c.1', toolName: 'read', args: { path: '/a' }, argsValid: true, origin: { kind: 'ptc', parentCallId: 'run-1', tokenId: 'tok1' }, mode: 'parallel' },
  { type: 'tool/decision', callId: 'run-1/c.1', toolName: 'read', stage: 'policy', decision: 'deny', by: { kind: 'guard', index: 0 }, reason: 'no reading' },
  { type: 'tool/result', callId: 'run-1/c.1', toolName: 'read', isError: true, denied: { by: 'guard', reason: 'no reading' }, content: [{ type: 'text', text: 'denied' }], additionalContexts: ['ctx'], post: [], durationMs: 1 },
  { type: 'tool/call', callId: 'run-1/c.2', toolName: 'write', args: { path: '/b' }, argsValid: true, origin: { kind: 'ptc', parentCallId: 'run-1', tokenId: 'tok1' }, mode: 'exclusive' },
  { type: 'tool/decision', callId: 'run-1/c.2', toolName: 'write', stage: 'policy', decision: 'ask', by: { kind: 'listener', index: 1 }, reason: 'a write' },
  { type: 'tool/decision', callId: 'run-1/c.2', toolName: 'write', stage: 'approval', decision: 'allow', by: { kind: 'approval', via: 'framework', framework: 'ai-sdk', approvalId: 'ap-1', note: 'ok by me' } },
  { type: 'tool/result', callId: 'run-1/c.2', toolName: 'write', isError: false, blocked: { index: 0, reason: 'redacted output' }, content: [], additionalContexts: [], post: [{ index: 0, type: 'block' }], durationMs: 2 },
  { type: 'tool/call', callId: 'run-1/c.3', toolName: 'fail', args: {}, argsValid: false, origin: { kind: 'ptc', parentCallId: 'run-1', tokenId: 'tok1' } },
  { type: 'tool/result', callId: 'run-1/c.3', toolName: 'fail', isError: true, error: { kind: 'aborted', message: 'boom' }, content: [], additionalContexts: [], post: [], durationMs: 3 },
  { type: 'tool/call', callId: 'run-1/c.4', toolName: 'ext', args: { q: 1 }, argsValid: true, origin: { kind: 'provider-program', provider: 'anthropic', callerId: 'srv-1' } },
  { type: 'ptc/run-suspended', callId: 'run-1', tokenId: 'tok1', runId: 'r-1', pending: [{ approvalId: 'ap-2', toolName: 'write', reason: 'a person decides' }] },
  { type: 'ptc/run-resumed', callId: 'run-1', tokenId: 'tok2', runId: 'r-1', prevTraceHead: { traceId: 'other-trace', seq: 7, hash: 'ab'.repeat(32) } },
  { type: 'ptc/run-end', callId: 'run-1', tokenId: 'tok1', outcome: 'limit', limit: { name: 'maxCalls', value: 3 }, calls: 4, durationMs: 9 },
  { type: 'ptc/call-refused', parentCallId: 'run-1', tokenId: 'tok1', toolName: 'late', reason: 'the run already ended', count: 2 },
  { type: 'tool/result', callId: 'run-1', toolName: 'run_code', isError: false, value: { rejected: 'not run', diagnostics: [{ message: 'x' }] }, content: [], additionalContexts: [], post: [], durationMs: 10 },
  { type: 'job/start', jobId: 'j1', kind: 'bash', label: 'sleep', owner: { id: 'a1' } },
  { type: 'job/progress', jobId: 'j1', progress: { message: 'half', done: 1, total: 2 } },
  { type: 'job/end', jobId: 'j1', status: 'failed', error: 'exit 1', value: 'v', outputBytes: 1, droppedBytes: 0, durationMs: 4 },
];

/**
 * Every string value in `value` prefixed by {@link HOSTILE} (the same id stays the same id, so
 * links hold), and the keys of arguments and values too (an event's own field names stay, or the
 * reader would not know the event).
 */
function poisonStrings(value: unknown, poisonKeys = false): unknown {
  if (typeof value === 'string') return HOSTILE + value;
  if (Array.isArray(value)) return value.map((v) => poisonStrings(v, poisonKeys));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [poisonKeys ? HOSTILE + k : k, !poisonKeys && DISCRIMINATORS.has(k) ? v : poisonStrings(v, poisonKeys || k === 'args' || k === 'value')]),
    );
  }
  return value;
}
/** Fields that say what an event or origin is: poisoned one at a time below, kept here so the rest is read. */
const DISCRIMINATORS = new Set(['type', 'kind', 'via']);
/** Paths of every leaf of a record (objects and arrays walked). */
function leafPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leafPaths(v, [...path, i]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...path, k]));
  return [path];
}
function withLeaf(record: Record<string, unknown>, path: (string | number)[], leaf: unknown): Record<string, unknown> {
  const copy = structuredClone(record);
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1)!] = leaf;
  return copy;
}

async function showOf(path: string, extra: string[] = []) {
  return captureCli(['trace', 'show', path, '--no-color', ...extra]);
}
function expectNothingUnsafe(text: string, what: string) {
  const hit = UNSAFE.exec(text);
  expect(hit, `${what}: U+${hit?.[0].charCodeAt(0).toString(16).padStart(4, '0')} reached the terminal in ${JSON.stringify(text.slice(Math.max(0, (hit?.index ?? 0) - 40), (hit?.index ?? 0) + 40))}`).toBeNull();
}

describe('when every field of every event type holds terminal escapes (finding 5)', () => {
  it('escapes every string the show command prints, in a validly chained trace', async () => {
    const path = save(chain(EVERY_EVENT.map((e) => poisonStrings(e) as Record<string, unknown>)));
    const r = await showOf(path);
    expect(r.err.split('\n')[0]).toMatch(/: chain intact \(/);
    // The poisoned prevTraceHead is no head at all: a broken link, whose message is escaped too.
    expect(r.err).toMatch(/link: .* BROKEN: prevTraceHead is not/);
    expect(r.code).toBe(1);
    expectNothingUnsafe(r.out, 'stdout');
    expectNothingUnsafe(r.err, 'stderr');
    // The hostile values were shown (escaped), not dropped.
    expect(r.out).toContain('\\u001B[1A');
    expect(r.out).toContain('\\u202E');
  });

  it('escapes a hostile value put in place of any single field, whatever its type was', async () => {
    const paths = EVERY_EVENT.flatMap((e, i) => leafPaths(e).map((p) => [i, p] as const));
    expect(paths.length).toBe(161);
    for (const [i, p] of paths) {
      const events = EVERY_EVENT.map((e, j) => (j === i ? withLeaf(e, p, HOSTILE) : e));
      const r = await showOf(save(chain(events)));
      expectNothingUnsafe(r.out + r.err, `${String(EVERY_EVENT[i]!.type)} ${p.join('.')}`);
    }
  });

  it('keeps a cursor-up sequence from painting over the verdict of a broken chain', async () => {
    const lines = chain(EVERY_EVENT.map((e) => poisonStrings(e) as Record<string, unknown>)).split('\n');
    lines[3] = lines[3]!.replace('"seq":3', '"seq":3,"x":1');
    const r = await showOf(save(lines.join('\n')));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/CHAIN BROKEN/);
    expect(r.out + r.err).not.toContain('\u001b');
  });

  it('lets only its own colour codes through when colour is on', () => {
    const events = chain(EVERY_EVENT.map((e) => poisonStrings(e) as Record<string, unknown>)).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).slice(1, -1);
    const text = renderTree(buildCallTree(events), { color: true });
    expect(text).toMatch(/\u001b\[31m/);
    expectNothingUnsafe(text.replace(/\u001b\[\d+m/g, ''), 'coloured tree');
  });

  it('escapes a hostile file name and hostile problem messages in verify', async () => {
    const path = join(dir, `name${HOSTILE.replace(/[\u0000\/]/g, '')}.jsonl`);
    writeFileSync(path, JSON.stringify({ seq: 0, time: 1, prevHash: '0'.repeat(64), type: 'trace/header', format: HOSTILE, hash: HOSTILE }) + '\n' + JSON.stringify({ seq: 1, prevHash: HOSTILE }) + '\n');
    for (const argv of [['trace', 'verify', path], ['trace', 'show', path], ['trace', 'html', path, '-o', join(dir, 'x.html')]]) {
      const r = await captureCli(argv);
      expect(r.code, argv[1]).toBe(1);
      expectNothingUnsafe(r.out + r.err, argv[1]!);
    }
  });
});

/** Two turns of a local OpenAI-compatible server: both number their calls from call_0. */
async function reusedIdTrace(): Promise<string> {
  const lines: string[] = [];
  let t = 0;
  const host = createToolHost({ now: () => (t += 1) });
  const writer = createTraceWriter({ write: (l) => lines.push(l), host, now: () => t });
  host.onEvent(writer);
  host.register(defineTool({ name: 'read_file', description: 'Reads a file.', parameters: { path: { type: 'string', required: true } }, execute: (a) => `contents of ${a.path}` }));
  host.hooks.guard((e) => ((e.args as { path: string }).path.startsWith('/etc') ? 'system files are off limits' : undefined));
  await host.call({ id: 'call_0', name: 'read_file', args: { path: '/etc/shadow' } });
  await host.call({ id: 'call_0', name: 'read_file', args: { path: '/src/a.ts' } });
  await host.call({ id: 'call_1', name: 'read_file', args: { path: '/src/b.ts' } });
  writer.close();
  return lines.join('\n') + '\n';
}

describe('when a call id is reused (finding 6)', () => {
  it('shows each call with its own outcome in show, the denial included', async () => {
    const path = save(await reusedIdTrace());
    expect((await captureCli(['trace', 'verify', path])).code).toBe(0);
    const r = await showOf(path);
    expect(r.code).toBe(0);
    const calls = r.out.split('\n').filter((l) => l.startsWith('read_file '));
    expect(calls).toEqual([expect.stringContaining('call_0 [exclusive] {"path":"/etc/shadow"}'), expect.stringContaining('call_0 [exclusive] {"path":"/src/a.ts"}'), expect.stringContaining('call_1')]);
    const outcomes = r.out.split('\n').filter((l) => l.includes('⇒'));
    expect(outcomes[0]).toMatch(/deny by guard #0: system files are off limits {2}⇒ DENIED by guard/);
    expect(outcomes[1]).toMatch(/allow \(default\) {2}⇒ ok/);
    expect(r.out).toMatch(/\n3 call\(s\): 2 ok, 1 denied, 0 blocked/);
  });

  it('shows each call with its own outcome in html', async () => {
    const text = await reusedIdTrace();
    const events = verifyTrace(text).events;
    const html = renderHtml(buildCallTree(events), { title: 't' });
    expect(html.match(/<li class="call denied" data-call-id="call_0">/g)).toHaveLength(1);
    expect(html.match(/<li class="call ok" data-call-id="call_0">/g)).toHaveLength(1);
    expect(html).toContain('class="mark-denied"');
    expect(html).toMatch(/3 call\(s\), 0 run\(s\), 1 denied/);
  });

  it('keeps the children of two runs with the same id under their own run', () => {
    const run = (n: number, t: number) => [
      { type: 'tool/call', callId: 'call_0', toolName: 'run_code', args: { code: `run ${n}` }, time: t, origin: { kind: 'model' } },
      { type: 'ptc/run-start', callId: 'call_0', tokenId: `tok${n}`, time: t },
      { type: 'tool/call', callId: 'call_0/c.1', toolName: 'read', args: { n }, time: t + 1, origin: { kind: 'ptc', parentCallId: 'call_0', tokenId: `tok${n}` } },
      { type: 'tool/result', callId: 'call_0/c.1', toolName: 'read', isError: n === 1, ...(n === 1 ? { denied: { by: 'guard', reason: 'no' } } : {}), time: t + 2 },
      { type: 'ptc/run-end', callId: 'call_0', tokenId: `tok${n}`, outcome: 'ok', calls: 1, durationMs: 3, time: t + 3 },
      { type: 'tool/result', callId: 'call_0', toolName: 'run_code', isError: false, value: { result: n }, time: t + 3 },
    ];
    const tree = buildCallTree([...run(1, 10), ...run(2, 20)]);
    expect(tree.roots.map((r) => (r.args as { code: string }).code)).toEqual(['run 1', 'run 2']);
    expect(tree.roots.map((r) => r.children.map((c) => [(c.args as { n: number }).n, c.outcome]))).toEqual([[[1, 'denied']], [[2, 'ok']]]);
    expect(tree.roots.map((r) => r.run?.calls)).toEqual([1, 1]);
  });

  it('flags calls whose id was reused while another call with it was in flight', () => {
    const tree = buildCallTree([
      { type: 'tool/call', callId: 'x', toolName: 'a', args: {}, time: 1, origin: { kind: 'model' } },
      { type: 'tool/call', callId: 'x', toolName: 'b', args: {}, time: 2, origin: { kind: 'model' } },
      { type: 'tool/result', callId: 'x', toolName: 'a', isError: true, denied: { by: 'guard', reason: 'no' }, time: 3 },
      { type: 'tool/result', callId: 'x', toolName: 'b', isError: false, time: 4 },
    ]);
    expect(tree.roots.map((r) => [r.toolName, r.outcome, r.ambiguous])).toEqual([
      ['a', 'denied', true],
      ['b', 'ok', true],
    ]);
    expect(renderTree(tree)).toMatch(/id reused while another call with it was in flight/);
  });
});

describe('when lines are added to a chain that carry no chain fields (finding 7)', () => {
  const forged = JSON.stringify({ seq: 1, time: 1, type: 'tool/call', callId: 'forged', toolName: 'wire_money', args: { to: 'x' }, argsValid: true, origin: { kind: 'model' } });

  it('reports a prepended line as inserted, and show, html and verify exit 1', async () => {
    const path = save(forged + '\n' + (await reusedIdTrace()));
    const v = await captureCli(['trace', 'verify', path, '--json']);
    expect(v.code).toBe(1);
    expect(JSON.parse(v.out).problems[0]).toMatchObject({ line: 1, kind: 'inserted' });
    const s = await showOf(path);
    expect(s.code).toBe(1);
    expect(s.err).toMatch(/CHAIN BROKEN: line 1 inserted/);
    expect(s.err).not.toMatch(/plain session log/);
    // The call built from the inserted line says so where it is listed.
    expect(s.out).toMatch(/^wire_money forged \{"to":"x"\} ⚠ line 1 inserted$/m);
    const h = await captureCli(['trace', 'html', path, '-o', join(dir, 'prepended.html')]);
    expect(h.code).toBe(1);
    expect(readFileSync(join(dir, 'prepended.html'), 'utf8')).toContain('Hash chain BROKEN');
  });

  it('reports a line inserted in the middle without prevHash as inserted', async () => {
    const lines = (await reusedIdTrace()).split('\n');
    lines.splice(3, 0, forged);
    const r = verifyTrace(lines.join('\n'));
    expect(r.ok).toBe(false);
    expect(r.problems[0]).toMatchObject({ line: 4, kind: 'inserted' });
  });

  it('calls a file a chain when any line carries prevHash, not only the first', () => {
    const lines = chain([{ type: 'tool/call', callId: 'c', toolName: 't', args: {}, argsValid: true, origin: { kind: 'model' } }]).trim().split('\n');
    const plainFirst = [forged, forged, lines[1]!].join('\n');
    const r = verifyTrace(plainFirst);
    expect(r.problems.map((p) => p.kind)).not.toContain('not-a-trace');
    expect(r.ok).toBe(false);
  });
});

describe('when a line\'s bytes are changed without changing its decoded text (finding 8)', () => {
  it('verify reports the line edited', async () => {
    const text = chain([{ type: 'tool/call', callId: 'c', toolName: 't', args: { s: 'a\ufffdb' }, argsValid: true, origin: { kind: 'model' } }]);
    const bytes = Buffer.from(text, 'utf8');
    const at = bytes.indexOf(Buffer.from([0xef, 0xbf, 0xbd]));
    expect(at).toBeGreaterThan(0);
    const tampered = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at + 3)]);
    expect(tampered.toString('utf8')).toBe(text); // the same text once decoded
    const r = await captureCli(['trace', 'verify', save(tampered), '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).problems[0]).toMatchObject({ line: 2, kind: 'edited' });
    expect(verifyTrace(tampered).ok).toBe(false);
    expect(verifyTrace(bytes).ok).toBe(true);
    expect(verifyTrace(bytes).headHash).toBe(hashLine(text.trim().split('\n').at(-1)!));
  });
});
