import { describe, expect, it } from 'vitest';
import { newRunId } from './run-id.js';

describe('a durable run id', () => {
  it('is 22 base64url characters and never starts with "-" (a CLI would read it as an option)', () => {
    const ids = new Set<string>();
    // With a leading "-" in 1 id of 64, 5,000 draws would hold ~78 of them.
    for (let i = 0; i < 5_000; i++) {
      const id = newRunId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(5_000);
  });
});
