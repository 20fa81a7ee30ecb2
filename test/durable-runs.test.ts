/**
 * Durable runs in one host process (the multi-process, SIGKILL cases are in
 * durable-runs-processes.test.ts): a deferred approval suspends the run and frees its runner;
 * resume replays the journal without running journaled calls again, then goes on live with the
 * person's decision standing in for the approver; tokens are single-use and bound; a changed tool
 * set, a tampered journal and a call that may have completed are all refused or reported as the
 * design says. Real isolates and real sandbox processes, a real (memory) run store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createToolHost, decision, defineTool, type ApprovalChannel, type ToolEvent, type ToolHost, type ToolResult } from '../tools/index.js';
import { createMemoryRunStore, createRunCodeTool, createRunResultTool, RunResumeError, type RunCodeSuspended, type RunCodeTool, type RunStore } from '../runtime/index.js';

const KEY = 'k'.repeat(32);
const alice = { id: 'alice' };

interface Ledger {
  reads: number;
  charges: { amount: number; key: string | undefined }[];
  notes: string[];
}

function durableHost(mode: 'isolate' | 'process', options: { store?: RunStore; approval?: ApprovalChannel; holdLiveMs?: number; now?: () => number; ttlMs?: number; idempotentNotify?: boolean } = {}) {
  const events: ToolEvent[] = [];
  const ledger: Ledger = { reads: 0, charges: [], notes: [] };
  const approval: ApprovalChannel = options.approval ?? { request: async () => 'defer' };
  const host: ToolHost = createToolHost({ onEvent: (e) => events.push(e), approval });
  host.register([
    defineTool({ name: 'read', description: 'Reads a number.', parameters: { n: { type: 'number', required: true } }, output: { schema: { type: 'number' } }, isConcurrencySafe: true, execute: (args) => (ledger.reads++, args.n * 10) }),
    defineTool({
      name: 'charge',
      description: 'Charges money.',
      parameters: { amount: { type: 'number', required: true } },
      output: { schema: { type: 'string' } },
      execute: (args, exec) => (ledger.charges.push({ amount: args.amount, key: exec.idempotencyKey }), `charged ${args.amount}`),
    }),
    defineTool({
      name: 'notify',
      description: 'Notifies.',
      parameters: { text: { type: 'string', required: true } },
      output: { schema: { type: 'string' } },
      ...(options.idempotentNotify ? { idempotent: true } : {}),
      execute: (args, exec) => (ledger.notes.push(options.idempotentNotify ? `${args.text} ${exec.idempotencyKey}` : args.text), 'sent'),
    }),
  ]);
  host.hooks.preExecute((e) => (e.toolName === 'charge' ? decision.ask('money moves') : undefined));
  const store = options.store ?? createMemoryRunStore();
  const runCode: RunCodeTool = createRunCodeTool({
    host,
    isolation: mode,
    durable: { store, keys: { current: KEY }, ...(options.holdLiveMs !== undefined ? { holdLiveMs: options.holdLiveMs } : {}), ...(options.now ? { now: options.now } : {}), ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}) },
  });
  host.register(runCode);
  const run = (code: string, id = 'run_1') => host.call({ id, name: 'run_code', args: { code } }, { agent: alice });
  return { host, events, ledger, store, runCode, run };
}

const PROGRAM = `
  const [a, b, c] = await Promise.all([tools.read({ n: 1 }), tools.read({ n: 2 }), tools.read({ n: 3 })]);
  const r = Math.random();
  const t = Date.now();
  const charged = await tools.charge({ amount: a + b + c });
  await tools.notify({ text: 'done ' + charged });
  return { sum: a + b + c, charged, r, t, r2: Math.random(), t2: Date.now() };`;

function suspensionOf(result: ToolResult): RunCodeSuspended['suspended'] {
  expect(result.isError, result.error?.message).toBe(false);
  const value = result.value as unknown as RunCodeSuspended;
  expect(value.suspended).toBeDefined();
  return value.suspended;
}

const hosts: RunCodeTool[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((t) => t.close()));
});

describe.each(['isolate', 'process'] as const)('a durable run in the %s runner', (mode) => {
  const make = (options: Parameters<typeof durableHost>[1] = {}) => {
    const made = durableHost(mode, options);
    hosts.push(made.runCode);
    return made;
  };

  it('suspends at a deferred approval, and resumes exactly once: journaled reads not repeated, the charge once with its key, randomness and clock replayed', async () => {
    const { run, runCode, ledger, events, store } = make();
    const first = await run(PROGRAM);
    const suspended = suspensionOf(first);
    expect(suspended.pending).toEqual([{ approvalId: `${suspended.runId}.4`, toolName: 'charge', args: { amount: 60 }, reason: 'money moves' }]);
    expect(first.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Do not run the program again') });
    expect(JSON.stringify(first.content)).not.toContain(suspended.resumeToken);
    expect(ledger).toEqual({ reads: 3, charges: [], notes: [] });
    expect((await store.load(suspended.runId))?.status).toBe('suspended');
    expect(events.some((e) => e.type === 'ptc/run-suspended' && e.runId === suspended.runId)).toBe(true);

    const done = await runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once', by: 'ops' }], agent: alice });
    expect(done.isError, done.error?.message).toBe(false);
    const result = (done.value as { result: { sum: number; charged: string; r: number; t: number } }).result;
    expect(result).toMatchObject({ sum: 60, charged: 'charged 60' });
    expect(ledger.reads).toBe(3);
    expect(ledger.charges).toEqual([{ amount: 60, key: `${suspended.runId}.4` }]);
    expect(ledger.notes).toEqual(['done charged 60']);
    expect((await store.load(suspended.runId))?.status).toBe('completed');
    expect(events.some((e) => e.type === 'ptc/run-resumed' && e.runId === suspended.runId && e.segment === 1)).toBe(true);
    // The same token again: refused, nothing runs.
    await expect(runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice })).rejects.toSatisfy((e) => RunResumeError.isInstance(e));
    expect(ledger.charges).toHaveLength(1);
  });

  it('replays Math.random and Date: after the resume the program holds the values it read before the pause, and two runs differ', async () => {
    const { run, runCode, ledger } = make();
    const code = `const r = Math.random(); const t = Date.now(); await tools.notify({ text: r + ' ' + t }); await tools.charge({ amount: 1 }); return r + ' ' + t;`;
    const first = suspensionOf(await run(code));
    const second = suspensionOf(await run(code, 'run_2'));
    expect(ledger.notes).toHaveLength(2);
    expect(ledger.notes[0]).not.toBe(ledger.notes[1]);
    const resume = (s: typeof first) => runCode.resume({ token: s.resumeToken, decisions: [{ approvalId: s.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice });
    const [done1, done2] = [await resume(first), await resume(second)];
    expect((done1.value as { result: string }).result).toBe(ledger.notes[0]);
    expect((done2.value as { result: string }).result).toBe(ledger.notes[1]);
    expect(ledger.notes).toHaveLength(2);
  });

  it('tells the run\'s own agent where it stands (run_result), and mints an operator token only for a suspended run', async () => {
    const { run, runCode, host, ledger } = make();
    const suspended = suspensionOf(await run(`const c = await tools.charge({ amount: 7 }); return { c };`));
    const resultTool = createRunResultTool({ runCode });
    host.register(resultTool);
    const ask = (agent: { id: string }) => host.call({ id: `rr-${agent.id}`, name: 'run_result', args: { runId: suspended.runId } }, { agent });
    expect((await ask(alice)).value).toEqual({ status: 'suspended', pending: [{ approvalId: suspended.pending[0]!.approvalId, toolName: 'charge', reason: 'money moves' }], expiresAt: suspended.expiresAt });
    // Another agent, and an id that is no run, read the same.
    expect((await ask({ id: 'mallory' })).value).toEqual({ status: 'unknown' });
    expect(await runCode.runResult({ runId: 'no-such-run', agent: alice })).toEqual({ status: 'unknown' });
    expect(await runCode.runResult({ runId: '../../etc/passwd', agent: alice })).toEqual({ status: 'unknown' });
    // An operator holding the key resumes without the app's token.
    const token = await runCode.issueResumeToken(suspended.runId);
    expect(token).not.toBe(suspended.resumeToken);
    const done = await runCode.resume({ token, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once', by: 'operator:ops' }], agent: alice });
    expect(done.isError, done.error?.message).toBe(false);
    expect(ledger.charges).toHaveLength(1);
    expect((await ask(alice)).value).toEqual({ status: 'completed', value: { c: 'charged 7' } });
    expect((await ask({ id: 'mallory' })).value).toEqual({ status: 'unknown' });
    // Finished: no token for it, and the app's old one is spent too.
    await expect(runCode.issueResumeToken(suspended.runId)).rejects.toSatisfy((e) => RunResumeError.isInstance(e));
    await expect(runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice })).rejects.toSatisfy((e) => RunResumeError.isInstance(e));
  });

  it("hands a person's deny to the program as a denial", async () => {
    const { run, runCode, ledger } = make();
    const suspended = suspensionOf(await run(`try { await tools.charge({ amount: 5 }); return 'charged'; } catch (e) { return e.message; }`));
    const done = await runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'deny', by: 'ops' }], agent: alice });
    expect((done.value as { result: string }).result).toMatch(/^Denied: /);
    expect(ledger.charges).toEqual([]);
  });

  it('runs guards again at resume: a guard added during the suspension denies', async () => {
    const { run, runCode, ledger, host } = make();
    const suspended = suspensionOf(await run(`try { await tools.charge({ amount: 5 }); return 'charged'; } catch (e) { return e.message; }`));
    host.hooks.guard((e) => (e.toolName === 'charge' ? 'charges are frozen' : undefined));
    const done = await runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice });
    expect((done.value as { result: string }).result).toMatch(/^Denied: .*charges are frozen/);
    expect(ledger.charges).toEqual([]);
  });

  it('refuses every bad token alike: tampered, another agent, expired, unknown run', async () => {
    let now = Date.now();
    const { run, runCode } = make({ now: () => now, ttlMs: 60_000 });
    const suspended = suspensionOf(await run(`await tools.charge({ amount: 5 }); return 1;`));
    const decisions = [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' as const }];
    const flipped = suspended.resumeToken.slice(0, -2) + (suspended.resumeToken.endsWith('A') ? 'BB' : 'AA');
    const messages: string[] = [];
    for (const attempt of [
      () => runCode.resume({ token: flipped, decisions, agent: alice }),
      () => runCode.resume({ token: suspended.resumeToken, decisions, agent: { id: 'mallory' } }),
      () => runCode.resume({ token: suspended.resumeToken, decisions }),
      () => runCode.resume({ token: 'ptcr1.e30.AAAA', decisions, agent: alice }),
      () => {
        now += 61_000;
        return runCode.resume({ token: suspended.resumeToken, decisions, agent: alice });
      },
    ]) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(RunResumeError.isInstance(error)).toBe(true);
      messages.push((error as Error).message);
    }
    expect(new Set(messages).size).toBe(1);
  });

  it('requires a decision for every pending approval, and refuses one for an approval it does not wait for', async () => {
    const { run, runCode, ledger } = make();
    const suspended = suspensionOf(await run(`await Promise.all([tools.charge({ amount: 1 }), tools.charge({ amount: 2 })]); return 1;`));
    expect(suspended.pending).toHaveLength(2);
    await expect(runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice })).rejects.toThrow(/missing/);
    await expect(runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: 'nope', decision: 'allow-once' }], agent: alice })).rejects.toThrow(/not an approval this run waits for/);
    const done = await runCode.resume({ token: suspended.resumeToken, decisions: suspended.pending.map((p) => ({ approvalId: p.approvalId, decision: 'allow-once' as const })), agent: alice });
    expect(done.isError).toBe(false);
    expect(ledger.charges.map((c) => c.amount).sort()).toEqual([1, 2]);
  });

  it('refuses a resume after the tool set changed, and runs nothing', async () => {
    const { run, runCode, host, ledger } = make();
    const suspended = suspensionOf(await run(`await tools.charge({ amount: 5 }); return 1;`));
    host.register(defineTool({ name: 'refund', description: 'Refunds.', execute: () => 'ok' }));
    await expect(runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice })).rejects.toThrow(/tools the program can call changed/);
    expect(ledger.charges).toEqual([]);
  });

  it('stops a replay that diverges from its journal, and runs nothing after it', async () => {
    const { run, runCode, ledger, store } = make();
    const suspended = suspensionOf(await run(`const n = await tools.read({ n: 1 }); if (n === 10) await tools.charge({ amount: n }); else await tools.notify({ text: 'other path' }); return n;`));
    // Change the journaled result of the read: the program now takes another path.
    const stored = (await store.load(suspended.runId))!;
    const tampered = stored.entries.map((e) => (e.includes('"k":"settle"') && e.includes('"seq":1') ? e.replace('"text":"10"', '"text":"11"') : e));
    expect(tampered).not.toEqual(stored.entries);
    (stored.entries as string[]).splice(0, stored.entries.length, ...tampered);
    const tamperedStore = store as RunStore & { load: RunStore['load'] };
    const load = tamperedStore.load.bind(store);
    tamperedStore.load = async (id) => ((await load(id)) === undefined ? undefined : { ...(await load(id))!, entries: tampered });
    const done = await runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice });
    expect(done.isError).toBe(true);
    expect(done.error?.message).toMatch(/did not do what its journal recorded/);
    expect(ledger.charges).toEqual([]);
    expect(ledger.notes).toEqual([]);
    expect((await load(suspended.runId))?.status).toBe('failed');
  });

  it('stays live while a quick answer is possible: no suspension when the channel allows', async () => {
    const { run, ledger, store } = make({ approval: { request: async () => 'allow-once' } });
    const result = await run(PROGRAM);
    expect((result.value as { result: { sum: number } }).result.sum).toBe(60);
    expect(ledger.charges).toHaveLength(1);
    expect(await store.list()).toEqual([]);
  });
});

describe('a durable run whose call had started when its host stopped', () => {
  /** A store that "dies" with its host: once `dead`, no write reaches it. */
  function mortal(base: RunStore) {
    const state = { dead: false, armed: false };
    const store: RunStore = {
      ...base,
      append: async (claim, entries) => {
        if (state.dead) throw new Error('the host is gone');
        await base.append(claim, entries);
        // The host dies right after the start of notify's body was written.
        if (state.armed && entries.some((e) => e.includes('"k":"start"') && e.includes('"seq":2'))) state.dead = true;
      },
      settle: async (claim, s) => {
        if (state.dead) throw new Error('the host is gone');
        await base.settle(claim, s);
      },
    };
    return { store, state };
  }
  const PROGRAM_AFTER = `await tools.charge({ amount: 5 }); return await tools.notify({ text: 'x' }).catch((e) => e.message);`;

  it.each([false, true])('resumed again after the lease: idempotent %s', async (idempotent) => {
    const base = createMemoryRunStore();
    const first = mortal(base);
    const a = durableHost('isolate', { store: first.store });
    hosts.push(a.runCode);
    const suspended = suspensionOf(await a.run(PROGRAM_AFTER));
    const decisions = [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' as const }];
    first.state.armed = true;
    // Host A "dies" right after notify's start reached the store: nothing it writes later arrives.
    await a.runCode.resume({ token: suspended.resumeToken, decisions, agent: alice });
    expect(a.ledger.notes).toEqual(['x']);
    expect(a.ledger.charges).toHaveLength(1);

    // Another host, after the crashed resumer's lease ran out, with the same token.
    const later = Date.now() + 120_000;
    const b = durableHost('isolate', { store: base, now: () => later, idempotentNotify: idempotent });
    hosts.push(b.runCode);
    const done = await b.runCode.resume({ token: suspended.resumeToken, decisions, agent: alice });
    expect(done.isError, done.error?.message).toBe(false);
    expect(b.ledger.charges).toEqual([]);
    if (idempotent) {
      expect((done.value as { result: string }).result).toBe('sent');
      expect(b.ledger.notes).toEqual([`x ${suspended.runId}.2`]);
    } else {
      expect((done.value as { result: string }).result).toMatch(/may have completed/);
      expect(b.ledger.notes).toEqual([]);
    }
    expect((await base.load(suspended.runId))?.status).toBe('completed');
  });
});

describe('a durable run across two hosts with traces', () => {
  it("links the resuming host's trace chain to the suspended one's head, and the pair verifies", async () => {
    const { mkdtemp, readFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { traceFileSink, verifyTraceSet } = await import('../tools/index.js');
    const dir = await mkdtemp(join(tmpdir(), 'ptc-durable-trace-'));
    try {
      const store = createMemoryRunStore();
      const traceA = traceFileSink(join(dir, 'a.jsonl'));
      const traceB = traceFileSink(join(dir, 'b.jsonl'));
      const make = (trace: typeof traceA) => {
        const host = createToolHost({ onEvent: trace, approval: { request: async () => 'defer' } });
        host.register(defineTool({ name: 'charge', description: 'Charges.', output: { schema: { type: 'string' } }, execute: () => 'charged' }));
        host.hooks.preExecute((e) => (e.toolName === 'charge' ? decision.ask('money') : undefined));
        const runCode = createRunCodeTool({ host, isolation: 'isolate', durable: { store, keys: { current: KEY }, traceHead: () => trace.head } });
        host.register(runCode);
        hosts.push(runCode);
        return { host, runCode };
      };
      const a = make(traceA);
      const b = make(traceB);
      const suspended = suspensionOf(await a.host.call({ id: 'call_1', name: 'run_code', args: { code: `return await tools.charge({});` } }, { agent: alice }));
      const done = await b.runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice });
      expect((done.value as { result: string }).result).toBe('charged');
      traceA.close();
      traceB.close();
      const [textA, textB] = [await readFile(join(dir, 'a.jsonl')), await readFile(join(dir, 'b.jsonl'))];
      expect(textA.toString()).not.toContain(suspended.resumeToken);
      const linesB = textB.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l).type);
      expect(linesB).toContain('ptc/run-resumed');
      const resumed = textB.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.type === 'ptc/run-resumed');
      const suspendedLine = textA.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.type === 'ptc/run-suspended');
      expect(resumed.prevTraceHead).toMatchObject({ seq: suspendedLine.seq });
      const set = verifyTraceSet([{ name: 'a.jsonl', input: textA }, { name: 'b.jsonl', input: textB }]);
      expect(set.ok).toBe(true);
      expect(set.links.map((l) => l.status)).toEqual(['verified']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('replays a sleep from the journal without waiting again (the resumed run has only the wall time left that the first spent)', async () => {
    const { run, runCode } = durableHostWithLimits({ wallMs: 3_000 });
    const suspended = suspensionOf(await run(`await sleep(1000); await sleep(1000); return await tools.charge({ amount: 1 });`));
    const done = await runCode.resume({ token: suspended.resumeToken, decisions: [{ approvalId: suspended.pending[0]!.approvalId, decision: 'allow-once' }], agent: alice });
    // Waiting the 2 s again would pass the ~1 s of wallMs left: the run would end with the wall limit.
    expect(done.isError, done.error?.message).toBe(false);
    expect((done.value as { result: string }).result).toBe('charged 1');
  });
});

function durableHostWithLimits(limits: { wallMs: number }) {
  const host = createToolHost({ approval: { request: async () => 'defer' } });
  host.register(defineTool({ name: 'charge', description: 'Charges.', parameters: { amount: { type: 'number', required: true } }, output: { schema: { type: 'string' } }, execute: (args) => `charged ${args.amount}` }));
  host.hooks.preExecute((e) => (e.toolName === 'charge' ? decision.ask('money') : undefined));
  const runCode = createRunCodeTool({ host, isolation: 'isolate', limits, durable: { store: createMemoryRunStore(), keys: { current: KEY } } });
  host.register(runCode);
  hosts.push(runCode);
  return { runCode, run: (code: string) => host.call({ id: 'run_1', name: 'run_code', args: { code } }, { agent: alice }) };
}
