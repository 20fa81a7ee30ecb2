import { describe, expect, it } from 'vitest';
import { MAX_POLL_US, ReplyWait } from './reply-wait.js';

describe('ReplyWait (how long the sandbox worker polls for a reply)', () => {
  it('never polls with a single core: it would only delay the host it waits for', () => {
    const wait = new ReplyWait(1);
    expect(wait.budget()).toBe(0);
    wait.hit(10);
    expect(wait.budget()).toBe(0);
  });

  it('starts at the full budget and then polls about twice as long as the last reply took', () => {
    const wait = new ReplyWait(2);
    expect(wait.budget()).toBe(MAX_POLL_US);
    wait.hit(50);
    expect(wait.budget()).toBe(100);
    wait.hit(5);
    expect(wait.budget()).toBeGreaterThanOrEqual(20); // a floor, so one fast reply does not starve the next
    wait.hit(1_000);
    expect(wait.budget()).toBe(MAX_POLL_US);
  });

  it('backs off after a run of misses, probing now and then, and recovers on a hit', () => {
    const wait = new ReplyWait(2);
    for (let i = 0; i < 8; i++) {
      expect(wait.budget()).toBe(MAX_POLL_US);
      wait.miss();
    }
    const budgets = Array.from({ length: 32 }, () => wait.budget());
    expect(budgets.filter((b) => b > 0)).toHaveLength(2);
    wait.hit(60);
    expect(wait.budget()).toBe(120);
  });
});
