/**
 * Replay must show what was shown live. A real session (model turns, a guard denial, an
 * approval, a post-execute block, a run_code program with child calls, a background job) is
 * watched live after every event and logged in both formats; replaying any prefix of the log
 * must give exactly the live view at that point.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunCodeTool } from '../runtime/index.js';
import {
  createJobTools,
  createToolHost,
  createTraceWriter,
  decision,
  memoryJsonlSink,
  replaySession,
  watchSession,
  type SessionView,
  type ToolHost,
} from '../tools/index.js';
import { bashTool } from '../examples/background-job.js';
import { editFile, readFile, SAMPLE_TRACE_KEY, secrets } from './session-scenario.js';
import { writeFileSync } from 'node:fs';

const view = (v: SessionView) => ({ calls: v.calls, jobs: v.jobs, unmatchedDispatches: v.unmatchedDispatches });

let host: ToolHost;
let bashJobId = '';
const live: SessionView[] = [];
const plain = memoryJsonlSink();
const traceLines: string[] = [];
const keyedLines: string[] = [];

beforeAll(async () => {
  let clock = 1_700_000_000_000;
  host = createToolHost({
    now: () => (clock += 7),
    approval: { request: async () => 'allow-once' },
  });
  host.register([readFile, editFile, secrets, bashTool, ...createJobTools()]);
  host.register(createRunCodeTool({ isolation: 'isolate', typecheck: 'off', host }));
  host.hooks.guard((e) => (e.toolName === 'edit_file' && String((e.args as { path: string }).path).startsWith('/etc') ? 'system files are read-only' : undefined));
  host.hooks.preExecute((e) => (e.toolName === 'get_secret' ? decision.ask('reads a secret') : undefined));
  host.hooks.postExecute((e) => (e.toolName === 'get_secret' ? { type: 'block', reason: 'secrets never reach the model' } : undefined));
  host.onEvent(plain);
  const trace = createTraceWriter({ write: (line) => traceLines.push(line), now: () => clock });
  host.onEvent(trace);
  const keyed = createTraceWriter({ write: (line) => keyedLines.push(line), now: () => clock, key: SAMPLE_TRACE_KEY, traceId: 'sample-keyed-trace' });
  host.onEvent(keyed);
  const watch = watchSession(host);
  host.onEvent(() => live.push(watch.view()));

  const agent = { id: 'agent-1', name: 'coder' };
  await host.runTurn(
    [
      { id: 'm1', name: 'read_file', args: { path: '/src/a.ts' } },
      { id: 'm2', name: 'edit_file', args: { path: '/etc/passwd', diff: '+root2' } },
      { id: 'm3', name: 'edit_file', args: { path: '/src/a.ts', diff: '-a\n+b' } },
      { id: 'm4', name: 'get_secret', args: { key: 'db', __proto__: 'x' } },
      { id: 'm5', name: 'no_such_tool', args: {} },
      { id: 'm6', name: 'read_file', args: { file: 'old-format' } },
    ],
    { agent },
  );
  const program = [
    "const a = await tools.read_file({ path: '/src/b.ts' });",
    "const b = await tools.read_file({ path: '/src/c.ts' });",
    "let denied = '';",
    "try { await tools.edit_file({ path: '/etc/hosts', diff: 'x' }); } catch (e) { denied = e.message; }",
    'return { lines: a.lines + b.lines, denied };',
  ].join('\n');
  const run = await host.call({ id: 'm7', name: 'run_code', args: { code: program } }, { agent });
  expect(run.isError).toBe(false);
  const started = await host.call({ id: 'm8', name: 'bash', args: { command: 'echo one; echo two', background: true } }, { agent });
  const { jobId } = started.value as { jobId: string };
  bashJobId = jobId;
  await host.jobs.wait(agent, jobId);
  await host.call({ id: 'm9', name: 'job_read', args: { jobId } }, { agent });
  watch.dispose();
  trace.close();
  keyed.close();
  // UPDATE_SESSION_LOGS=1 re-records the checked-in samples of both formats from this session
  // (then run test/replay-logs.test.ts with it too, to re-key the keyed sample from the new one).
  if (process.env.UPDATE_SESSION_LOGS) {
    const dir = new URL('./fixtures/session-logs/', import.meta.url);
    writeFileSync(new URL('ptc-events-1.jsonl', dir), plain.lines.join('\n') + '\n');
    writeFileSync(new URL('ptc-trace-1.jsonl', dir), traceLines.join('\n') + '\n');
    writeFileSync(new URL('expected-view.json', dir), JSON.stringify(view(live.at(-1)!), null, 1) + '\n');
  }
}, 60_000);

afterAll(() => host?.close());

describe('replaySession on a live session', () => {
  it('shows the session live the way the test expects (sanity of the scenario)', () => {
    const last = live.at(-1)!;
    const byId = new Map(last.calls.map((c) => [c.callId, c]));
    expect(byId.get('m1')!.card).toEqual({ card: 'read', phase: 'result', path: '/src/a.ts', totalLines: 2, preview: 'contents of /src/a.ts' });
    expect(byId.get('m2')!).toMatchObject({ status: 'denied', card: { card: 'generic', subtitle: 'denied: system files are read-only' } });
    expect(byId.get('m3')!.card).toMatchObject({ card: 'edit', phase: 'result', applied: true });
    expect(byId.get('m4')!).toMatchObject({ status: 'blocked', decisions: [{ decision: 'ask' }, { stage: 'approval', decision: 'allow' }] });
    expect(byId.get('m5')!.status).toBe('error');
    expect(byId.get('m6')!).toMatchObject({ argsValid: false, card: { card: 'generic' } });
    const runCall = byId.get('m7')!;
    expect(runCall.children.map((c) => [c.toolName, c.status])).toEqual([
      ['read_file', 'ok'],
      ['read_file', 'ok'],
      ['edit_file', 'denied'],
    ]);
    for (const child of runCall.children) {
      expect(child.origin).toMatchObject({ kind: 'ptc', parentCallId: 'm7' });
      expect(child.dispatch).toBeDefined();
    }
    expect(runCall.run).toMatchObject({ outcome: 'ok', calls: 3 });
    expect(byId.get('m8')!.card).toMatchObject({ card: 'command', phase: 'result', background: true, exitCode: null, jobId: bashJobId });
    expect(byId.get('m9')!.card).toMatchObject({ card: 'job', jobId: bashJobId, status: 'succeeded' });
    expect(last.jobs).toMatchObject([{ jobId: bashJobId, status: 'succeeded', owner: { id: 'agent-1' }, value: { exitCode: 0 } }]);
  });

  it('rebuilds the final view from the plain log, identical to the live one', () => {
    const replayed = replaySession(plain.lines.join('\n') + '\n', { tools: host });
    expect(replayed.format).toBe('ptc-events/1');
    expect(replayed.problems).toEqual([]);
    expect(view(replayed)).toEqual(view(live.at(-1)!));
  });

  it('rebuilds the view after every prefix of the log, identical to what was shown at that moment', () => {
    expect(plain.lines.length).toBe(live.length);
    for (let k = 1; k <= plain.lines.length; k++) {
      const replayed = replaySession(plain.lines.slice(0, k).join('\n'), { tools: host });
      expect(view(replayed), `after event ${k}`).toEqual(view(live[k - 1]!));
    }
  });

  it('rebuilds the same view from the hash-chained trace, and reports the chain intact', () => {
    const replayed = replaySession(traceLines.join('\n') + '\n', { tools: host });
    expect(replayed.format).toBe('ptc-trace/1');
    expect(replayed.chain?.ok).toBe(true);
    expect(replayed.problems).toEqual([]);
    expect(view(replayed)).toEqual(view(live.at(-1)!));
  });

  it('rebuilds the same view from the keyed trace, whose chain only its key verifies', () => {
    const text = keyedLines.join('\n') + '\n';
    const replayed = replaySession(text, { tools: host, key: SAMPLE_TRACE_KEY });
    expect(replayed.chain).toMatchObject({ ok: true, problems: [] });
    expect(view(replayed)).toEqual(view(live.at(-1)!));
    expect(replaySession(text, { tools: host }).chain?.problems).toEqual([expect.objectContaining({ kind: 'key' })]);
  });

  it('shows generic cards, with the same tree and results, when replayed without the tools', () => {
    const replayed = replaySession(plain.lines.join('\n'), {});
    const withTools = live.at(-1)!;
    expect(replayed.calls.map((c) => c.callId)).toEqual(withTools.calls.map((c) => c.callId));
    expect(replayed.calls.every((c) => c.card.card === 'generic')).toBe(true);
    expect(replayed.calls.find((c) => c.callId === 'm7')!.children).toHaveLength(3);
  });

  it('reports an edited trace but still shows it', () => {
    const edited = [...traceLines];
    const at = edited.findIndex((l) => l.includes('"tool/result"'));
    edited[at] = edited[at]!.replace('contents of', 'CONTENTS OF');
    const replayed = replaySession(edited.join('\n'), { tools: host });
    expect(replayed.chain?.ok).toBe(false);
    expect(replayed.chain?.problems[0]).toMatchObject({ kind: 'edited' });
    expect(replayed.calls[0]!.result?.value).toMatchObject({ text: expect.stringContaining('CONTENTS OF') });
  });
});
