/**
 * Every checked-in session log is loaded: one sample per format (`ptc-events/1`, `ptc-trace/1`,
 * recorded from the live session of replay-session.test.ts) and the hostile ones. Replay never
 * throws, shows what it can, and names what it could not read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bashTool } from '../examples/background-job.js';
import { createRunCodeTool } from '../runtime/index.js';
import { createJobTools, replaySession, type CallView, type Tool } from '../tools/index.js';
import { editFile, readFile, SAMPLE_TRACE_KEY, secrets } from './session-scenario.js';

const dir = new URL('./fixtures/session-logs/', import.meta.url);
// The scenario's tools, for their presenters (nothing is executed; run_code's runner is never started).
const tools: Tool[] = [readFile, editFile, secrets, bashTool, ...createJobTools(), createRunCodeTool({ isolation: 'isolate' })];
const load = (name: string) => readFileSync(new URL(name, dir), 'utf8');
const logs = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
const expected = JSON.parse(load('expected-view.json'));
const flat = (calls: readonly CallView[]): CallView[] => calls.flatMap((c) => [c, ...flat(c.children)]);

describe('checked-in session logs', () => {
  it('include one sample per format and the hostile ones', () => {
    expect(logs).toEqual(
      expect.arrayContaining([
        'ptc-events-1.jsonl',
        'ptc-trace-1.jsonl',
        'hostile-truncated-last-line.jsonl',
        'hostile-unknown-event-type.jsonl',
        'hostile-prototype-keys.jsonl',
        'hostile-bad-fields.jsonl',
        'ptc-trace-1-keyed.jsonl',
        'hostile-trace-escapes.jsonl',
        'hostile-trace-reused-ids.jsonl',
        'hostile-trace-prepended.jsonl',
        'hostile-trace-bytes.jsonl',
        'hostile-trace-keyed-cut.jsonl',
      ]),
    );
  });

  it.each(logs)('%s replays without throwing, with or without tools, from text or bytes', (name) => {
    const text = load(name);
    for (const options of [{ tools }, {}]) {
      expect(() => replaySession(text, options)).not.toThrow();
      expect(() => replaySession(new TextEncoder().encode(text), options)).not.toThrow();
    }
    const replayed = replaySession(text, { tools });
    expect(JSON.parse(JSON.stringify(replayed))).toEqual(replayed); // plain JSON all the way down
  });

  describe.each([
    ['ptc-events-1.jsonl', 'ptc-events/1'],
    ['ptc-trace-1.jsonl', 'ptc-trace/1'],
  ])('%s', (name, format) => {
    it(`reads as ${format} and gives the view recorded live`, () => {
      const replayed = replaySession(load(name), { tools });
      expect(replayed.format).toBe(format);
      expect(replayed.problems).toEqual([]);
      expect({ calls: replayed.calls, jobs: replayed.jobs, unmatchedDispatches: replayed.unmatchedDispatches }).toEqual(expected);
    });
  });

  it('the trace sample has an intact chain', () => {
    expect(replaySession(load('ptc-trace-1.jsonl')).chain).toMatchObject({ ok: true, problems: [] });
  });

  it('the keyed trace sample gives the view recorded live, and its chain holds under its key', () => {
    const replayed = replaySession(readFileSync(new URL('ptc-trace-1-keyed.jsonl', dir)), { tools, key: SAMPLE_TRACE_KEY });
    expect(replayed).toMatchObject({ format: 'ptc-trace/1', problems: [], chain: { ok: true, problems: [] } });
    expect({ calls: replayed.calls, jobs: replayed.jobs, unmatchedDispatches: replayed.unmatchedDispatches }).toEqual(expected);
  });

  it('a line put before a trace\'s header does not make it a plain log, and a changed byte is seen in bytes', () => {
    expect(replaySession(load('hostile-trace-prepended.jsonl'))).toMatchObject({ format: 'ptc-trace/1', chain: { ok: false, problems: [{ line: 1, kind: 'inserted' }] } });
    expect(replaySession(readFileSync(new URL('hostile-trace-bytes.jsonl', dir))).chain).toMatchObject({ ok: false, problems: [{ line: 2, kind: 'edited' }, { line: 2, kind: 'malformed' }] });
  });

  it('a truncated last line is reported and everything before it is shown', () => {
    const replayed = replaySession(load('hostile-truncated-last-line.jsonl'), { tools });
    expect(replayed.problems).toEqual([{ line: 13, problem: 'truncated last line' }]);
    expect(replayed.calls.map((c) => c.callId)).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(replayed.calls[3]!.status).toBe('pending');
  });

  it('unknown event types and non-object lines are named and skipped', () => {
    const replayed = replaySession(load('hostile-unknown-event-type.jsonl'), { tools });
    expect(replayed.problems.map((p) => [p.line, p.problem])).toEqual([
      [4, 'unknown event type "tool/teleport"'],
      [5, 'unknown event type "__proto__"'],
      [6, 'unknown event type "42"'],
      [7, 'unknown event type "undefined"'],
      [8, 'not a JSON object'],
      [9, 'not a JSON object'],
      [10, 'not a JSON object'],
      [11, 'not valid JSON'],
      [12, 'unknown event type "session/v9-feature"'],
    ]);
    expect(replayed.calls.map((c) => [c.callId, c.status])).toEqual([
      ['m1', 'ok'],
      ['m2', 'denied'],
      ['m3', 'ok'],
    ]);
  });

  it('prototype keys are ordinary ids and keys, and pollute nothing', () => {
    const replayed = replaySession(load('hostile-prototype-keys.jsonl'), { tools });
    const calls = flat(replayed.calls);
    expect(calls.map((c) => c.callId)).toEqual(['__proto__', 'constructor', 'toString']);
    const proto = calls[0]!;
    expect(proto).toMatchObject({ toolName: 'constructor', status: 'ok' });
    expect(Object.keys(proto.args as object)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(proto.args)).toBe(Object.prototype);
    expect(Object.hasOwn(proto.result!.value as object, '__proto__')).toBe(true);
    expect(proto.children.map((c) => c.callId)).toEqual(['constructor']);
    expect(replayed.calls.map((c) => c.callId)).toEqual(['__proto__', 'toString']); // a self-parented call is a root
    expect(replayed.unmatchedDispatches).toMatchObject([{ pairId: '__proto__', toolName: 'valueOf' }]);
    expect(replayed.jobs).toMatchObject([{ jobId: '__proto__', kind: 'constructor', status: 'succeeded' }]);
    expect(replayed.problems).toEqual([{ line: 10, problem: 'unknown event type "undefined"' }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('events with missing or mistyped fields are named; duplicates, cycles and old-format args fall back', () => {
    const replayed = replaySession(load('hostile-bad-fields.jsonl'), { tools });
    expect(replayed.problems.map((p) => [p.line, p.problem])).toEqual([
      [4, 'tool/call: callId is not a string'],
      [5, 'tool/call: seq is not a number'],
      [6, 'tool/call: origin.kind is not "model", "ptc" or "provider-program"'],
      [7, 'tool/decision: decision is not allow, deny, ask or defer'],
      [8, 'tool/result: content is not an array'],
      [11, 'tool/call: args is nested too deeply to read'],
      [12, 'ptc/run-end: outcome is unknown'],
      [13, 'job/progress: done is not a number'],
    ]);
    const calls = flat(replayed.calls);
    // "a" is a root (its parent came later), "b" its child; the duplicate "a" is ignored.
    expect(replayed.calls[0]).toMatchObject({ callId: 'a', toolName: 'read_file', children: [{ callId: 'b' }] });
    expect(calls.filter((c) => c.callId === 'a')).toHaveLength(1);
    // The value does not fit the presenter's schema: generic card, not a crash.
    expect(replayed.calls[0]!.card).toEqual({ card: 'generic', phase: 'result', title: 'read_file' });
    expect(replayed.calls[0]!.result?.additionalContexts).toEqual(['ctx']);
    // Old-format args: the presenter is skipped (generic card), the call and its result still shown.
    expect(calls.find((c) => c.callId === 'e')).toMatchObject({ status: 'ok', card: { card: 'generic', phase: 'result' } });
    // 3000 levels: read, shown as a placeholder; 40000 levels: too deep to read at all.
    expect(calls.find((c) => c.callId === 'deep')!.args).toBe('[nested deeper than 256 levels: not shown]');
    expect(calls.find((c) => c.callId === 'deeper')).toBeUndefined();
  });

  it('keeps the count of a late-call summary, and names a count that is not a number', () => {
    const lines = [
      { seq: 1, time: 1, type: 'tool/call', callId: 'r', toolName: 'run_code', args: { code: 'return 1' }, argsValid: true, origin: { kind: 'model' } },
      { seq: 2, time: 2, type: 'ptc/run-start', callId: 'r', tokenId: 't' },
      { seq: 3, time: 3, type: 'ptc/call-refused', parentCallId: 'r', tokenId: 't', toolName: 'echo', reason: 'the run already ended' },
      { seq: 4, time: 4, type: 'ptc/call-refused', parentCallId: 'r', tokenId: 't', toolName: '(more late calls)', reason: '25 more late calls were refused', count: 25 },
      { seq: 5, time: 5, type: 'ptc/call-refused', parentCallId: 'r', tokenId: 't', toolName: 'echo', reason: 'x', count: 'many' },
    ];
    const replayed = replaySession(lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(replayed.calls[0]!.run!.refused).toEqual([
      { toolName: 'echo', reason: 'the run already ended' },
      { toolName: '(more late calls)', reason: '25 more late calls were refused', count: 25 },
    ]);
    expect(replayed.problems.map((p) => [p.line, p.problem])).toEqual([[5, 'ptc/call-refused: count is not a number']]);
  });

  it('input that is not text at all is a problem, not a throw', () => {
    expect(replaySession(42 as never).problems[0]).toMatchObject({ problem: expect.stringMatching(/neither text nor bytes|not/) });
    expect(replaySession('').calls).toEqual([]);
  });
});
