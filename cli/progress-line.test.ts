import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ToolEvent } from '../tools/index.js';
import { progressReporter } from './progress-line.js';

const call = (callId: string): ToolEvent => ({ type: 'tool/call', callId, toolName: 't', args: {}, argsValid: true, origin: { kind: 'ptc', parentCallId: 'run-1', token: 'x' } }) as unknown as ToolEvent;
const decision = (callId: string, stage: 'policy' | 'approval', value: string): ToolEvent => ({ type: 'tool/decision', callId, stage, decision: value }) as unknown as ToolEvent;

describe('the progress line of ptc run', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('stops redrawing while a call waits for an answer at the terminal, and goes on after it', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (writes.push(String(chunk)), true));
    const progress = progressReporter(true);
    progress.onEvent(call('run-1/a.1'));
    vi.advanceTimersByTime(400);
    expect(writes.filter((w) => w.includes('call(s)'))).toHaveLength(2);
    progress.onEvent(decision('run-1/a.1', 'policy', 'ask'));
    writes.length = 0;
    vi.advanceTimersByTime(2_000);
    expect(writes.filter((w) => w.includes('call(s)'))).toEqual([]);
    progress.onEvent(decision('run-1/a.1', 'approval', 'allow'));
    vi.advanceTimersByTime(200);
    expect(writes.filter((w) => w.includes('call(s)'))).toHaveLength(1);
    progress.stop();
  });
});
