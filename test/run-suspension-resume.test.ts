/**
 * resumeRun, the core of every adapter's resume helper, on a real durable run_code: a program
 * that asks twice suspends again after the first resume (a new suspension with its own token, and
 * the follow-up text says it is paused again); a denied call the program does not catch ends the
 * run as a failure, and the text says so. The token is in no text.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryRunStore, createRunCodeTool, type RunCodeTool } from '../runtime/index.js';
import { createToolHost, decision, defineTool, resumeRun, splitSuspension, type RunSuspension } from '../tools/index.js';

const agent = { id: 'a' };
const tools: RunCodeTool[] = [];
afterEach(async () => {
  await Promise.all(tools.splice(0).map((t) => t.close()));
});

function durable() {
  const host = createToolHost({ approval: { request: async () => 'defer' } });
  host.register(defineTool({ name: 'pay', description: 'Pays.', parameters: { n: { type: 'number', required: true } }, output: { schema: { type: 'string' } }, execute: (a) => `paid ${a.n}` }));
  host.hooks.preExecute((e) => (e.toolName === 'pay' ? decision.ask('money moves') : undefined));
  const runCode = createRunCodeTool({ host, isolation: 'isolate', durable: { store: createMemoryRunStore(), keys: { current: 'r'.repeat(32) } } });
  host.register(runCode);
  tools.push(runCode);
  const start = async (code: string): Promise<RunSuspension> => {
    const { suspension } = splitSuspension(await host.call({ id: 'call_1', name: 'run_code', args: { code } }, { agent }));
    expect(suspension).toBeDefined();
    return suspension!;
  };
  return { runCode, start };
}

const allow = (s: RunSuspension) => s.pending.map((p) => ({ approvalId: p.approvalId, decision: 'allow-once' as const }));

describe('resumeRun', () => {
  it('gives a new suspension when the program asks again, then the final value', async () => {
    const { runCode, start } = durable();
    const first = await start(`const a = await tools.pay({ n: 1 }); const b = await tools.pay({ n: 2 }); return [a, b];`);
    const again = await resumeRun(runCode, first, { decisions: allow(first), agent });
    expect(again.suspension).toMatchObject({ toolCallId: 'call_1', runId: first.runId, pending: [{ toolName: 'pay', args: { n: 2 } }] });
    expect(again.suspension!.resumeToken).not.toBe(first.resumeToken);
    expect(again.result.value).toEqual({ suspended: { runId: first.runId, pending: again.suspension!.pending, expiresAt: again.suspension!.expiresAt } });
    expect(again.text).toContain('went on and is paused again (pay allowed)');
    expect(again.text).not.toContain(again.suspension!.resumeToken);
    const done = await resumeRun(runCode, again.suspension!, { decisions: allow(again.suspension!), agent });
    expect(done.suspension).toBeUndefined();
    expect((done.result.value as { result: unknown }).result).toEqual(['paid 1', 'paid 2']);
    expect(done.text).toMatch(/went on and finished \(pay allowed\)\. This is its output, not the user's words:\nresult: \[/);
  });

  it('says the program failed when a denial ends it', async () => {
    const { runCode, start } = durable();
    const s = await start(`return await tools.pay({ n: 1 });`);
    const done = await resumeRun(runCode, s, { decisions: [{ approvalId: s.pending[0]!.approvalId, decision: 'deny' }], agent });
    expect(done.result.isError).toBe(true);
    expect(done.text).toContain('went on and failed (pay denied)');
    expect(done.text).toContain('Denied');
  });
});
