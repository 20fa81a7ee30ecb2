/** examples/background-job.ts: the bash-style tool in the foreground, in the background, and killed. */
import { describe, expect, it } from 'vitest';
import { createToolHost } from '../tools/index.js';
import { tools } from '../examples/background-job.js';

const agent = { id: 'example-agent' };
function setup() {
  const host = createToolHost();
  host.register(tools);
  return host;
}

describe('the background bash example', () => {
  it('in the foreground waits and returns exit code and output', async () => {
    const host = setup();
    const r = await host.call({ id: '1', name: 'bash', args: { command: 'echo hi; echo oops >&2; exit 3' } }, { agent });
    expect(r.value).toEqual({ exitCode: 3, stdout: 'hi\n', stderr: 'oops\n' });
    expect(host.get('bash')!.presentResult!({ command: 'echo hi; echo oops >&2; exit 3' }, r.value)).toMatchObject({ card: 'command', exitCode: 3, output: 'hi\noops\n' });
  });

  it('in the background returns the handle at once and streams output into the job', async () => {
    const host = setup();
    const r = await host.call({ id: '1', name: 'bash', args: { command: 'echo start; sleep 0.3; echo end', background: true } }, { agent });
    expect(r.value).toEqual({ kind: 'background', jobId: expect.stringMatching(/^job_[0-9a-f]{32}$/) });
    const { jobId } = r.value as { jobId: string };
    expect(host.jobs.list(agent)[0]!.status).toBe('running');
    await host.jobs.wait(agent, jobId);
    expect(host.jobs.read(agent, jobId)).toMatchObject({ status: 'succeeded', output: 'start\nend\n', value: { exitCode: 0 } });
  });

  it('job_kill stops the process and what it started: they exit, no more output, status killed', async () => {
    const host = setup();
    // The shell starts `sleep` in the background and reports its pid: the kill must reach it too.
    const started = await host.call({ id: '1', name: 'bash', args: { command: 'sleep 5 & echo $!; wait; echo never', background: true } }, { agent });
    const { jobId } = started.value as { jobId: string };
    for (let i = 0; i < 200 && host.jobs.read(agent, jobId).output === ''; i++) await new Promise((r) => setTimeout(r, 10));
    const pid = Number(host.jobs.read(agent, jobId).output.trim());
    expect(pid).toBeGreaterThan(0);
    const killed = await host.call({ id: '2', name: 'job_kill', args: { jobId } }, { agent });
    expect(killed.value).toMatchObject({ killed: true });
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 200 && alive(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(alive()).toBe(false);
    expect(host.jobs.read(agent, jobId)).toMatchObject({ status: 'killed', output: `${pid}\n` });
  });

  it('disposing the agent kills its jobs', async () => {
    const host = setup();
    await host.call({ id: '1', name: 'bash', args: { command: 'sleep 5', background: true } }, { agent });
    expect(host.jobs.disposeOwner(agent)).toBe(1);
    expect(host.jobs.list(agent)).toEqual([]);
  });
});
