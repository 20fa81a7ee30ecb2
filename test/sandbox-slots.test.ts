/**
 * Run slots in agent-affine sandbox processes (issue 29, docs/run-life.md "Groups, slots and
 * isolates"): a process serves one group and holds up to `runsPerProcess` of its runs at once;
 * the pool fills a free slot before it starts a process; different groups never share a
 * process; a CPU-bound program in one slot does not hold its process-mates' calls; a process's
 * crash fails only its own runs; `strict` gives runs at once a process each and every run a
 * fresh isolate. Real sandbox
 * processes, checked by pid (the outcome's and the pool's own account).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createProcessRunner, type ProcessEvent, type ProcessRunOutcome } from '../runtime/sandbox-process/index.js';
import { createRunCodeTool } from '../runtime/index.js';
import { createToolHost } from '../tools/index.js';
import { failureOf, runProgram } from './isolate-harness.js';

const pidOf = (r: { outcome: unknown }) => (r.outcome as ProcessRunOutcome).pid;
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}
const started = (events: ProcessEvent[]) => events.filter((e) => e.kind === 'started').length;

describe('when runs of one agent come at once (runsPerProcess 4)', () => {
  const events: ProcessEvent[] = [];
  const runner = createProcessRunner({ poolSize: 0, maxProcesses: 4, runsPerProcess: 4, osSandbox: 'off', onProcessEvent: (e) => events.push(e) });
  afterAll(() => runner.close());

  it('puts up to four in one process and starts a second process only for the fifth', async () => {
    const program = 'await tools.wait({ ms: 1500 }); return 1;';
    const runs = await Promise.all(Array.from({ length: 5 }, () => runProgram(runner, program, { group: 'agent-a' })));
    for (const r of runs) expect(r.value).toBe(1);
    const pids = runs.map(pidOf);
    expect(new Set(pids).size).toBe(2);
    const counts = [...new Set(pids)].map((pid) => pids.filter((p) => p === pid).length).sort();
    expect(counts).toEqual([1, 4]);
    expect(started(events)).toBe(2);
  });

  it('starts no process while a slot of the group is free: a run that comes later joins the busy one', async () => {
    const before = started(events);
    const first = runProgram(runner, 'await tools.wait({ ms: 1000 }); return "first";', { group: 'agent-b' });
    await until(() => runner.processes().some((p) => p.group === 'agent-b' && p.active === 1));
    const during = runner.processes().filter((p) => p.group === 'agent-b');
    expect(during).toHaveLength(1);
    expect(during[0]!.active).toBe(1);
    const second = await runProgram(runner, 'return "second";', { group: 'agent-b' });
    expect(second.value).toBe('second');
    const one = await first;
    expect(pidOf(second)).toBe(pidOf(one));
    expect(started(events) - before).toBe(1);
  });

  it('never gives two agents one process, at once or one after the other', async () => {
    const program = 'await tools.wait({ ms: 200 }); return 1;';
    const [a, b] = await Promise.all([runProgram(runner, program, { group: 'agent-c' }), runProgram(runner, program, { group: 'agent-d' })]);
    expect(pidOf(a)).not.toBe(pidOf(b));
    const later = await runProgram(runner, 'return 2;', { group: 'agent-d' });
    expect(pidOf(later)).toBe(pidOf(b));
    const other = await runProgram(runner, 'return 3;', { group: 'agent-e' });
    expect([pidOf(a), pidOf(b)]).not.toContain(pidOf(other));
    for (const p of runner.processes()) expect(['agent-a', 'agent-b', 'agent-c', 'agent-d', 'agent-e']).toContain(p.group);
  });

  it('stops an idle process of another agent to make room at maxProcesses', async () => {
    // agent-a..e hold or held processes; at the cap a new agent still gets one.
    const fresh = await runProgram(runner, 'return "room";', { group: 'agent-f' });
    expect(fresh.value).toBe('room');
    expect(runner.processes().length).toBeLessThanOrEqual(4);
  });
});

describe('when one slot computes without end and another makes calls', () => {
  const runner = createProcessRunner({ poolSize: 0, maxProcesses: 2, runsPerProcess: 2, osSandbox: 'off' });
  afterAll(() => runner.close());

  it('finishes the calls normally while the loop runs into cpuMs, in the same process', async () => {
    const spin = runProgram(runner, 'while (true) {}', { group: 'agent', limits: { cpuMs: 3_000 } });
    await until(() => runner.processes().some((p) => p.active === 1));
    const calls = await runProgram(runner, 'let n = 0; for (let i = 0; i < 20; i++) n += (await tools.echo({ i })).i; return n;', { group: 'agent', limits: { cpuMs: 3_000 } });
    expect(calls.value).toBe(190);
    const spun = await spin;
    expect(failureOf(spun.outcome)).toMatchObject({ kind: 'limit', limit: 'cpuMs' });
    expect(pidOf(calls)).toBe(pidOf(spun));
    // The loop was still running when the calls ended: they did not wait for it.
    expect(calls.outcome.wallMs).toBeLessThan(spun.outcome.wallMs);
  });
});

describe('when an agent\'s lone run computes after an outcome', () => {
  // Alone in its process, a run's outcome slices run on the process's own thread (no hand-off),
  // bounded (docs/run-life.md "Bounded slices"): past the bound the run is replayed with its
  // slices on isolated-vm's thread, so a run of the same agent sent there afterwards is read at
  // once. (While such a slice may still be running, the pool sends a new run elsewhere:
  // SandboxProcess.soloSlice.)
  const events: ProcessEvent[] = [];
  const runner = createProcessRunner({ poolSize: 1, maxProcesses: 3, runsPerProcess: 4, osSandbox: 'off', onProcessEvent: (e) => events.push(e) });
  afterAll(() => runner.close());

  it('takes the next run of the agent into that process once the slice passed its bound, and the next run finishes first', async () => {
    const ended: string[] = [];
    const spin = runProgram(runner, 'await tools.echo({ x: 1 }); while (true) {}', { group: 'solo', limits: { cpuMs: 2_500 } }).then((r) => (ended.push('spin'), r));
    await until(() => runner.processes().some((p) => p.group === 'solo' && p.active === 1));
    // Its echo is answered within a few ms; then it computes in that outcome's slice.
    await new Promise((r) => setTimeout(r, 300));
    const calls = await runProgram(runner, 'let n = 0; for (let i = 0; i < 20; i++) n += (await tools.echo({ i })).i; return n;', { group: 'solo' }).then((r) => (ended.push('calls'), r));
    expect(calls.value).toBe(190);
    const spun = await spin;
    expect(failureOf(spun.outcome)).toMatchObject({ kind: 'limit', limit: 'cpuMs' });
    expect(ended).toEqual(['calls', 'spin']);
    // The loop was moved off the process's thread: the next run joined it and was not held.
    expect(pidOf(calls)).toBe(pidOf(spun));
  });

  it('lets the next run join the lone run\'s process while that run waits for a call, not computing', async () => {
    const waiting = runProgram(runner, 'await tools.wait({ ms: 1200 }); return "waited";', { group: 'solo-2' });
    await until(() => runner.processes().some((p) => p.group === 'solo-2' && p.active === 1));
    await new Promise((r) => setTimeout(r, 200));
    const before = events.filter((e) => e.kind === 'started').length;
    const joined = await runProgram(runner, 'let n = 0; for (let i = 0; i < 5; i++) n += (await tools.echo({ i })).i; return n;', { group: 'solo-2' });
    expect(joined.value).toBe(10);
    const first = await waiting;
    expect(first.value).toBe('waited');
    expect(pidOf(joined)).toBe(pidOf(first));
    // (The pool may refill its one spare; it starts nothing for this run.)
    expect(events.filter((e) => e.kind === 'started').length - before).toBeLessThanOrEqual(1);
  });
});

describe('when one run of an agent hits a limit beside another', () => {
  const events: ProcessEvent[] = [];
  const runner = createProcessRunner({ poolSize: 0, maxProcesses: 3, runsPerProcess: 4, osSandbox: 'off', onProcessEvent: (e) => events.push(e) });
  afterAll(() => runner.close());

  it('ends that run alone: its process-mate finishes, the process takes no new run and stops after', async () => {
    const waiting = runProgram(runner, 'await tools.wait({ ms: 1500 }); return "survived";', { group: 'limited' });
    await until(() => runner.processes().some((p) => p.group === 'limited' && p.active === 1));
    const flood = await runProgram(runner, 'for (let i = 0; i < 100; i++) await tools.echo({ i });', { group: 'limited', limits: { maxCalls: 5 } });
    expect(failureOf(flood.outcome)).toMatchObject({ kind: 'limit', limit: 'maxCalls' });
    // The run beside it was not killed with the process.
    const mate = await waiting;
    expect(mate.value).toBe('survived');
    expect(pidOf(mate)).toBe(pidOf(flood));
    // The next run of the agent gets another process; the retired one is stopped once empty.
    const next = await runProgram(runner, 'return (await tools.echo({ ok: true })).ok;', { group: 'limited' });
    expect(next.value).toBe(true);
    expect(pidOf(next)).not.toBe(pidOf(flood));
    await until(() => !runner.processes().some((p) => p.pid === pidOf(flood)));
    expect(runner.processes().map((p) => p.pid)).not.toContain(pidOf(flood));
  });
});

describe('when a process of an agent crashes', () => {
  const runner = createProcessRunner({ poolSize: 0, maxProcesses: 3, runsPerProcess: 4, osSandbox: 'off' });
  afterAll(() => runner.close());

  it('fails the runs in that process only, and the next run of that agent succeeds', async () => {
    const waiting = runProgram(runner, 'await tools.wait({ ms: 3000 }); return "survived";', { group: 'crasher' });
    const other = runProgram(runner, 'await tools.wait({ ms: 1500 }); return "other agent";', { group: 'bystander' });
    await until(() => runner.processes().filter((p) => p.active === 1).length === 2);
    const bomb = await runProgram(runner, 'new Array(1e9).fill(0); return 1;', { group: 'crasher', limits: { memoryMb: 32 } });
    const mate = await waiting;
    expect(pidOf(mate)).toBe(pidOf(bomb));
    // Which of them ran the process out of memory is not known: both are told so, neither is blamed.
    for (const r of [bomb, mate]) expect(failureOf(r.outcome)).toMatchObject({ kind: 'crash', message: expect.stringMatching(/ran out of memory while it held 2 runs/) });
    expect((await other).value).toBe('other agent');
    const next = await runProgram(runner, 'return (await tools.echo({ ok: true })).ok;', { group: 'crasher' });
    expect(next.value).toBe(true);
    expect(pidOf(next)).not.toBe(pidOf(bomb));
  });
});

describe('with strict isolation', () => {
  const events: ProcessEvent[] = [];
  const runner = createProcessRunner({ poolSize: 1, maxProcesses: 3, strict: true, osSandbox: 'off', onProcessEvent: (e) => events.push(e) });
  afterAll(() => runner.close());

  it('gives runs at once a process each, and runs one after another in the agent\'s process with a fresh isolate each', async () => {
    const together = await Promise.all([0, 1].map(() => runProgram(runner, 'await tools.wait({ ms: 300 }); return 1;', { group: 'agent' })));
    for (const r of together) expect(r.value).toBe(1);
    expect(pidOf(together[0]!)).not.toBe(pidOf(together[1]!));
    const startedBefore = started(events);
    const sequential = [];
    sequential.push(await runProgram(runner, 'globalThis.left = 1; globalThis[Symbol.for("ptc-left")] = 1; return 1;', { group: 'agent' }));
    for (let i = 0; i < 3; i++) sequential.push(await runProgram(runner, 'return typeof globalThis.left + ":" + typeof globalThis[Symbol.for("ptc-left")];', { group: 'agent' }));
    // No process start per run: the agent's processes from before serve these, never a spare of another group.
    expect(started(events) - startedBefore).toBeLessThanOrEqual(1);
    expect([pidOf(together[0]!), pidOf(together[1]!)]).toContain(pidOf(sequential[1]!));
    for (const r of sequential.slice(1)) expect(r.value).toBe('undefined:undefined');
    expect(runner.processes().every((p) => p.active <= 1)).toBe(true);
  });

  it('fails only the run whose process crashed: its agent\'s run beside it, in a process of its own, goes on', async () => {
    const waiting = runProgram(runner, 'await tools.wait({ ms: 2000 }); return "survived";', { group: 'crasher' });
    await until(() => runner.processes().some((p) => p.group?.endsWith('crasher') === true && p.active === 1));
    const bomb = await runProgram(runner, 'new Array(1e9).fill(0); return 1;', { group: 'crasher', limits: { memoryMb: 32 } });
    expect(failureOf(bomb.outcome)).toBeDefined();
    const mate = await waiting;
    expect(mate.value).toBe('survived');
    expect(pidOf(mate)).not.toBe(pidOf(bomb));
  });
});

describe('runsPerProcess and strict isolation as options', () => {
  it('refuses runsPerProcess outside 1 to 8, naming the option, on the runner and on run_code', () => {
    for (const value of [0, 9, 2.5, Number.NaN]) {
      expect(() => createProcessRunner({ runsPerProcess: value, osSandbox: 'off' })).toThrow(/createProcessRunner: runsPerProcess must be a whole number from 1 to 8/);
      expect(() => createRunCodeTool({ capacity: { runsPerProcess: value } })).toThrow(/createRunCodeTool: capacity\.runsPerProcess must be a whole number from 1 to 8/);
    }
  });

  it('takes isolation { strict: true } and refuses any other object', () => {
    expect(() => createRunCodeTool({ isolation: { strict: true }, warmup: false })).not.toThrow();
    expect(() => createRunCodeTool({ isolation: { strict: 'yes' } as never })).toThrow(/createRunCodeTool: isolation must be "process", "isolate" or \{ strict: true \}/);
    expect(() => createRunCodeTool({ isolation: { strict: true, slots: 2 } as never })).toThrow(/isolation must be/);
  });
});

describe('when run_code runs programs without an agent', () => {
  const events: ProcessEvent[] = [];
  const runner = createProcessRunner({ poolSize: 0, maxProcesses: 4, runsPerProcess: 4, osSandbox: 'off', onProcessEvent: (e) => events.push(e) });
  const host = createToolHost();
  const runCode = createRunCodeTool({ host, runner, typecheck: 'off' });
  host.register(runCode);
  afterAll(() => runCode.close());
  const run = async (code: string, agent?: string) => {
    const r = await host.call({ id: `c${events.length}-${Math.random()}`, name: 'run_code', args: { code } }, agent ? { agent: { id: agent } } : {});
    expect(r.isError, JSON.stringify(r.error)).toBeFalsy();
    return (r.value as { result: unknown }).result;
  };

  it('reuses one process for them, one run at a time (no process start per run), and never for an agent', async () => {
    for (let i = 0; i < 3; i++) expect(await run(`return ${i};`)).toBe(i);
    expect(started(events)).toBe(1);
    const shared = runner.processes();
    expect(shared).toHaveLength(1);
    expect(shared[0]!.group).toBeUndefined();
    expect(await run('globalThis.left = 1; return 1;')).toBe(1);
    expect(await run('return typeof globalThis.left;')).toBe('undefined');
    expect(await run('return 7;', 'agent-x')).toBe(7);
    expect(started(events)).toBe(2);
    const agentProcess = runner.processes().find((p) => p.group !== undefined);
    expect(agentProcess?.group).toMatch(/agent:agent-x$/);
    expect(agentProcess?.pid).not.toBe(shared[0]!.pid);
  });
});
