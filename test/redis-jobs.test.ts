/**
 * Background jobs shared through Redis (ptc-runtime/redis `stores.jobs`) on a redis-server of the
 * test's own: the job store contract with two hosts on two connections, two real OS processes
 * (a job started in a child process is read and killed from here; a child SIGKILLed leaves its job
 * failed after the lease, never running), the ring trimmed on the server, and Redis down.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStores } from '../redis/index.js';
import { createToolHost, JobStoreError, LEASE_LOST_ERROR } from '../tools/index.js';
import { eventually, jobStoreContract } from './job-store-contract.js';
import { redisServerMissing, startRedisServer, type RedisServer } from './support/redis-server.js';
import { transpileProject } from './support/transpile-project.js';

if (redisServerMissing !== undefined) console.warn(redisServerMissing);
const suite = redisServerMissing === undefined ? describe : describe.skip;

const alice = { id: 'alice' };
const mallory = { id: 'mallory' };
const newPrefix = () => `j${randomBytes(6).toString('hex')}:`;

suite('background jobs shared through Redis', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  // Two replicas: two connections, one prefix.
  jobStoreContract('redis', async () => {
    const prefix = newPrefix();
    const a = await createRedisStores({ url: server.url }, { prefix });
    const b = await createRedisStores({ url: server.url }, { prefix });
    return { a: a.jobs, b: b.jobs, close: async () => (await a.close(), await b.close()) };
  });

  it('takes the store alone as createToolHost({ jobs: stores.jobs })', async () => {
    const stores = await createRedisStores({ url: server.url }, { prefix: newPrefix() });
    const host = createToolHost({ jobs: stores.jobs });
    try {
      const { jobId } = await host.jobs.startAsync({ kind: 'x', label: 'x', owner: alice, run: () => 42 });
      await expect(host.jobs.wait(alice, jobId)).resolves.toMatchObject({ status: 'succeeded' });
      expect(await host.jobs.readAsync(alice, jobId)).toMatchObject({ value: 42 });
    } finally {
      host.close();
      await stores.close();
    }
  });

  it('trims the output ring on the server: the list never holds more than the ring size', async () => {
    const prefix = newPrefix();
    const stores = await createRedisStores({ url: server.url }, { prefix });
    const raw = new Redis(server.url);
    const host = createToolHost({ jobs: { store: stores.jobs, outputBytes: 101 } });
    const piece = (i: number) => `é${String(i).padStart(3, '0')}|`; // 6 bytes, a 2-byte character first
    try {
      const { jobId } = await host.jobs.startAsync({
        kind: 'log',
        label: 'noisy',
        owner: alice,
        run: async ({ append }) => {
          for (let i = 0; i < 50; i++) {
            append(piece(i));
            if (i % 7 === 0) await new Promise((r) => setTimeout(r, 2));
          }
        },
      });
      await host.jobs.wait(alice, jobId);
      const chunks = await raw.lrangeBuffer(`${prefix}jobout:${jobId}`, 0, -1);
      const all = Buffer.from(Array.from({ length: 50 }, (_, i) => piece(i)).join(''));
      expect(Buffer.concat(chunks)).toEqual(all.subarray(all.length - 101));
      const read = await host.jobs.readAsync(alice, jobId, { limit: 1000 });
      expect(read).toMatchObject({ outputBytes: 300, droppedBytes: 199 });
      // The ring's edge fell inside "é" of piece 33 (bytes 198-199): the page starts after it.
      expect(read.offset).toBe(200);
      expect(read.output).toBe(all.subarray(200).toString());
      // An ended job's record and output expire (a day by default); a running one has a TTL too.
      expect(await raw.pttl(`${prefix}job:${jobId}`)).toBeGreaterThan(0);
      expect(await raw.pttl(`${prefix}jobout:${jobId}`)).toBeGreaterThan(0);
    } finally {
      host.close();
      raw.disconnect();
      await stores.close();
    }
  });

  describe('two replica processes', () => {
    let root: string;
    const children = new Set<ChildProcess>();
    beforeAll(async () => {
      ({ root } = await transpileProject('redis-jobs'));
    }, 120_000);
    afterEach(() => {
      for (const child of children) child.kill('SIGKILL');
      children.clear();
    });

    /** A replica process that started one job; resolves with its first line. */
    const replica = (prefix: string, leaseMs: number) => {
      const child = spawn(process.execPath, ['--no-node-snapshot', resolve('test/fixtures/jobs-replica.mjs'), root], {
        env: { ...process.env, REDIS_URL: server.url, STORE_PREFIX: prefix, LEASE_MS: String(leaseMs) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      const lines: Record<string, unknown>[] = [];
      let out = '';
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        while (out.includes('\n')) {
          const at = out.indexOf('\n');
          lines.push(JSON.parse(out.slice(0, at)) as Record<string, unknown>);
          out = out.slice(at + 1);
        }
      });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      const line = (n: number) => eventually(() => lines[n] ?? (child.exitCode !== null ? Promise.reject(new Error(`replica exited: ${err}`)) : undefined), `line ${n} of the replica`);
      return { child, line, exited };
    };

    it('a job started in process A is listed, read and killed from this process; another agent sees nothing', async () => {
      const prefix = newPrefix();
      const a = replica(prefix, 15_000);
      const { jobId } = (await a.line(0)) as { jobId: string };
      const stores = await createRedisStores({ url: server.url }, { prefix });
      const b = createToolHost({ jobs: stores.jobs });
      try {
        expect(await b.jobs.listAsync(alice)).toMatchObject([{ jobId, kind: 'tail', status: 'running' }]);
        const read = await eventually(async () => {
          const r = await b.jobs.readAsync(alice, jobId);
          return r.output.includes('line 3\n') ? r : undefined;
        }, "A's output reaches B");
        expect(read.output.startsWith('line 1\nline 2\nline 3\n')).toBe(true);
        expect(await b.jobs.listAsync(mallory)).toEqual([]);
        await expect(b.jobs.readAsync(mallory, jobId)).rejects.toThrow(`Unknown job "${jobId}"`);
        await expect(b.jobs.killAsync(mallory, jobId)).rejects.toThrow(`Unknown job "${jobId}"`);

        const killed = await b.jobs.killAsync(alice, jobId, 'stopped from B');
        expect(killed).toMatchObject({ jobId, status: 'killed' });
        expect(await a.line(1)).toEqual({ aborted: 'stopped from B' });
        expect(await a.exited).toBe(0);
        const after = await b.jobs.readAsync(alice, jobId);
        expect(after).toMatchObject({ status: 'killed', error: 'stopped from B' });
        // Nothing was written after the kill.
        await new Promise((r) => setTimeout(r, 100));
        expect((await b.jobs.readAsync(alice, jobId)).outputBytes).toBe(after.outputBytes);
      } finally {
        b.close();
        await stores.close();
      }
    }, 60_000);

    it('a job whose replica process was SIGKILLed reads as failed after its lease, never running', async () => {
      const prefix = newPrefix();
      const a = replica(prefix, 600);
      const { jobId } = (await a.line(0)) as { jobId: string };
      const stores = await createRedisStores({ url: server.url }, { prefix });
      const b = createToolHost({ jobs: stores.jobs });
      try {
        // Alive past several leases: its renewals keep it running.
        await new Promise((r) => setTimeout(r, 1_300));
        expect((await b.jobs.readAsync(alice, jobId)).status).toBe('running');
        a.child.kill('SIGKILL');
        await a.exited;
        const failed = await eventually(async () => {
          const r = await b.jobs.readAsync(alice, jobId);
          return r.status === 'running' ? undefined : r;
        }, 'the lease runs out');
        expect(failed).toMatchObject({ status: 'failed', error: LEASE_LOST_ERROR });
        await expect(b.jobs.wait(alice, jobId)).resolves.toMatchObject({ status: 'failed' });
        expect(await b.jobs.listAsync(alice)).toMatchObject([{ jobId, status: 'failed' }]);
      } finally {
        b.close();
        await stores.close();
      }
    }, 60_000);
  });

  it('fails job calls with a named error while Redis is down, never showing the password', async () => {
    const own = await startRedisServer();
    const raw = new Redis(own.url);
    await raw.config('SET', 'requirepass', 's3cretpass');
    raw.disconnect();
    const url = own.url.replace('redis://', 'redis://:s3cretpass@');
    const stores = await createRedisStores({ url }, { prefix: newPrefix() });
    const host = createToolHost({ jobs: stores.jobs });
    try {
      const { jobId } = await host.jobs.startAsync({ kind: 'x', label: 'x', owner: alice, run: () => new Promise(() => {}) });
      await own.stop({ hard: true });
      for (const call of [() => host.jobs.readAsync(alice, jobId), () => host.jobs.listAsync(alice), () => host.jobs.killAsync(alice, jobId), () => host.jobs.startAsync({ kind: 'y', label: 'y', owner: alice, run: () => 1 })]) {
        const err = await call().catch((e: unknown) => e);
        expect(JobStoreError.isInstance(err)).toBe(true);
        expect((err as Error).message).toMatch(/^Job store failed to (read job|list jobs|kill job|record job).* \(Redis\): /);
        expect((err as Error).message).not.toContain('s3cretpass');
        expect(JSON.stringify(err)).not.toContain('s3cretpass');
      }
      // The job tools report it as a failed call naming the error.
      host.register((await import('../tools/index.js')).createJobTools());
      const listed = await host.call({ id: 'l', name: 'job_list', args: {} }, { agent: alice });
      expect(listed.isError).toBe(true);
      expect(listed.error?.message).toMatch(/Job store failed to list jobs \(Redis\)/);
      expect(JSON.stringify(listed)).not.toContain('s3cretpass');
    } finally {
      host.close();
      await stores.close();
      await own.dispose();
    }
  });
});
