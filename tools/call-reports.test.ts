import { describe, expect, it } from 'vitest';
import { createToolHost } from './host.js';
import { defineTool } from './define-tool.js';
import { MAX_LOG_EVENTS } from './call-reports.js';
import type { ToolEvent } from './events.js';
import { readEvent } from './replay/read-event.js';
import type { ToolExecContext } from './tool-types.js';

function hostWith(execute: (exec: ToolExecContext) => unknown) {
  const events: ToolEvent[] = [];
  const host = createToolHost({ onEvent: (e) => events.push(e) });
  host.register(defineTool({ name: 'work', description: 'Works.', execute: (_args, exec) => execute(exec) }));
  const call = () => host.call({ id: 'c1', name: 'work', args: {} });
  return { events, call };
}
const of = <T extends ToolEvent['type']>(events: ToolEvent[], type: T) => events.filter((e): e is Extract<ToolEvent, { type: T }> => e.type === type);

describe('exec.progress and exec.log', () => {
  it('emit tool/progress and tool/log events between the call and its result, readable back from a log', async () => {
    const { events, call } = hostWith((exec) => {
      exec.progress({ progress: 1, total: 2, message: 'half' });
      exec.log({ level: 'info', message: 'working' });
      return 'ok';
    });
    const r = await call();
    expect(r.isError).toBe(false);
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/decision', 'tool/progress', 'tool/log', 'tool/result']);
    expect(of(events, 'tool/progress')[0]).toMatchObject({ callId: 'c1', toolName: 'work', progress: 1, total: 2, message: 'half' });
    expect(of(events, 'tool/log')[0]).toMatchObject({ callId: 'c1', toolName: 'work', level: 'info', message: 'working' });
    for (const e of events.filter((x) => x.type === 'tool/progress' || x.type === 'tool/log')) {
      expect(readEvent(JSON.parse(JSON.stringify(e)) as Record<string, unknown>)).toEqual({ ok: true, event: e });
    }
    expect(readEvent({ seq: 1, time: 1, type: 'tool/log', callId: 'c', toolName: 't', level: 'loud', message: 'x' })).toMatchObject({ ok: false, problem: expect.stringMatching(/level is unknown/) });
  });

  it('coalesces a burst of progress reports: the first goes out at once, the newest when the call ends, the rest are dropped', async () => {
    const { events, call } = hostWith((exec) => {
      for (let i = 1; i <= 100; i++) exec.progress({ progress: i });
      return 'ok';
    });
    await call();
    const sent = of(events, 'tool/progress').map((e) => e.progress);
    expect(sent[0]).toBe(1);
    expect(sent[sent.length - 1]).toBe(100);
    expect(sent.length).toBeLessThan(100);
    // Nothing after the result.
    expect(events[events.length - 1]!.type).toBe('tool/result');
  });

  it(`keeps at most ${MAX_LOG_EVENTS} log lines of a call, then says the rest were dropped`, async () => {
    const { events, call } = hostWith((exec) => {
      for (let i = 0; i < MAX_LOG_EVENTS + 50; i++) exec.log({ level: 'debug', message: `line ${i}` });
      return 'ok';
    });
    await call();
    const logs = of(events, 'tool/log');
    expect(logs).toHaveLength(MAX_LOG_EVENTS + 1);
    expect(logs[MAX_LOG_EVENTS]).toMatchObject({ level: 'warning', message: expect.stringMatching(/more log lines of this call were dropped/) });
  });

  it.each([
    [(exec: ToolExecContext) => exec.progress({ progress: Number.NaN }), /exec\.progress of "work": progress must be a finite number/],
    [(exec: ToolExecContext) => exec.progress({ progress: 1, total: '2' as unknown as number }), /total must be a finite number/],
    [(exec: ToolExecContext) => (exec.progress({ progress: 2 }), exec.progress({ progress: 2 })), /progress must increase \(2 after 2\)/],
    [(exec: ToolExecContext) => exec.log({ level: 'loud' as 'info', message: 'x' }), /exec\.log of "work": level must be one of debug, info/],
    [(exec: ToolExecContext) => exec.log({ level: 'info', message: 42 as unknown as string }), /message must be a string/],
  ])('refuses a bad report with an error naming the tool and the field (%#)', async (bad, message) => {
    const { call } = hostWith((exec) => {
      bad(exec);
      return 'ok';
    });
    const r = await call();
    expect(r.isError).toBe(true);
    expect(r.error?.message).toMatch(message);
  });
});
