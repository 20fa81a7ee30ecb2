/**
 * How a program tells a denial from a failure: every denial path gives a `ToolCallError` whose
 * message starts with the prefix run_code's description names, and no other failure does. The
 * prefix is read from the description the model gets, so the test checks what the model is told.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { decision } from '../tools/index.js';
import type { RunCodeTool } from '../runtime/index.js';
import { runCodeHost, runnerModes } from './run-code-support.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

/** The prefix as the description states it. */
function statedPrefix(description: string): string {
  const match = /message starts with "([^"]+)"/.exec(description);
  if (!match) throw new Error(`run_code's description names no denial prefix:\n${description}`);
  return match[1]!;
}

const CATCH = (call: string) => `try { await ${call}; return { ok: true }; } catch (e) { return { isToolCallError: e instanceof ToolCallError, message: e.message }; }`;
type Caught = { isToolCallError: boolean; message: string };

describe.each(runnerModes())('denials in a program (%s)', (mode) => {
  type Options = Parameters<typeof runCodeHost>[1];
  const caught = async (options: Options, policy: (s: ReturnType<typeof runCodeHost>) => void, call = 'tools.echo({ text: "hi" })'): Promise<{ caught: Caught; prefix: string }> => {
    const s = runCodeHost(mode, options);
    opened.push(s.runCode);
    policy(s);
    const v = await s.value(CATCH(call));
    return { caught: v.result as unknown as Caught, prefix: statedPrefix(s.runCode.description) };
  };

  const denials: [string, Options, (s: ReturnType<typeof runCodeHost>) => void][] = [
    ['a guard', {}, (s) => void s.host.hooks.guard((e) => (e.toolName === 'echo' ? 'echo is off limits' : undefined))],
    ['a policy listener', {}, (s) => void s.host.hooks.preExecute((e) => (e.toolName === 'echo' ? decision.deny('no echoes today') : undefined))],
    ['the approver', { approval: { request: async () => 'deny' } }, (s) => void s.host.hooks.preExecute((e) => (e.toolName === 'echo' ? decision.ask('a person decides') : undefined))],
    ['no approval channel (unavailable)', {}, (s) => void s.host.hooks.preExecute((e) => (e.toolName === 'echo' ? decision.ask('a person decides') : undefined))],
    ['an approval that timed out', { approval: { request: () => new Promise(() => {}) }, approvalTimeoutMs: 50 }, (s) => void s.host.hooks.preExecute((e) => (e.toolName === 'echo' ? decision.ask('a person decides') : undefined))],
    ['an approval channel that failed', { approval: { request: async () => { throw new Error('pager down'); } } }, (s) => void s.host.hooks.preExecute((e) => (e.toolName === 'echo' ? decision.ask('a person decides') : undefined))],
    ['a post-execute block', {}, (s) => void s.host.hooks.postExecute((e) => (e.toolName === 'echo' ? { type: 'block', reason: 'echoes are classified' } : undefined))],
    ['a post-execute listener that throws (blocks, fail closed)', {}, (s) => void s.host.hooks.postExecute((e) => { if (e.toolName === 'echo') throw new Error('listener bug'); })],
  ];

  it.each(denials)('a denial by %s starts with the prefix the description names', async (_label, options, policy) => {
    const { caught: c, prefix } = await caught(options, policy);
    expect(prefix.length).toBeGreaterThan(3);
    expect(c.isToolCallError).toBe(true);
    expect(c.message.startsWith(prefix)).toBe(true);
    expect(c.message).toMatch(/final/);
  });

  const none = () => {};
  const failures: [string, Options, (s: ReturnType<typeof runCodeHost>) => void, string][] = [
    ['the tool’s own error', {}, none, 'tools.fail()'],
    ['invalid arguments', { typecheck: 'off' }, none, 'tools.echo({ text: 5 })'],
    ['arguments over maxArgBytes', { limits: { maxArgBytes: 100 } }, none, 'tools.echo({ text: "x".repeat(500) })'],
    ['a post-execute replacement that is not a valid value', {}, (s) => void s.host.hooks.postExecute((e) => (e.toolName === 'echo' ? { type: 'replace-value', value: 5 } : undefined)), 'tools.echo({ text: "hi" })'],
  ];

  it.each(failures)('a failure that is not a denial (%s) does not start with it', async (_label, options, policy, call) => {
    const { caught: c, prefix } = await caught(options, policy, call);
    expect(c.isToolCallError).toBe(true);
    expect(c.message.length).toBeGreaterThan(0);
    expect(c.message.startsWith(prefix)).toBe(false);
  });
});
