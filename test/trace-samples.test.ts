/**
 * The checked-in trace samples (test/fixtures/session-logs/), loaded in CI: one per chain format
 * (`ptc-trace-1.jsonl`, written before traces had ids; `ptc-trace-1-keyed.jsonl`) and the hostile
 * ones of issue 24. Each is read by `verifyTrace` and by `ptc trace verify|show` as it is on
 * disk (bytes), and every file in the folder must be listed here with what reading it gives.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { captureCli } from './support/capture-cli.js';
import { hostileTraceSamples, keyedSample } from './support/trace-samples.js';
import { SAMPLE_TRACE_KEY } from './session-scenario.js';
import { verifyTrace, type TraceProblemKind } from '../tools/index.js';

const dir = new URL('./fixtures/session-logs/', import.meta.url);
const path = (name: string) => new URL(name, dir).pathname;
if (process.env.UPDATE_SESSION_LOGS) {
  writeFileSync(new URL('ptc-trace-1-keyed.jsonl', dir), keyedSample(readFileSync(new URL('ptc-trace-1.jsonl', dir), 'utf8')));
  for (const [name, content] of Object.entries(hostileTraceSamples())) writeFileSync(new URL(name, dir), content);
}

/** What verifying each sample gives: intact (with the sample key, for a keyed one) or its first problem. */
const EXPECTED: Record<string, { ok: true; keyed?: true } | { first: readonly [number, TraceProblemKind]; keyed?: true }> = {
  'ptc-trace-1.jsonl': { ok: true },
  'ptc-trace-1-keyed.jsonl': { ok: true, keyed: true },
  'hostile-trace-escapes.jsonl': { ok: true },
  'hostile-trace-reused-ids.jsonl': { ok: true },
  'hostile-trace-prepended.jsonl': { first: [1, 'inserted'] },
  'hostile-trace-bytes.jsonl': { first: [2, 'edited'] },
  'hostile-trace-keyed-cut.jsonl': { first: [3, 'edited'], keyed: true },
  // Plain session logs and hostile plain logs: no chain line, so not traces.
  'ptc-events-1.jsonl': { first: [1, 'not-a-trace'] },
  'hostile-bad-fields.jsonl': { first: [1, 'not-a-trace'] },
  'hostile-prototype-keys.jsonl': { first: [1, 'not-a-trace'] },
  'hostile-truncated-last-line.jsonl': { first: [1, 'not-a-trace'] },
  'hostile-unknown-event-type.jsonl': { first: [1, 'not-a-trace'] },
};
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/u;

describe('when the checked-in trace samples are read', () => {
  it('lists every sample in the folder', () => {
    expect(readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s verifies as expected from its bytes', (name, expected) => {
    const bytes = readFileSync(path(name));
    const v = verifyTrace(bytes, expected.keyed ? { key: SAMPLE_TRACE_KEY } : {});
    if ('ok' in expected) expect(v.problems).toEqual([]);
    else expect([v.problems[0]?.line, v.problems[0]?.kind]).toEqual(expected.first);
    if (expected.keyed) expect(verifyTrace(bytes).problems[0]).toMatchObject({ line: 1, kind: 'key' });
  });

  it('the keyed sample holds the same events as the unkeyed one', () => {
    const plain = verifyTrace(readFileSync(path('ptc-trace-1.jsonl')));
    const keyed = verifyTrace(readFileSync(path('ptc-trace-1-keyed.jsonl')), { key: SAMPLE_TRACE_KEY });
    const strip = (events: readonly Record<string, unknown>[]) => events.map(({ prevHash: _p, ...e }) => e);
    expect(strip(keyed.events)).toEqual(strip(plain.events));
    expect(keyed.traceId).toBe('sample-keyed-trace');
    expect(plain.traceId).toBeUndefined();
  });

  it('ptc trace show prints every sample with nothing that drives the terminal, and exits 1 exactly for the broken ones', async () => {
    process.env.PTC_SAMPLE_KEY = SAMPLE_TRACE_KEY;
    try {
      for (const [name, expected] of Object.entries(EXPECTED)) {
        const r = await captureCli(['trace', 'show', path(name), '--no-color', ...(expected.keyed ? ['--key-env', 'PTC_SAMPLE_KEY'] : [])]);
        expect(UNSAFE.test(r.out + r.err), name).toBe(false);
        const plainLog = 'first' in expected && expected.first[1] === 'not-a-trace';
        expect(r.code, name).toBe('ok' in expected || plainLog ? 0 : 1);
      }
    } finally {
      delete process.env.PTC_SAMPLE_KEY;
    }
  });

  it('shows the reused ids as two calls, the forged one flagged, and the escapes escaped', async () => {
    const reused = await captureCli(['trace', 'show', path('hostile-trace-reused-ids.jsonl'), '--no-color']);
    expect(reused.out).toMatch(/\n2 call\(s\): 1 ok, 1 denied/);
    const prepended = await captureCli(['trace', 'show', path('hostile-trace-prepended.jsonl'), '--no-color']);
    expect(prepended.out).toMatch(/^wire_money forged \{"to":"attacker"\} ⚠ line 1 inserted$/m);
    const escapes = await captureCli(['trace', 'show', path('hostile-trace-escapes.jsonl'), '--no-color']);
    expect(escapes.out).toContain('[parallel\\u001B[1A\\u001B[2K\\u000D\\u0008');
    expect(escapes.out).toContain('DENIED by guard\\u001B[1A');
  });
});
