import { describe, expect, it } from 'vitest';
import { DisposalQueue } from './disposal-queue.js';
import { loadIsolatedVm } from './prepared-isolate.js';

describe('DisposalQueue', () => {
  it('disposes later, in one batch', () => {
    const ivm = loadIsolatedVm();
    const scheduled: (() => void)[] = [];
    const queue = new DisposalQueue((work) => scheduled.push(work));
    const isolates = [new ivm.Isolate({ memoryLimit: 8 }), new ivm.Isolate({ memoryLimit: 8 })];
    for (const isolate of isolates) queue.add(isolate);
    expect(isolates.map((i) => i.isDisposed)).toEqual([false, false]);
    expect(scheduled).toHaveLength(1);
    scheduled[0]!();
    expect(isolates.map((i) => i.isDisposed)).toEqual([true, true]);
    expect(queue.size).toBe(0);
  });

  it('keeps at most two waiting when "later" never comes (a caller that never yields)', () => {
    const ivm = loadIsolatedVm();
    const queue = new DisposalQueue(() => undefined);
    const isolates = Array.from({ length: 6 }, () => new ivm.Isolate({ memoryLimit: 8 }));
    for (const isolate of isolates) queue.add(isolate);
    expect(isolates.map((i) => i.isDisposed)).toEqual([true, true, true, true, false, false]);
    queue.flush();
    expect(isolates.every((i) => i.isDisposed)).toBe(true);
  });
});
