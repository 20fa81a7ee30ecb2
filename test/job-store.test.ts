/**
 * Jobs shared through a job store, on the memory store: two hosts of one process as two replicas.
 * The same contract runs against Redis in test/redis-jobs.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createRunCodeTool } from '../runtime/index.js';
import { createJobTools, createMemoryJobStore, createToolHost, defineTool } from '../tools/index.js';
import { jobStoreContract } from './job-store-contract.js';

describe('shared jobs on the memory job store', () => {
  jobStoreContract('memory', async () => {
    const store = createMemoryJobStore();
    return { a: store, b: store, close: async () => {} };
  });

  it("a background run_code started on A is read to its value on B, and refused at A's limit", async () => {
    const store = createMemoryJobStore();
    const agent = { id: 'alice' };
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const replicas = [0, 1].map(() => {
      const host = createToolHost({ jobs: { store, maxRunningPerOwner: 1 } });
      host.register(defineTool({ name: 'gate', description: 'Waits for the test.', execute: async () => (await gate, 'open') }));
      const runCode = createRunCodeTool({ isolation: 'isolate', typecheck: 'off', background: true, host });
      host.register([runCode, ...createJobTools()]);
      return { host, runCode };
    });
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    try {
      const started = await a.host.call({ id: 'bg', name: 'run_code', args: { code: 'await tools.gate({});\nreturn 6 * 7;', background: true } }, { agent });
      expect(started.value).toEqual({ kind: 'background', jobId: expect.stringMatching(/^job_[0-9a-f]{32}$/) });
      const { jobId } = started.value as { jobId: string };
      // Alice already has one running job (on A): B refuses her second with the limit named.
      const second = await b.host.call({ id: 'bg2', name: 'run_code', args: { code: 'return 1;', background: true } }, { agent });
      expect(second.error?.message).toMatch(/maxRunningPerOwner is 1/);
      open();
      const read = await b.host.call({ id: 'r', name: 'job_read', args: { jobId, waitMs: 30_000 } }, { agent });
      expect(read.value).toMatchObject({ status: 'succeeded', value: { result: 42 } });
    } finally {
      for (const r of replicas) {
        r.host.close();
        await r.runCode.close();
      }
    }
  }, 60_000);
});
