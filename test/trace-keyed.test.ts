/**
 * Keyed traces (issue 24): `traceFileSink(path, { key })` chains with HMAC-SHA256, and
 * `ptc trace verify --key-env NAME` checks it, so cutting the tail and appending a recomputed end
 * line (which costs one SHA-256 against an unkeyed trace) is caught by whoever holds the key. The
 * key never reaches the file, the command line or any output. Also: the writer's head, and resume
 * tokens kept out of every trace.
 */
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureCli } from './support/capture-cli.js';
import { createHost } from '../examples/tools.js';
import { createTraceWriter, GENESIS_HASH, hashLine, InvalidOptionError, replaySession, tokenIdOf, traceFileSink, verifyTrace, type ToolEvent } from '../index.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-trace-keyed-'));
let n = 0;
const fresh = () => join(dir, `t${++n}.jsonl`);
const KEY = 'k3y-for-tests-0123456789abcdef0123456789abcdef';
const KEY_ENV = 'PTC_TEST_TRACE_KEY';
afterEach(() => {
  delete process.env[KEY_ENV];
});

/** A real keyed trace of the example host: a denial, an approval, an exclusive call. */
async function keyedTrace(key: string | Uint8Array = KEY): Promise<{ path: string; lines: string[] }> {
  const path = fresh();
  const host = createHost({ approval: { request: async () => 'allow-once' } });
  const sink = traceFileSink(path, { host, key });
  host.onEvent(sink);
  await host.call({ id: 'c1', name: 'team_get', args: { id: 'u-103' } });
  await host.call({ id: 'c2', name: 'docs_read', args: { docId: 'doc-07' } });
  await host.call({ id: 'c3', name: 'expense_flag', args: { expenseId: 'exp-0002', reason: 'check' } });
  sink.close();
  return { path, lines: readFileSync(path, 'utf8').trimEnd().split('\n') };
}
const mac = (line: string, key = KEY) => createHmac('sha256', key).update(line, 'utf8').digest('hex');
const text = (lines: readonly string[]) => lines.join('\n') + '\n';
/** The attack an unkeyed chain cannot stop: cut after `keep` lines and append an end line hashed with SHA-256. */
function cutAndRecompute(lines: readonly string[], keep: number, hash: (line: string) => string): string[] {
  const kept = lines.slice(0, keep);
  const events = kept.filter((l) => !/"type":"trace\/(header|end)"/.test(l)).length;
  const end = JSON.stringify({ seq: keep, time: 9, prevHash: hash(kept.at(-1)!), type: 'trace/end', events });
  return [...kept, end];
}

describe('when a trace is written with a key', () => {
  it('chains every line by HMAC-SHA256 under the key and names the function in the header', async () => {
    const { lines } = await keyedTrace();
    const header = JSON.parse(lines[0]!);
    expect(header).toMatchObject({ seq: 0, type: 'trace/header', format: 'ptc-trace/1', hash: 'hmac-sha256', prevHash: GENESIS_HASH });
    expect(header.keyId).toBe(mac('ptc-trace key id').slice(0, 16));
    lines.slice(1).forEach((l, i) => expect(JSON.parse(l).prevHash).toBe(mac(lines[i]!)));
    expect(verifyTrace(text(lines), { key: KEY })).toMatchObject({ ok: true, problems: [], hash: 'hmac-sha256', headHash: mac(lines.at(-1)!) });
  });

  it('never writes the key, in any encoding', async () => {
    const raw = new Uint8Array(48).map((_, i) => (i * 37 + 11) & 0xff);
    const { path } = await keyedTrace(raw);
    const file = readFileSync(path);
    for (const form of [Buffer.from(raw), Buffer.from(Buffer.from(raw).toString('hex')), Buffer.from(Buffer.from(raw).toString('base64'))]) expect(file.includes(form)).toBe(false);
    const { path: p2 } = await keyedTrace(KEY);
    expect(readFileSync(p2, 'utf8')).not.toContain(KEY);
  });

  it('refuses a key shorter than 32 bytes without printing it, and leaves no file behind', () => {
    const path = fresh();
    const short = 'short-secret-1234';
    let err: unknown;
    try {
      traceFileSink(path, { key: short });
    } catch (e) {
      err = e;
    }
    expect(InvalidOptionError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(/key \(its length in bytes\) must be at least 32/);
    expect((err as Error).message).not.toContain(short);
    expect(JSON.stringify(err)).not.toContain(short);
    expect(existsSync(path)).toBe(false);
  });
});

describe('when a keyed trace is verified', () => {
  it('says it needs the key when none is given, and names both key ids for the wrong one', async () => {
    const { lines } = await keyedTrace();
    const noKey = verifyTrace(text(lines));
    expect(noKey.ok).toBe(false);
    expect(noKey.problems).toEqual([expect.objectContaining({ line: 1, kind: 'key', message: expect.stringMatching(/keyed .* only be verified with its key/) })]);
    const wrong = verifyTrace(text(lines), { key: 'another-key-of-enough-length-0123456789' });
    expect(wrong.problems).toEqual([expect.objectContaining({ line: 1, kind: 'key', message: expect.stringMatching(/names key id [0-9a-f]{16}, but the key given has id [0-9a-f]{16}/) })]);
  });

  it('catches a cut tail with a recomputed end line, which an unkeyed chain cannot', async () => {
    // Unkeyed: the attack costs one SHA-256 and verifies (what the docs say the chain does not prove).
    const plain: string[] = [];
    const host = createHost();
    const w = createTraceWriter({ write: (l) => plain.push(l), host });
    host.onEvent(w);
    for (const id of ['a', 'b', 'c']) await host.call({ id, name: 'team_get', args: { id: 'u-103' } });
    w.close();
    expect(verifyTrace(text(cutAndRecompute(plain, 4, hashLine))).ok).toBe(true);
    // Keyed: without the key the forger can only use SHA-256 (or a guess), and the holder of the key sees it.
    const { lines } = await keyedTrace();
    for (const forgedHash of [hashLine, (l: string) => mac(l, 'a-guessed-key-that-is-long-enough-0123456789')]) {
      const forged = cutAndRecompute(lines, 5, forgedHash);
      const v = verifyTrace(text(forged), { key: KEY });
      expect(v.ok).toBe(false);
      expect(v.problems[0]).toMatchObject({ line: 5, kind: 'edited' });
    }
    // Recomputed with the key: valid, which is why the key must stay with the verifier.
    expect(verifyTrace(text(cutAndRecompute(lines, 5, (l) => mac(l))), { key: KEY }).ok).toBe(true);
  });

  it('refuses a keyed trace rewritten as an unkeyed one when the key is given', async () => {
    const { lines } = await keyedTrace();
    const rewritten: string[] = [];
    let prev = GENESIS_HASH;
    for (const l of lines) {
      const record = JSON.parse(l);
      if (record.type === 'trace/header') (record.hash = 'sha256'), delete record.keyId;
      record.prevHash = prev;
      const line = JSON.stringify(record);
      rewritten.push(line);
      prev = hashLine(line);
    }
    expect(verifyTrace(text(rewritten)).ok).toBe(true); // nobody without the key can tell
    const v = verifyTrace(text(rewritten), { key: KEY });
    expect(v.ok).toBe(false);
    expect(v.problems[0]).toMatchObject({ line: 1, kind: 'key', message: expect.stringMatching(/not keyed/) });
  });
});

describe('when ptc trace verify is given --key-env', () => {
  it('reads the key from the environment and says the keyed chain is intact', async () => {
    const { path } = await keyedTrace();
    process.env[KEY_ENV] = KEY;
    const r = await captureCli(['trace', 'verify', path, '--key-env', KEY_ENV]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ok: \d+ lines, \d+ events, keyed chain intact \(HMAC-SHA256\); head [0-9a-f]{64}\n$/);
    const s = await captureCli(['trace', 'show', path, '--key-env', KEY_ENV, '--no-color']);
    expect(s.code).toBe(0);
    expect(s.err).toMatch(/keyed chain intact/);
    expect(s.out + s.err + r.out + r.err).not.toContain(KEY);
  });

  it('exits 1 for a keyed trace verified without the key, and for a forged end', async () => {
    const { path, lines } = await keyedTrace();
    const r = await captureCli(['trace', 'verify', path]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/line 1: key: the trace is keyed/);
    process.env[KEY_ENV] = KEY;
    const forged = fresh();
    writeFileSync(forged, text(cutAndRecompute(lines, 5, hashLine)));
    const f = await captureCli(['trace', 'verify', forged, '--key-env', KEY_ENV, '--json']);
    expect(f.code).toBe(1);
    expect(JSON.parse(f.out).problems[0]).toMatchObject({ line: 5, kind: 'edited' });
  });

  it('exits 2 naming the variable when it is unset or holds a short key, never printing its value', async () => {
    const { path } = await keyedTrace();
    const unset = await captureCli(['trace', 'verify', path, '--key-env', KEY_ENV]);
    expect(unset).toMatchObject({ code: 2, err: `ptc: --key-env ${KEY_ENV}: the environment variable ${KEY_ENV} is not set\n` });
    process.env[KEY_ENV] = 'tiny-secret';
    const short = await captureCli(['trace', 'verify', path, '--key-env', KEY_ENV]);
    expect(short.code).toBe(2);
    expect(short.err).toMatch(/is 11 bytes; a trace key is at least 32/);
    expect(short.err).not.toContain('tiny-secret');
  });
});

describe('when ptc run is given --trace-key-env', () => {
  it('writes a keyed trace of a real run that only the key verifies, the key in no file or output', async () => {
    process.env[KEY_ENV] = KEY;
    const path = fresh();
    const r = await captureCli(['run', 'examples/programs/guard-denial.ts', '--trace', path, '--trace-key-env', KEY_ENV, '--isolation', 'isolate']);
    expect(r.err).toContain(`trace written to ${path}`);
    const bytes = readFileSync(path);
    expect(JSON.parse(bytes.toString('utf8').split('\n')[0]!)).toMatchObject({ hash: 'hmac-sha256' });
    expect(verifyTrace(bytes, { key: KEY })).toMatchObject({ ok: true, problems: [] });
    expect((await captureCli(['trace', 'verify', path])).code).toBe(1);
    const show = await captureCli(['trace', 'show', path, '--key-env', KEY_ENV, '--no-color']);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/DENIED by guard/);
    expect(bytes.includes(Buffer.from(KEY))).toBe(false);
    expect(r.out + r.err + show.out + show.err).not.toContain(KEY);
  });

  it('refuses a key without a trace, and an unset variable, before running anything', async () => {
    process.env[KEY_ENV] = KEY;
    const noTrace = await captureCli(['run', 'examples/programs/guard-denial.ts', '--trace-key-env', KEY_ENV, '--isolation', 'isolate']);
    expect(noTrace).toMatchObject({ code: 2, out: '' });
    expect(noTrace.err).toMatch(/--trace-key-env keys a trace: give --trace/);
    delete process.env[KEY_ENV];
    const path = fresh();
    const unset = await captureCli(['run', 'examples/programs/guard-denial.ts', '--trace', path, '--trace-key-env', KEY_ENV, '--isolation', 'isolate']);
    expect(unset.code).toBe(2);
    expect(unset.err).toMatch(new RegExp(`--trace-key-env ${KEY_ENV}: the environment variable ${KEY_ENV} is not set`));
    expect(existsSync(path)).toBe(false);
  });
});

describe('when a host reads its trace writer\'s head', () => {
  it('gives the trace id, seq and chain hash of the last line written, keyed or not', async () => {
    for (const key of [undefined, KEY]) {
      const lines: string[] = [];
      const w = createTraceWriter({ write: (l) => lines.push(l), traceId: 'replica-a', ...(key ? { key } : {}) });
      const hash = (l: string) => (key ? mac(l) : hashLine(l));
      expect(w.head).toEqual({ traceId: 'replica-a', seq: 0, hash: hash(lines[0]!) });
      w({ type: 'ptc/run-start', seq: 1, time: 1, callId: 'r', tokenId: 't' });
      expect(w.head).toEqual({ traceId: 'replica-a', seq: 1, hash: hash(lines[1]!) });
      w.close();
      expect(w.head).toEqual({ traceId: 'replica-a', seq: 2, hash: hash(lines[2]!) });
      expect(w.headHash).toBe(w.head.hash);
      expect(JSON.parse(lines[0]!).traceId).toBe('replica-a');
    }
    const path = fresh();
    const sink = traceFileSink(path);
    expect(sink.traceId).toMatch(/^[0-9a-f]{32}$/);
    sink.close();
    const last = readFileSync(path, 'utf8').trimEnd().split('\n').at(-1)!;
    expect(sink.head).toEqual({ traceId: sink.traceId, seq: 1, hash: createHash('sha256').update(last).digest('hex') });
  });
});

/** A resume token as a durable run's HMAC token might look: base64url payload and MAC. */
const TOKEN = 'ptcr1.eyJydW4iOiJyLTEiLCJhZ2VudCI6ImExIn0.Qm9ndXNNYWNPZlRoaXJ0eVR3b0J5dGVzMDEyMzQ1Njc4OQ';

describe('when a resume token reaches the trace writer', () => {
  it('writes its digest instead, wherever it sits, in this line and in later ones', () => {
    const lines: string[] = [];
    const w = createTraceWriter({ write: (l) => lines.push(l) });
    const value = { suspended: { runId: 'r-1', pending: [{ approvalId: 'ap-1', toolName: 'deploy', reason: 'a person decides' }], expiresAt: 5, resumeToken: TOKEN } };
    const events = [
      { type: 'ptc/run-suspended', callId: 'run-1', tokenId: 't1', runId: 'r-1', resumeToken: TOKEN },
      { type: 'tool/result', callId: 'run-1', toolName: 'run_code', isError: false, value, content: [{ type: 'text', text: JSON.stringify(value) }], additionalContexts: [], post: [], durationMs: 1 },
      { type: 'job/end', jobId: 'j', status: 'failed', error: `the app logged token=${TOKEN} by mistake`, outputBytes: 0, droppedBytes: 0, durationMs: 1 },
    ];
    events.forEach((e, i) => w({ seq: i + 1, time: i, ...e } as unknown as ToolEvent));
    w.close();
    const file = text(lines);
    expect(file).not.toContain(TOKEN);
    expect(file).not.toContain(TOKEN.split('.')[2]);
    expect(file.match(new RegExp(`\\[resume token ${tokenIdOf(TOKEN)}\\]`, 'g'))).toHaveLength(4);
    expect(verifyTrace(file).ok).toBe(true);
    expect(replaySession(file).chain?.ok).toBe(true);
  });

  it('is not printed by ptc trace show from a trace no writer redacted', async () => {
    const path = fresh();
    const lines = [
      { type: 'tool/call', callId: 'run-1', toolName: 'run_code', args: { code: 'x', resumeToken: TOKEN }, origin: { kind: 'model' }, time: 1 },
      { type: 'ptc/run-suspended', callId: 'run-1', pending: [{ toolName: 'deploy', reason: `resumeToken: ${TOKEN}` }], resumeToken: TOKEN, time: 2 },
      { type: 'tool/result', callId: 'run-1', toolName: 'run_code', isError: false, value: { suspended: { resumeToken: TOKEN, pending: [] } }, time: 3 },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await captureCli(['trace', 'show', path, '--no-color', '--args-width', '400']);
    expect(r.out).toContain('SUSPENDED');
    expect(r.out).toContain(`[resume token ${tokenIdOf(TOKEN)}]`);
    expect(r.out + r.err).not.toContain(TOKEN);
    const html = join(dir, 'token.html');
    await captureCli(['trace', 'html', path, '-o', html]);
    expect(readFileSync(html, 'utf8')).toContain(`[resume token ${tokenIdOf(TOKEN)}]`);
    expect(readFileSync(html, 'utf8')).not.toContain(TOKEN);
  });
});
