import { describe, expect, it } from 'vitest';
import { decision } from './decision.js';
import { defineTool } from './define-tool.js';
import { DURABLE_CALL, type DurableCall } from './durable-call.js';
import type { ApprovalChannel, ApprovalRequest } from './approval.js';
import type { ToolExecContext } from './tool-types.js';
import { recordingHost } from './test-support.js';

const agent = { id: 'agent-1' };
const ptc = Object.freeze({ kind: 'ptc' as const, parentCallId: 'run_1', token: 't'.repeat(43) });

function durableHost(approval?: ApprovalChannel) {
  const { host, events } = recordingHost(approval ? { approval } : {});
  const seen: ToolExecContext[] = [];
  host.register(defineTool({ name: 'charge', description: 'Charges.', parameters: { amount: { type: 'number', required: true } }, idempotent: true, execute: (_args, exec) => (seen.push(exec), 'charged') }));
  host.hooks.preExecute((e) => (e.toolName === 'charge' ? decision.ask('money moves') : undefined));
  const call = (durable: DurableCall, origin: object = ptc) => host.call({ id: 'c1', name: 'charge', args: { amount: 5 } }, { agent, origin, [DURABLE_CALL]: durable } as never);
  return { host, events, seen, call };
}

describe("a durable run's child call", () => {
  it("ends as deferred, body not run, when the channel defers a deferrable call, and says the approval id to the channel", async () => {
    const asked: ApprovalRequest[] = [];
    const { call, seen, events } = durableHost({ request: async (req) => (asked.push(req), 'defer') });
    const result = await call({ deferrable: true, approvalId: 'ap_1' });
    expect(result).toMatchObject({ isError: true, error: { kind: 'deferred' }, deferred: { approvalId: 'ap_1', reason: 'money moves' } });
    expect(result.denied).toBeUndefined();
    expect(seen).toHaveLength(0);
    expect(asked[0]).toMatchObject({ deferrable: true, approvalId: 'ap_1' });
    expect(events.find((e) => e.type === 'tool/decision' && e.stage === 'approval')).toMatchObject({ decision: 'defer' });
  });

  it('is denied when the channel defers a call that cannot wait (no durable run)', async () => {
    const asked: ApprovalRequest[] = [];
    const { call, seen } = durableHost({ request: async (req) => (asked.push(req), 'defer') });
    const result = await call({});
    expect(result.denied?.by).toBe('approval');
    expect(result.denied?.reason).toMatch(/^unavailable: the approver deferred/);
    expect(asked[0]!.deferrable).toBeUndefined();
    expect(seen).toHaveLength(0);
  });

  it("takes a person's decision instead of asking the channel, and records who decided", async () => {
    let asked = 0;
    const { call, seen, events } = durableHost({ request: async () => (asked++, 'deny') });
    const result = await call({ decision: { approvalId: 'ap_1', decision: 'allow-once', by: 'ops@example.com' }, idempotencyKey: 'k1' });
    expect(result.value).toBe('charged');
    expect(asked).toBe(0);
    expect(seen[0]!.idempotencyKey).toBe('k1');
    expect(events.find((e) => e.type === 'tool/decision' && e.stage === 'approval')).toMatchObject({ decision: 'allow', by: { kind: 'approval', via: 'durable', approvalId: 'ap_1', by: 'ops@example.com' } });
  });

  it("a person's deny denies even when policy no longer asks; a guard still denies an allowed decision", async () => {
    const { host, call, seen } = durableHost();
    const off = host.hooks.preExecute(() => decision.allow());
    const denied = await call({ decision: { approvalId: 'ap_1', decision: 'deny' } });
    expect(denied.denied?.by).toBe('approval');
    off.dispose();
    host.hooks.guard(() => 'charges are frozen');
    const guarded = await call({ decision: { approvalId: 'ap_1', decision: 'allow-once' } });
    expect(guarded.denied).toMatchObject({ by: 'guard', reason: 'charges are frozen' });
    expect(seen).toHaveLength(0);
  });

  it('awaits beforeBody before the body, and does not run the body when it throws', async () => {
    const order: string[] = [];
    const { call, seen } = durableHost();
    const ok = await call({ decision: { approvalId: 'a', decision: 'allow-once' }, beforeBody: async () => void order.push(`before, ${seen.length} runs`) });
    expect(ok.value).toBe('charged');
    expect(order).toEqual(['before, 0 runs']);
    const failed = await call({ decision: { approvalId: 'a', decision: 'allow-once' }, beforeBody: () => Promise.reject(new Error('disk full')) });
    expect(failed.error).toMatchObject({ kind: 'execution', message: expect.stringContaining('disk full') });
    expect(seen).toHaveLength(1);
  });

  it("ignores a durable part on a call that is not a program's (no decision from a model call)", async () => {
    const { call, seen } = durableHost();
    const result = await call({ decision: { approvalId: 'a', decision: 'allow-once' }, idempotencyKey: 'k' }, { kind: 'model' });
    expect(result.denied?.reason).toMatch(/no approval channel/);
    expect(seen).toHaveLength(0);
  });
});

describe('defineTool({ idempotent })', () => {
  it('keeps true, and refuses a value that is not a boolean', () => {
    expect(defineTool({ name: 'a', description: 'A.', idempotent: true, execute: () => 1 }).idempotent).toBe(true);
    expect(defineTool({ name: 'a', description: 'A.', execute: () => 1 }).idempotent).toBeUndefined();
    expect(() => defineTool({ name: 'a', description: 'A.', idempotent: 'yes' as never, execute: () => 1 })).toThrow(/idempotent/);
  });
});
