import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../tools/index.js';
import { createSpillStore, DEFAULT_SPILL_RETENTION } from './spill-store.js';

const clock = (start = 1_000) => {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
};

describe('the spill store', () => {
  it('keeps text whole with its owner, its size in UTF-8 bytes and when it expires', () => {
    const c = clock();
    const store = createSpillStore({ now: c.now, ttlMs: 5_000 });
    const handle = store.put('["日本"]', { owner: { id: 'a', name: 'Ada' } });
    expect(handle).toEqual({ id: expect.stringMatching(/^spill_[A-Za-z0-9_-]{16}$/), bytes: 10 });
    expect(store.get(handle.id)).toEqual({ text: '["日本"]', bytes: 10, owner: { id: 'a', name: 'Ada' }, createdAt: 1_000, expiresAt: 6_000 });
    expect(store.get(store.put('1').id)).not.toHaveProperty('owner');
  });

  describe('when time passes (injected clock)', () => {
    it('keeps a spill until ttlMs after it was made, then forgets it for every reader', () => {
      const c = clock();
      const store = createSpillStore({ now: c.now, ttlMs: 5_000 });
      const { id } = store.put('"x"', { owner: { id: 'a' } });
      c.advance(4_999);
      expect(store.read(id)).toBe('"x"');
      c.advance(1);
      expect(store.get(id)).toBeUndefined();
      expect(store.read(id)).toBeUndefined();
    });

    it('defaults to one hour', () => {
      expect(DEFAULT_SPILL_RETENTION.ttlMs).toBe(3_600_000);
      const c = clock();
      const store = createSpillStore({ now: c.now });
      const { id } = store.put('"x"');
      c.advance(3_599_999);
      expect(store.read(id)).toBe('"x"');
      c.advance(1);
      expect(store.read(id)).toBeUndefined();
    });
  });

  it('evicts the oldest first past maxEntries or maxTotalBytes', () => {
    const store = createSpillStore({ maxEntries: 2, maxTotalBytes: 10 });
    const a = store.put('aaaa');
    const b = store.put('bbbb');
    const c = store.put('cccc');
    expect([a, b, c].map((h) => store.read(h.id))).toEqual([undefined, 'bbbb', 'cccc']);
    const d = store.put('dddddddd');
    expect([b, c, d].map((h) => store.read(h.id))).toEqual([undefined, undefined, 'dddddddd']);
  });

  it('refuses options that are not whole positive numbers, naming the option', () => {
    expect(() => createSpillStore({ ttlMs: 0 })).toThrow(InvalidOptionError);
    expect(() => createSpillStore({ ttlMs: 0 })).toThrow(/ttlMs/);
    expect(() => createSpillStore({ maxEntries: 1.5 })).toThrow(/maxEntries/);
    expect(() => createSpillStore({ now: 5 as never })).toThrow(/now/);
  });
});
