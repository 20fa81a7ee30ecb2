/**
 * The behavioural contract every RunStore backend passes (memory, file, Redis): claims with
 * leases and fences, fenced atomic appends, terminal states, listing and expiry. A backend
 * registers it with `runStoreContract('name', factory)`; the factory gives a fresh, empty store.
 */
import { describe, expect, it } from 'vitest';
import { RunStoreConflictError, RunStoreFencedError, type RunMeta, type RunStore } from '../runtime/index.js';

/** A fresh, empty store, and how to drop it afterwards. */
export type RunStoreFactory = () => Promise<{ readonly store: RunStore; readonly dispose?: () => Promise<void> }>;

const T0 = 1_800_000_000_000;

export function metaOf(runId: string, overrides: Partial<RunMeta> = {}): RunMeta {
  return { runId, agentId: 'alice', parentCallId: 'call_1', createdAt: T0, expiresAt: T0 + 3_600_000, pending: [], fingerprints: { program: 'a'.repeat(64) }, ...overrides };
}

export function runStoreContract(name: string, factory: RunStoreFactory): void {
  describe(`RunStore contract: ${name}`, () => {
    const withStore = (test: (store: RunStore) => Promise<void>) => async () => {
      const { store, dispose } = await factory();
      try {
        await test(store);
      } finally {
        await store.close?.();
        await dispose?.();
      }
    };

    it('creates a run active and claimed, with its first entries in order', withStore(async (store) => {
      const claim = await store.create({ meta: metaOf('r1'), entries: ['a', 'b'], leaseMs: 1000, now: T0 });
      await store.append(claim, ['c']);
      const run = await store.load('r1');
      expect(run).toMatchObject({ status: 'active', fence: claim.fence, leaseUntil: T0 + 1000, entries: ['a', 'b', 'c'] });
      expect(run!.meta).toEqual(metaOf('r1'));
    }));

    it('refuses a second run with the same id', withStore(async (store) => {
      await store.create({ meta: metaOf('r1'), entries: [], leaseMs: 1000, now: T0 });
      await expect(store.create({ meta: metaOf('r1'), entries: ['x'], leaseMs: 1000, now: T0 })).rejects.toSatisfy((e) => RunStoreConflictError.isInstance(e));
      expect((await store.load('r1'))!.entries).toEqual([]);
    }));

    it('keeps entries with any text, byte for byte', withStore(async (store) => {
      const odd = ['line\nbreak', '{"json":true}', 'ünïcødé \u2028 \ud83d\ude00', '', 'x'.repeat(100_000)];
      const claim = await store.create({ meta: metaOf('r1'), entries: odd.slice(0, 2), leaseMs: 1000, now: T0 });
      await store.append(claim, odd.slice(2));
      expect((await store.load('r1'))!.entries).toEqual(odd);
    }));

    it('answers undefined for an unknown run, to load and to claim', withStore(async (store) => {
      expect(await store.load('nope')).toBeUndefined();
      expect(await store.claim('nope', { leaseMs: 1000, now: T0 })).toBeUndefined();
    }));

    it('releases a run as suspended with new meta, keeping the fence, so the releaser may still append', withStore(async (store) => {
      const claim = await store.create({ meta: metaOf('r1'), entries: ['a'], leaseMs: 1000, now: T0 });
      const pending = [{ approvalId: 'ap1', toolName: 'charge', argsJson: '{"amount":5}', reason: 'money' }];
      await store.settle(claim, { status: 'suspended', meta: { pending, expiresAt: T0 + 5000 } });
      const run = await store.load('r1');
      expect(run).toMatchObject({ status: 'suspended', fence: claim.fence, leaseUntil: undefined });
      expect(run!.meta.pending).toEqual(pending);
      expect(run!.meta.expiresAt).toBe(T0 + 5000);
      await store.append(claim, ['late settlement']);
      expect((await store.load('r1'))!.entries).toEqual(['a', 'late settlement']);
    }));

    it('a claim raises the fence: the old holder can no longer append or settle', withStore(async (store) => {
      const first = await store.create({ meta: metaOf('r1'), entries: [], leaseMs: 1000, now: T0 });
      await store.settle(first, { status: 'suspended' });
      const second = await store.claim('r1', { leaseMs: 1000, now: T0 + 10 });
      expect(second).toBeDefined();
      expect(second!.fence).toBeGreaterThan(first.fence);
      await expect(store.append(first, ['stale'])).rejects.toSatisfy((e) => RunStoreFencedError.isInstance(e));
      await expect(store.settle(first, { status: 'completed' })).rejects.toSatisfy((e) => RunStoreFencedError.isInstance(e));
      await store.append(second!, ['fresh']);
      expect(await store.load('r1')).toMatchObject({ status: 'active', fence: second!.fence, entries: ['fresh'] });
    }));

    it('refuses to claim a run whose lease still holds, and takes it once the lease has ended', withStore(async (store) => {
      await store.create({ meta: metaOf('r1'), entries: [], leaseMs: 1000, now: T0 });
      expect(await store.claim('r1', { leaseMs: 1000, now: T0 + 999 })).toBeUndefined();
      const taken = await store.claim('r1', { leaseMs: 1000, now: T0 + 1001 });
      expect(taken).toBeDefined();
    }));

    it('renews a lease only for the current claim', withStore(async (store) => {
      const claim = await store.create({ meta: metaOf('r1'), entries: [], leaseMs: 1000, now: T0 });
      expect(await store.renew(claim, { leaseMs: 1000, now: T0 + 900 })).toBe(true);
      expect(await store.claim('r1', { leaseMs: 1000, now: T0 + 1500 })).toBeUndefined();
      expect((await store.load('r1'))!.leaseUntil).toBe(T0 + 1900);
      expect(await store.renew({ runId: 'r1', fence: claim.fence + 5 }, { leaseMs: 1000, now: T0 + 1000 })).toBe(false);
      expect(await store.renew({ runId: 'nope', fence: 1 }, { leaseMs: 1000, now: T0 })).toBe(false);
    }));

    it('lets exactly one of many concurrent claims win', withStore(async (store) => {
      const first = await store.create({ meta: metaOf('r1'), entries: [], leaseMs: 1000, now: T0 });
      await store.settle(first, { status: 'suspended' });
      const claims = await Promise.all(Array.from({ length: 10 }, () => store.claim('r1', { leaseMs: 1000, now: T0 + 1 })));
      expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
    }));

    it('ends a run for good: no claim, append or settle after completed, failed or expired', withStore(async (store) => {
      for (const status of ['completed', 'failed'] as const) {
        const claim = await store.create({ meta: metaOf(status), entries: [], leaseMs: 1000, now: T0 });
        await store.settle(claim, { status });
        expect(await store.claim(status, { leaseMs: 1000, now: T0 + 10_000 })).toBeUndefined();
        await expect(store.append(claim, ['x'])).rejects.toSatisfy((e) => RunStoreFencedError.isInstance(e));
        await expect(store.settle(claim, { status: 'suspended' })).rejects.toSatisfy((e) => RunStoreFencedError.isInstance(e));
        expect((await store.load(status))!.status).toBe(status);
      }
    }));

    it('sweeps runs past their expiry that nobody holds, and leaves held or unexpired ones', withStore(async (store) => {
      const a = await store.create({ meta: metaOf('old-suspended', { expiresAt: T0 + 100 }), entries: [], leaseMs: 1000, now: T0 });
      await store.settle(a, { status: 'suspended' });
      await store.create({ meta: metaOf('old-held', { expiresAt: T0 + 100 }), entries: [], leaseMs: 10_000, now: T0 });
      await store.create({ meta: metaOf('old-lapsed', { expiresAt: T0 + 100 }), entries: [], leaseMs: 50, now: T0 });
      const d = await store.create({ meta: metaOf('young', { expiresAt: T0 + 100_000 }), entries: [], leaseMs: 1000, now: T0 });
      await store.settle(d, { status: 'suspended' });
      const swept = await store.sweep({ now: T0 + 1000 });
      expect(swept.sort()).toEqual(['old-lapsed', 'old-suspended']);
      expect((await store.load('old-suspended'))!.status).toBe('expired');
      expect((await store.load('old-held'))!.status).toBe('active');
      expect((await store.load('young'))!.status).toBe('suspended');
      expect(await store.claim('old-suspended', { leaseMs: 1000, now: T0 + 2000 })).toBeUndefined();
      expect(await store.sweep({ now: T0 + 1000 })).toEqual([]);
    }));

    it('lists runs created in one millisecond by id, the same in every store', withStore(async (store) => {
      for (const runId of ['run-b', 'run-a', 'run-C', 'run-c']) await store.create({ meta: metaOf(runId, { createdAt: T0 }), entries: [], leaseMs: 1000, now: T0 });
      expect((await store.list()).map((r) => r.meta.runId)).toEqual(['run-C', 'run-a', 'run-b', 'run-c']);
    }));

    it('lists runs oldest first, by status, up to a limit', withStore(async (store) => {
      for (let i = 0; i < 5; i++) {
        const claim = await store.create({ meta: metaOf(`r${i}`, { createdAt: T0 + i }), entries: [], leaseMs: 1000, now: T0 });
        if (i % 2 === 0) await store.settle(claim, { status: 'suspended' });
      }
      expect((await store.list()).map((r) => r.meta.runId)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
      expect((await store.list({ status: 'suspended' })).map((r) => r.meta.runId)).toEqual(['r0', 'r2', 'r4']);
      expect((await store.list({ status: 'active', limit: 1 })).map((r) => r.meta.runId)).toEqual(['r1']);
    }));
  });
}
