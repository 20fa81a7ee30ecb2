/** splitSuspension: the token leaves the value only for a suspension; other results are untouched. */
import { describe, expect, it } from 'vitest';
import { splitSuspension } from './run-suspension.js';
import type { ToolResult } from './types.js';

const base = { callId: 'c1', toolName: 'run_code', content: [{ type: 'text' as const, text: 'The program is paused.' }], additionalContexts: [] };
const suspended = { runId: 'r1', pending: [{ approvalId: 'r1.2', toolName: 'pay', args: { n: 1 }, reason: 'money' }], expiresAt: 5, resumeToken: 'ptcr1.secret' };

describe('splitSuspension', () => {
  it('takes the token out of a suspension and gives it, with the call, to the app', () => {
    const { result, suspension } = splitSuspension({ ...base, isError: false, value: { suspended } } as ToolResult);
    expect(suspension).toEqual({ toolCallId: 'c1', toolName: 'run_code', ...suspended });
    expect(result.value).toEqual({ suspended: { runId: 'r1', pending: suspended.pending, expiresAt: 5 } });
    expect(JSON.stringify(result)).not.toContain('secret');
    expect(result.content).toBe(base.content);
  });

  it('leaves other results as they are, errors and look-alikes without a token included', () => {
    for (const r of [
      { ...base, isError: false, value: { result: 1 } },
      { ...base, isError: false, value: { suspended: { runId: 'r1', pending: [], expiresAt: 5 } } },
      { ...base, isError: true, value: { suspended } },
    ] as ToolResult[]) {
      const split = splitSuspension(r);
      expect(split.suspension).toBeUndefined();
      expect(split.result).toBe(r);
    }
  });
});
