import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileRunStore, createMemoryRunStore, RunStoreError } from '../runtime/index.js';
import { metaOf, runStoreContract } from './run-store-contract.js';

runStoreContract('memory', async () => ({ store: createMemoryRunStore() }));

runStoreContract('file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ptc-runs-'));
  return { store: createFileRunStore({ dir, fsync: false }), dispose: () => rm(dir, { recursive: true, force: true }) };
});

describe('the file run store', () => {
  const T0 = 1_800_000_000_000;
  const temp = () => mkdtemp(join(tmpdir(), 'ptc-runs-'));

  it('keeps runs across store instances (a restart of the host)', async () => {
    const dir = await temp();
    try {
      const first = createFileRunStore({ dir });
      const claim = await first.create({ meta: metaOf('r1'), entries: ['a'], leaseMs: 1000, now: T0 });
      await first.append(claim, ['b']);
      await first.settle(claim, { status: 'suspended' });
      const second = createFileRunStore({ dir });
      expect(await second.load('r1')).toMatchObject({ status: 'suspended', entries: ['a', 'b'] });
      expect(await second.claim('r1', { leaseMs: 1000, now: T0 })).toEqual({ runId: 'r1', fence: 2 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('writes its files readable by the owner only', async () => {
    const dir = await temp();
    try {
      const store = createFileRunStore({ dir: join(dir, 'runs') });
      await store.create({ meta: metaOf('r1'), entries: ['secret result'], leaseMs: 1000, now: T0 });
      expect((await stat(join(dir, 'runs'))).mode & 0o777).toBe(0o700);
      for (const name of await readdir(join(dir, 'runs', 'r1'))) {
        expect((await stat(join(dir, 'runs', 'r1', name))).mode & 0o077).toBe(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('drops a partial last line a crash left, and appends after it cleanly', async () => {
    const dir = await temp();
    try {
      const store = createFileRunStore({ dir });
      const claim = await store.create({ meta: metaOf('r1'), entries: ['a'], leaseMs: 1000, now: T0 });
      const journal = join(dir, 'r1', 'journal.jsonl');
      await writeFile(journal, `${await readFile(journal, 'utf8')}"half a li`);
      expect((await store.load('r1'))!.entries).toEqual(['a']);
      await store.append(claim, ['b']);
      expect((await store.load('r1'))!.entries).toEqual(['a', 'b']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('treats an id that is not a file name as unknown, and refuses to create one', async () => {
    const dir = await temp();
    try {
      const store = createFileRunStore({ dir });
      expect(await store.load('../etc')).toBeUndefined();
      expect(await store.claim('a/b', { leaseMs: 1, now: T0 })).toBeUndefined();
      await expect(store.create({ meta: metaOf('../x'), entries: [], leaseMs: 1, now: T0 })).rejects.toSatisfy((e) => RunStoreError.isInstance(e));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('breaks a lock left by a dead process once it is stale, and waits for a live one', async () => {
    const dir = await temp();
    try {
      const store = createFileRunStore({ dir, staleLockMs: 200, lockWaitMs: 100 });
      const claim = await store.create({ meta: metaOf('r1'), entries: [], leaseMs: 1000, now: T0 });
      await writeFile(join(dir, 'r1', 'lock'), '');
      await expect(store.append(claim, ['x'])).rejects.toSatisfy((e) => RunStoreError.isInstance(e) && /lock/.test((e as Error).message));
      await new Promise((resolve) => setTimeout(resolve, 250));
      await store.append(claim, ['y']);
      expect((await store.load('r1'))!.entries).toEqual(['y']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('breaks at once a lock whose owner is a process of this machine that has exited', async () => {
    const dir = await temp();
    try {
      // Long stale and wait bounds: only the owner check can break the lock in time.
      const store = createFileRunStore({ dir, staleLockMs: 600_000, lockWaitMs: 600_000 });
      const claim = await store.create({ meta: metaOf('r1'), entries: [], leaseMs: 1000, now: T0 });
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      await writeFile(join(dir, 'r1', 'lock'), `${hostname()} ${dead.stdout}`);
      await store.append(claim, ['x']);
      expect((await store.load('r1'))!.entries).toEqual(['x']);
      // A live owner (this test's parent process) is waited for, not broken.
      const waiting = createFileRunStore({ dir, staleLockMs: 600_000, lockWaitMs: 100 });
      await writeFile(join(dir, 'r1', 'lock'), `${hostname()} ${process.ppid}`);
      await expect(waiting.append(claim, ['y'])).rejects.toSatisfy((e) => RunStoreError.isInstance(e) && /held for over 100 ms/.test((e as Error).message));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
