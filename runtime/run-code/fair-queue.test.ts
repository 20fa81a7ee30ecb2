import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue.js';

/** Serves the queue to the end, finishing each item before the next: the order of service. */
function serveAll(queue: FairQueue<string>): string[] {
  const order: string[] = [];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    order.push(next.item);
    queue.done(next.group);
  }
  return order;
}

describe('FairQueue', () => {
  it('serves groups round-robin, each group in its own order', () => {
    const q = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3']) q.push('a', item);
    for (const item of ['b1', 'b2']) q.push('b', item);
    q.push('c', 'c1');
    expect(serveAll(q)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('puts a group whose item is being served behind every other group', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a0');
    const running = q.shift()!;
    for (const item of ['a1', 'a2', 'a3', 'a4']) q.push('a', item);
    q.push('b', 'b1');
    q.done(running.group);
    expect(serveAll(q)).toEqual(['b1', 'a1', 'a2', 'a3', 'a4']);
  });

  it('refuses an item over its group\'s cap of queued items, the served one not counted', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a0', 2);
    q.shift();
    expect(q.push('a', 'a1', 2)).toBe(true);
    expect(q.push('a', 'a2', 2)).toBe(true);
    expect(q.push('a', 'a3', 2)).toBe(false);
    expect(q.push('b', 'b1', 2)).toBe(true);
    expect(q.queued('a')).toBe(2);
  });

  it('removes a queued item, and takes the items a test accepts', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a1');
    q.push('a', 'x2');
    q.push('b', 'x3');
    expect(q.remove('a1')).toBe(true);
    expect(q.remove('a1')).toBe(false);
    expect(q.take((item) => item.startsWith('x')).sort()).toEqual(['x2', 'x3']);
    expect(q.empty).toBe(true);
  });
});
