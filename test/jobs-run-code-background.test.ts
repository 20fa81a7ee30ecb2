/**
 * Background run_code: a long batch program returns the canonical handle at once; its child
 * calls still carry the run's token and parent call id and obey the run's limits; the job ends
 * with the run's value, error or kill.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRunCodeTool } from '../runtime/index.js';
import { createJobTools, createToolHost, defineTool, watchSession, type ToolEvent } from '../tools/index.js';

const gates: (() => void)[] = [];
const slow = defineTool({
  name: 'slow_step',
  description: 'A step that waits until the test releases it.',
  parameters: { n: { type: 'number', required: true } },
  execute: (args) => new Promise<number>((resolve) => gates.push(() => resolve(args.n * 10))),
});

const events: ToolEvent[] = [];
const host = createToolHost({ onEvent: (e) => events.push(e) });
const runCode = createRunCodeTool({ isolation: 'isolate', typecheck: 'off', background: true, limits: { maxCalls: 3 }, host });
host.register([slow, ...createJobTools(), runCode]);
const agent = { id: 'batch-agent' };
afterAll(async () => {
  host.close();
  await runCode.close();
});

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('run_code with background: true', () => {
  it('offers the background parameter only when the option is on', () => {
    expect(Object.keys((host.get('run_code')!.parametersJsonSchema as { properties: object }).properties)).toEqual(['code', 'background']);
    const plain = createRunCodeTool({ isolation: 'isolate' });
    expect(Object.keys((plain.parametersJsonSchema as { properties: object }).properties)).toEqual(['code']);
  });

  it('returns the handle at once; children carry the run token and parent id; the job ends with the run value', async () => {
    const watch = watchSession(host);
    const code = 'const a = await tools.slow_step({ n: 1 });\nconst b = await tools.slow_step({ n: 2 });\nreturn a + b;';
    const started = await host.call({ id: 'bg1', name: 'run_code', args: { code, background: true } }, { agent });
    expect(started.value).toEqual({ kind: 'background', jobId: expect.stringMatching(/^job_[0-9a-f]{32}$/) });
    const { jobId } = started.value as { jobId: string };
    expect(host.jobs.list(agent)).toMatchObject([{ jobId, status: 'running', label: 'run_code: const a = await tools.slow_step({ n: 1 });' }]);

    await until(() => gates.length === 1);
    gates.shift()!();
    await until(() => gates.length === 1);
    gates.shift()!();
    await host.jobs.wait(agent, jobId);

    const read = await host.call({ id: 'r1', name: 'job_read', args: { jobId } }, { agent });
    expect(read.value).toMatchObject({ status: 'succeeded', value: { result: 30, calls: [{ tool: 'slow_step', status: 'ok' }, { tool: 'slow_step', status: 'ok' }] } });

    const runStart = events.find((e) => e.type === 'ptc/run-start' && e.callId === 'bg1') as Extract<ToolEvent, { type: 'ptc/run-start' }>;
    const children = events.filter((e): e is Extract<ToolEvent, { type: 'tool/call' }> => e.type === 'tool/call' && e.origin.kind === 'ptc');
    expect(children).toHaveLength(2);
    for (const child of children) {
      expect(child.origin).toEqual({ kind: 'ptc', parentCallId: 'bg1', tokenId: runStart.tokenId });
      expect(child.agent).toEqual(agent);
    }
    const view = watch.view();
    watch.dispose();
    const call = view.calls.find((c) => c.callId === 'bg1')!;
    expect(call.card).toEqual({ card: 'job', phase: 'result', label: 'run_code', jobKind: 'run_code', jobId, status: 'running' });
    expect(call.children.map((c) => c.status)).toEqual(['ok', 'ok']);
    expect(view.jobs.find((j) => j.jobId === jobId)).toMatchObject({ status: 'succeeded', value: { result: 30 } });
  });

  it("obeys the run's limits: more calls than maxCalls fail the job with the limit named", async () => {
    const code = 'for (let i = 0; i < 5; i++) await tools.job_list({});\nreturn 1;';
    const started = await host.call({ id: 'bg2', name: 'run_code', args: { code, background: true } }, { agent });
    const { jobId } = started.value as { jobId: string };
    await host.jobs.wait(agent, jobId);
    expect(host.jobs.read(agent, jobId)).toMatchObject({ status: 'failed', error: expect.stringContaining('maxCalls=3') });
  });

  it('job_kill aborts the run: the job is killed and the run ends aborted', async () => {
    const started = await host.call({ id: 'bg3', name: 'run_code', args: { code: 'await tools.slow_step({ n: 9 });\nreturn 1;', background: true } }, { agent });
    const { jobId } = started.value as { jobId: string };
    await until(() => gates.length === 1);
    const killed = await host.call({ id: 'k3', name: 'job_kill', args: { jobId } }, { agent });
    expect(killed.value).toMatchObject({ killed: true, job: { status: 'killed' } });
    await until(() => events.some((e) => e.type === 'ptc/run-end' && e.callId === 'bg3'));
    expect(events.find((e) => e.type === 'ptc/run-end' && e.callId === 'bg3')).toMatchObject({ outcome: 'aborted' });
    gates.shift()!();
  });

  it('another agent cannot see or kill the background run', async () => {
    const started = await host.call({ id: 'bg4', name: 'run_code', args: { code: 'return 2;', background: true } }, { agent });
    const { jobId } = started.value as { jobId: string };
    const other = await host.call({ id: 'k4', name: 'job_kill', args: { jobId } }, { agent: { id: 'intruder' } });
    expect(other.error?.message).toContain(`Unknown job "${jobId}"`);
    await host.jobs.wait(agent, jobId);
  });

  it('without background: true the call waits for the program as before', async () => {
    const result = await host.call({ id: 'fg', name: 'run_code', args: { code: 'return 7;' } }, { agent });
    expect(result.value).toMatchObject({ result: 7 });
    expect(host.get('run_code')!.presentResult!({ code: 'return 7;' }, result.value)).toMatchObject({ card: 'code', outcome: 'ok', preview: '7' });
  });
});
