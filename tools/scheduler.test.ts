import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { CallScheduler } from './scheduler.js';

describe('when a task waits in the queue', () => {
  it('runs in the async context it was submitted from, not in that of the task whose end let it start', async () => {
    const store = new AsyncLocalStorage<string>();
    const scheduler = new CallScheduler(4);
    const seen: string[] = [];
    const task = (ms: number) => async () => {
      seen.push(`start ${store.getStore()}`);
      await new Promise((r) => setTimeout(r, ms));
      seen.push(`end ${store.getStore()}`);
    };
    // Each submitted from its own context (the way a framework runs each tool call in its own span).
    const first = store.run('a', () => scheduler.submit({ kind: 'parallel' }, task(10)));
    const barrier = store.run('b', () => scheduler.submit({ kind: 'exclusive' }, task(1)));
    const last = store.run('c', () => scheduler.submit({ kind: 'parallel' }, task(0)));
    await Promise.all([first, barrier, last]);
    expect(seen).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });
});

describe('when a task ends', () => {
  it("lets its caller resume before the task it held back starts", async () => {
    const scheduler = new CallScheduler(1);
    const order: string[] = [];
    const first = scheduler.submit({ kind: 'exclusive' }, async () => 'a').then((v) => void order.push(`resumed ${v}`));
    const second = scheduler.submit({ kind: 'exclusive' }, async () => void order.push('started b'));
    await Promise.all([first, second]);
    expect(order).toEqual(['resumed a', 'started b']);
  });
});
