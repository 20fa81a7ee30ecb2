import { describe, expect, it } from 'vitest';
import { LateCallLog, MAX_RECORDED_LATE_CALLS } from './late-calls.js';

function recorder() {
  const refused: string[] = [];
  const summaries: { count: number; reason: string }[] = [];
  const log = new LateCallLog({ refused: (name, reason) => refused.push(`${String(name)}: ${reason}`), summary: (count, reason) => summaries.push({ count, reason }) });
  return { log, refused, summaries };
}

describe('when a run has late calls', () => {
  it(`records the first ${MAX_RECORDED_LATE_CALLS} one by one and sums up the rest in one summary as the run closes`, () => {
    const { log, refused, summaries } = recorder();
    for (let i = 0; i < MAX_RECORDED_LATE_CALLS + 40; i++) log.add(`t${i}`, 'ended');
    log.add('', 'ended', 1_000);
    expect(refused).toHaveLength(MAX_RECORDED_LATE_CALLS);
    expect(refused[0]).toBe('t0: ended');
    expect(summaries).toEqual([]);
    log.close();
    expect(summaries).toEqual([{ count: 1_040, reason: `1040 more late calls were refused (a run records at most ${MAX_RECORDED_LATE_CALLS} one by one)` }]);
  });

  it('records no summary when the run stayed under the cap', () => {
    const { log, refused, summaries } = recorder();
    log.add('echo', 'ended');
    log.close();
    expect(refused).toEqual(['echo: ended']);
    expect(summaries).toEqual([]);
  });

  it('counts a reported count of unnamed calls, whatever the cap, and reads a count that is no positive integer as 1', () => {
    const { log, refused, summaries } = recorder();
    log.add('', 'ended', 3);
    for (const bad of [0, -2, 1.5, Number.NaN, '7', null]) log.add('x', 'ended', bad);
    log.close();
    expect(refused).toHaveLength(6);
    expect(summaries.map((s) => s.count)).toEqual([3]);
  });

  it('sums up a burst that arrives after the run closed in one more summary, on the next microtask', async () => {
    const { log, summaries } = recorder();
    for (let i = 0; i < MAX_RECORDED_LATE_CALLS; i++) log.add('t', 'ended');
    log.close();
    for (let i = 0; i < 50; i++) log.add('t', 'ended');
    expect(summaries).toEqual([]);
    await Promise.resolve();
    expect(summaries.map((s) => s.count)).toEqual([50]);
  });
});
