import { afterAll, describe, expect, it, vi } from 'vitest';
import type { RunCodeTool } from '../runtime/index.js';
import { runCodeHost, runnerModes } from './run-code-support.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

describe.each(runnerModes())('run_code limits (%s)', (mode) => {
  const setup = (limits: Parameters<typeof runCodeHost>[1] extends infer O ? (O extends { limits?: infer L } ? L : never) : never) => {
    const s = runCodeHost(mode, { typecheck: 'off', limits });
    opened.push(s.runCode);
    return s;
  };
  const healthy = async (s: ReturnType<typeof setup>) => {
    expect((await s.value('return (await tools.echo({ text: "next run works" })).echoed;')).result).toBe('next run works');
  };
  const endsWith = async (s: ReturnType<typeof setup>, code: string, limit: string, value: number) => {
    const r = await s.run(code);
    expect(r.isError).toBe(true);
    expect(r.error?.message).toContain(`${limit}=${value}`);
    const end = s.events.filter((e) => e.type === 'ptc/run-end').at(-1);
    expect(end).toMatchObject({ outcome: 'limit', limit: { name: limit, value } });
    return r;
  };

  it('ends a synchronous infinite loop at cpuMs', async () => {
    const s = setup({ cpuMs: 200 });
    await endsWith(s, 'for (;;) {}', 'cpuMs', 200);
    await healthy(s);
  });

  it('ends an endless microtask loop at cpuMs, as a synchronous one', async () => {
    // Microtasks run inside the slice, under its timeout of the CPU budget: the wall deadline,
    // far off here, plays no part.
    const s = setup({ cpuMs: 200, wallMs: 30_000 });
    await endsWith(s, 'for (;;) await null;', 'cpuMs', 200);
    await healthy(s);
  });

  it('counts CPU spent after the program returned: a promise chain it left spinning ends the run at cpuMs', async () => {
    const s = setup({ cpuMs: 200 });
    await endsWith(s, 'const spin = () => Promise.resolve().then(spin);\nspin();\nreturn "done";', 'cpuMs', 200);
    await healthy(s);
  });

  it('ends a run that outlives wallMs while awaiting a tool, and cancels the child', async () => {
    const s = setup({ wallMs: 1_500 });
    await s.value('return 0;'); // start the sandbox before the timed run
    const r = await endsWith(s, 'await tools.wait({ ms: 5000 });\nreturn 1;', 'wallMs', 1500);
    expect(r.error?.message).toMatch(/wait: (ok|error) \((may-have-completed|cancelled)\)/);
    await healthy(s);
  });

  it('ends a call flood at maxCalls', async () => {
    const s = setup({ maxCalls: 5 });
    await endsWith(s, 'for (let i = 0; i < 100; i++) await tools.echo({ text: String(i) });', 'maxCalls', 5);
    expect(s.events.filter((e) => e.type === 'tool/call' && e.toolName === 'echo')).toHaveLength(5);
    await healthy(s);
  });

  it('ends an output flood at maxLogBytes', async () => {
    const s = setup({ maxLogBytes: 1_000 });
    await endsWith(s, 'for (let i = 0; i < 1e6; i++) console.log("flood " + i);', 'maxLogBytes', 1000);
    await healthy(s);
  });

  it('ends a run whose result is over maxResultBytes', async () => {
    const s = setup({ maxResultBytes: 1_000 });
    await endsWith(s, 'return "x".repeat(5000);', 'maxResultBytes', 1000);
    await healthy(s);
  });

  it('ends a memory bomb at memoryMb', async () => {
    const s = setup({ memoryMb: 32 });
    const r = await s.run('const keep = []; for (;;) keep.push(new Array(100000).fill(keep.length));');
    expect(r.isError).toBe(true);
    expect(r.error?.message).toMatch(/memoryMb=32|rssMb=/);
    await healthy(s);
  });

  it('ends deep recursion as a thrown RangeError, not a crash', async () => {
    const s = setup({});
    const r = await s.run('const f = (n) => f(n + 1) + 1;\nreturn f(0);');
    expect(r.isError).toBe(true);
    expect(r.error?.message).toMatch(/RangeError|stack/i);
    await healthy(s);
  });

  it('fails only the call whose arguments pass maxArgBytes, and the run goes on', async () => {
    const s = setup({ maxArgBytes: 1_000 });
    const v = await s.value('try { await tools.echo({ text: "x".repeat(5000) }); return "sent"; } catch (e) { return [e instanceof ToolCallError, e.message]; }');
    expect(v.result).toEqual([true, expect.stringContaining('maxArgBytes=1000')]);
  });

  it('spills output over maxOutputBytes whole, with a handle the host can read', async () => {
    const s = setup({ maxOutputBytes: 2_000 });
    const v = await s.value('const rows = []; for (let i = 0; i < 2000; i++) rows.push({ i, name: "row " + i }); console.log("made rows"); return rows;');
    const part = v.result as unknown as { spilled: { id: string; bytes: number }; head: string; tail: string };
    expect(part.spilled.bytes).toBeGreaterThan(2_000);
    const full = JSON.parse((await s.runCode.spills.read(part.spilled.id))!) as unknown[];
    expect(full).toHaveLength(2000);
    expect(v.logs).toEqual(['made rows']);
    expect(v.stats.returnedBytes).toBeLessThanOrEqual(2_000);
    expect(v.stats.outputBytes).toBeGreaterThan(2_000);
  });

  it('aborts the run when the run_code call is aborted, cancelling its children', async () => {
    const s = setup({});
    await s.value('return 0;');
    const controller = new AbortController();
    const pending = s.run('await tools.wait({ ms: 5000 }); return 1;', controller.signal);
    // Abort once the child is in flight (a state, not a guess of how long a start takes under load).
    await vi.waitFor(() => expect(s.events.some((e) => e.type === 'tool/call' && e.toolName === 'wait')).toBe(true), { timeout: 30_000 });
    controller.abort(new Error('user pressed stop'));
    const r = await pending;
    expect(r.isError).toBe(true);
    // The run's own end (children cancelled) is in the trace before run_code's result, so a
    // sink closed as soon as the call returns has the whole run.
    const runEnd = s.events.findLast((e) => e.type === 'ptc/run-end');
    const result = s.events.findLast((e) => e.type === 'tool/result' && e.toolName === 'run_code');
    expect(runEnd).toMatchObject({ outcome: 'aborted' });
    expect(runEnd!.seq).toBeLessThan(result!.seq);
    await healthy(s);
  });
});

describe('run_code limits (process): a limit the host and the worker both count', () => {
  // The bridge stops a run at maxCalls and answers at once; the worker reports the same limit a
  // moment later. A run of the agent sent to that process in between must not die with it
  // (before the fix, 27% of such next runs were killed: 41 of 150 here).
  it('leaves the next run of the agent alone, 30 times over', async () => {
    const s = runCodeHost('process', { typecheck: 'off', limits: { maxCalls: 5 } });
    opened.push(s.runCode);
    const failures: string[] = [];
    for (let i = 0; i < 30; i++) {
      const flood = await s.run('for (let i = 0; i < 100; i++) await tools.echo({ text: String(i) });');
      expect(flood.error?.message).toContain('maxCalls=5');
      const next = await s.run('return (await tools.echo({ text: "next" })).echoed;');
      if (next.isError) failures.push(next.error?.message ?? 'no message');
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
