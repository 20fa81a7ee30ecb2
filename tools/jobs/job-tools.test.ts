import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { recordingHost, deferred } from '../test-support.js';
import { backgroundHandleSchema, isBackgroundHandle } from './handle.js';
import { createJobTools } from './job-tools.js';

const alice = { id: 'alice' };
const bob = { id: 'bob' };

function setup() {
  const { host, events } = recordingHost();
  host.register(createJobTools());
  return { host, events };
}

describe('job tools', () => {
  it('pass the pipeline like any tool: the policy sees them and can deny them', async () => {
    const { host, events } = setup();
    host.hooks.guard((execution) => (execution.toolName === 'job_kill' ? 'killing jobs is not allowed here' : undefined));
    const result = await host.call({ id: 'c1', name: 'job_kill', args: { jobId: 'bash-1' } }, { agent: alice });
    expect(result.denied).toEqual({ by: 'guard', reason: 'killing jobs is not allowed here', index: 0 });
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/decision', 'tool/result']);
  });

  it('list, read and kill only the calling agent\'s jobs', async () => {
    const { host } = setup();
    const gate = deferred();
    const { jobId } = host.jobs.start({
      kind: 'bash',
      label: 'tail -f log',
      owner: alice,
      run: async ({ append, signal }) => {
        append('hello\n');
        await Promise.race([gate.promise, new Promise((r) => signal.addEventListener('abort', r))]);
      },
    });
    await Promise.resolve();

    const listed = await host.call({ id: 'l', name: 'job_list', args: {} }, { agent: alice });
    expect(listed.value).toMatchObject({ jobs: [{ jobId, status: 'running', label: 'tail -f log' }] });
    expect(listed.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining(`${jobId} [running] tail -f log`) });

    const bobList = await host.call({ id: 'l2', name: 'job_list', args: {} }, { agent: bob });
    expect(bobList.value).toEqual({ jobs: [] });

    const bobRead = await host.call({ id: 'r2', name: 'job_read', args: { jobId } }, { agent: bob });
    expect(bobRead.isError).toBe(true);
    expect(bobRead.error?.message).toBe(`"job_read" failed: Unknown job "${jobId}". Call job_list to see your jobs.`);

    const bobKill = await host.call({ id: 'k2', name: 'job_kill', args: { jobId } }, { agent: bob });
    expect(bobKill.error?.message).toMatch(new RegExp(`Unknown job "${jobId}"`));
    expect(host.jobs.list(alice)[0]!.status).toBe('running');

    const read = await host.call({ id: 'r', name: 'job_read', args: { jobId, limit: 3 } }, { agent: alice });
    expect(read.value).toMatchObject({ status: 'running', output: 'hel', offset: 0, nextOffset: 3 });
    expect(read.content[0]).toMatchObject({ text: expect.stringContaining('(more output: job_read with offset 3)') });

    const kill = await host.call({ id: 'k', name: 'job_kill', args: { jobId } }, { agent: alice });
    expect(kill.value).toMatchObject({ killed: true, job: { status: 'killed' } });
    const again = await host.call({ id: 'k3', name: 'job_kill', args: { jobId } }, { agent: alice });
    expect(again.value).toMatchObject({ killed: false, job: { status: 'killed' } });
  });

  it('read returns the final value once the job succeeded', async () => {
    const { host } = setup();
    const { jobId } = host.jobs.start({ kind: 'count', label: 'count', owner: alice, run: () => ({ lines: 42 }) });
    await host.jobs.wait(alice, jobId);
    const read = await host.call({ id: 'r', name: 'job_read', args: { jobId } }, { agent: alice });
    expect(read.value).toMatchObject({ status: 'succeeded', value: { lines: 42 } });
    expect(read.content[0]).toMatchObject({ text: expect.stringContaining('value: {"lines":42}') });
  });

  describe('when job_read is asked to wait', () => {
    it('returns as soon as the job ends, with its value', async () => {
      const { host } = setup();
      const gate = deferred();
      const { jobId } = host.jobs.start({ kind: 'w', label: 'w', owner: alice, run: async () => (await gate.promise, 'finished') });
      const reading = host.call({ id: 'r', name: 'job_read', args: { jobId, waitMs: 60_000 } }, { agent: alice });
      await Promise.resolve();
      gate.resolve();
      expect((await reading).value).toMatchObject({ status: 'succeeded', value: 'finished' });
    });

    it('returns the running job when the wait runs out, and refuses an unknown job at once', async () => {
      const { host } = setup();
      const { jobId } = host.jobs.start({ kind: 'w', label: 'w', owner: alice, run: () => new Promise(() => {}) });
      expect((await host.call({ id: 'r', name: 'job_read', args: { jobId, waitMs: 1 } }, { agent: alice })).value).toMatchObject({ status: 'running' });
      const foreign = await host.call({ id: 'r2', name: 'job_read', args: { jobId, waitMs: 60_000 } }, { agent: bob });
      expect(foreign.error?.message).toMatch(new RegExp(`Unknown job "${jobId}"`));
      host.close();
    });

    it('stops waiting when the call is cancelled', async () => {
      const { host } = setup();
      const { jobId } = host.jobs.start({ kind: 'w', label: 'w', owner: alice, run: () => new Promise(() => {}) });
      const controller = new AbortController();
      const reading = host.call({ id: 'r', name: 'job_read', args: { jobId, waitMs: 60_000 } }, { agent: alice, signal: controller.signal });
      controller.abort();
      expect((await reading).error?.kind).toBe('aborted');
      host.close();
    });

    it('refuses a wait longer than the cap', async () => {
      const { host } = setup();
      const r = await host.call({ id: 'r', name: 'job_read', args: { jobId: 'x', waitMs: 600_000 } }, { agent: alice });
      expect(r.error?.kind).toBe('invalid-args');
    });
  });

  it('validates their arguments like any tool', async () => {
    const { host } = setup();
    const bad = await host.call({ id: 'r', name: 'job_read', args: { jobId: 'x', limit: 10_000_000 } }, { agent: alice });
    expect(bad.error?.kind).toBe('invalid-args');
    expect(bad.error?.message).toMatch(/limit/);
  });

  it('declares job_list and job_read parallel-safe and job_kill exclusive', () => {
    const { host } = setup();
    expect(host.executionMode({ name: 'job_list', args: {} })).toEqual({ kind: 'parallel' });
    expect(host.executionMode({ name: 'job_read', args: { jobId: 'a' } })).toEqual({ kind: 'parallel' });
    expect(host.executionMode({ name: 'job_kill', args: { jobId: 'a' } })).toEqual({ kind: 'exclusive' });
  });

  it('give programs typed output schemas (zod), not untyped JSON', () => {
    const [list, read, kill] = createJobTools();
    for (const tool of [list, read, kill]) expect(tool.output.schema).toBeDefined();
    const json = z.toJSONSchema(read.output.schema!) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(json.properties)).toEqual(expect.arrayContaining(['status', 'output', 'nextOffset', 'droppedBytes', 'value', 'error']));
  });
});

describe('a tool returning the background handle', () => {
  it('hands programs the jobId as a field, validated by the handle schema', async () => {
    const { host } = recordingHost();
    const slow = defineTool({
      name: 'slow',
      description: 'Starts slow work.',
      output: { schema: backgroundHandleSchema },
      execute: (_args, exec) => exec.host.jobs.start({ kind: 'slow', label: 'slow work', owner: exec.agent, run: () => 'done' }),
    });
    host.register(slow);
    const result = await host.call({ id: 's', name: 'slow', args: {} }, { agent: alice });
    expect(result.value).toEqual({ kind: 'background', jobId: expect.stringMatching(/^job_[0-9a-f]{32}$/) });
    expect(isBackgroundHandle(result.value)).toBe(true);
    expect(isBackgroundHandle({ kind: 'background', jobId: 'x', extra: 1 })).toBe(false);
    await expect(host.jobs.wait(alice, (result.value as { jobId: string }).jobId)).resolves.toMatchObject({ status: 'succeeded' });
  });
});
