import { describe, expect, it } from 'vitest';
import { TypecheckThread } from './typecheck-thread.js';

const noTools = { declarations: '', toolNames: new Map<string, string>() };

describe('TypecheckThread', () => {
  it('checks on its thread, keeping the diagnostics positioned in the program', async () => {
    const thread = new TypecheckThread(512);
    const outcome = await thread.check('const n: number = "x";\nreturn n;', noTools, 10_000);
    expect(outcome.ok && outcome.result.diagnostics.map((d) => [d.line, d.column])).toEqual([[1, 7]]);
  });

  it('fails the waiting checks with the reason when TypeScript itself does not fit the heap limit, instead of restarting forever', async () => {
    const thread = new TypecheckThread(16);
    const outcomes = await Promise.all([thread.check('return 1;', noTools, 10_000), thread.check('return 2;', noTools, 10_000)]);
    for (const outcome of outcomes) {
      expect(outcome.ok).toBe(false);
      expect(!outcome.ok && outcome.reason).toMatch(/^could not start: the type checker (needed more than 16 MB of memory|failed|stopped)/);
    }
  });
});
