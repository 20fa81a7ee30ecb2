import { afterAll, describe, expect, it } from 'vitest';
import type { GuestBridge, ProgramRunner, RunCodeTool } from '../runtime/index.js';
import { modeOptions, runCodeHost, runnerModes } from './run-code-support.js';
import { createRunCodeTool } from '../runtime/index.js';
import { MAX_RECORDED_LATE_CALLS, MORE_LATE_CALLS } from '../bridge/index.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

describe.each(runnerModes())('run_code scheduling (%s)', (mode) => {
  const setup = (options: Parameters<typeof runCodeHost>[1] = {}) => {
    const s = runCodeHost(mode, options);
    opened.push(s.runCode);
    return s;
  };

  describe('when a program awaits calls together', () => {
    it('overlaps them with Promise.all, bounded by maxInFlight', async () => {
      const s = setup({ limits: { maxInFlight: 3 } });
      const v = await s.value('return await Promise.all(Array.from({ length: 9 }, (_, i) => tools.wait({ ms: 20 + i })));');
      expect(v.result).toEqual(Array.from({ length: 9 }, (_, i) => 20 + i));
      expect(s.instrumented.maxInFlight).toBe(3);
      expect(v.calls).toHaveLength(9);
    });

    it('keeps exclusive tools from overlapping any sibling', async () => {
      const s = setup({ limits: { maxInFlight: 8 } });
      const v = await s.value(`
        const jobs = [];
        for (let i = 0; i < 6; i++) {
          jobs.push(tools.wait({ ms: 5 }));
          jobs.push(tools.write({ key: "k" + i }));
          jobs.push(tools.echo({ text: "e" + i }));
        }
        return (await Promise.all(jobs)).length;
      `);
      expect(v.result).toBe(18);
      expect(s.instrumented.exclusiveOverlap).toBe(0);
      expect(s.instrumented.maxInFlight).toBeGreaterThan(1);
    });

    it('keeps the isolate running while a call is pending', async () => {
      const s = setup();
      const v = await s.value(`
        let spins = 0;
        let done = false;
        const p = tools.wait({ ms: 30 }).then(() => { done = true; });
        while (!done && spins < 1000) { spins++; await null; await new Promise((r) => r(null)); if (spins % 10 === 0) await tools.echo({ text: String(spins) }); }
        await p;
        return spins > 0;
      `);
      expect(v.result).toBe(true);
    });
  });

  describe('when many runs share one abort signal', () => {
    it('runs them all without piling listeners on the signal, and one abort stops them all', async () => {
      const s = setup({ limits: { maxInFlight: 4 } });
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.name);
      process.on('warning', onWarning);
      try {
        const shared = new AbortController();
        const done = await Promise.all(Array.from({ length: 12 }, () => s.run('return await tools.wait({ ms: 10 });', shared.signal)));
        expect(done.filter((r) => !r.isError)).toHaveLength(12);
        const pending = Array.from({ length: 12 }, () => s.run('await tools.wait({ ms: 5000 }); return 1;', shared.signal));
        await new Promise((r) => setTimeout(r, 200));
        shared.abort(new Error('shutting down'));
        const stopped = await Promise.all(pending);
        expect(stopped.every((r) => r.isError && r.error?.kind === 'aborted')).toBe(true);
        await new Promise((r) => setImmediate(r));
        expect(warnings).not.toContain('MaxListenersExceededWarning');
      } finally {
        process.off('warning', onWarning);
      }
    });
  });

  describe('when the run ends with calls still queued behind maxInFlight or an exclusive tool', () => {
    // Each queued call was dispatched (tool/ptc-dispatch) but never started: the trace still
    // closes it with a tool/call and a tool/result "cancelled before it started", and the tool
    // never runs.
    const closesEveryDispatch = (s: ReturnType<typeof setup>) => {
      const dispatched = s.events.filter((e) => e.type === 'tool/ptc-dispatch').map((e) => (e as { pairId: string }).pairId);
      expect(dispatched.length).toBeGreaterThan(1);
      for (const id of dispatched) {
        expect(s.events.filter((e) => e.type === 'tool/call' && e.callId === id)).toHaveLength(1);
        expect(s.events.filter((e) => e.type === 'tool/result' && e.callId === id)).toHaveLength(1);
      }
      const end = s.events.findIndex((e) => e.type === 'ptc/run-end');
      expect(s.events.slice(end + 1).some((e) => e.type === 'tool/result' && dispatched.includes(e.callId))).toBe(false);
    };

    it('records a result for each queued call when wallMs ends the run', async () => {
      const s = setup({ limits: { maxInFlight: 1, wallMs: 300 } });
      const r = await s.run('await Promise.all([tools.wait({ ms: 5000 }), tools.wait({ ms: 5000 }), tools.wait({ ms: 5000 })]); return 1;');
      expect(r.isError).toBe(true);
      closesEveryDispatch(s);
      const cancelled = s.events.filter((e) => e.type === 'tool/result' && e.isError && /cancelled before it started/.test(JSON.stringify(e)));
      expect(cancelled).toHaveLength(2);
      expect(s.instrumented.timeline.filter((t) => t.event === 'start')).toHaveLength(1);
    });

    it('records a result for each call queued behind an exclusive tool when the program throws', async () => {
      const s = setup({ limits: { maxInFlight: 4 } });
      const r = await s.run('const all = Promise.all([tools.write({ key: "a" }), tools.wait({ ms: 1 }), tools.wait({ ms: 1 })]);\nthrow new Error("stop");');
      expect(r.isError).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      closesEveryDispatch(s);
    });
  });

  describe('when a promise leaks past the end of the run', () => {
    it('cancels the in-flight child, reports it, and never runs the follow-up call', async () => {
      const s = setup();
      const v = await s.value('tools.wait({ ms: 200 }).then(() => tools.echo({ text: "late" }));\nreturn "done";');
      expect(v.result).toBe('done');
      expect(v.calls).toEqual([expect.objectContaining({ tool: 'wait', settlement: expect.stringMatching(/may-have-completed|cancelled/) })]);
      await new Promise((r) => setTimeout(r, 300));
      expect(s.events.some((e) => e.type === 'tool/call' && e.toolName === 'echo')).toBe(false);
    });

    // A program's last slice runs on after its `return` (its microtasks are not cut off): calls made
    // there reach the runner after the end. Each is dropped and recorded once, whichever isolation.
    const lateProgram = `
      (async () => { for (let i = 0; i < 20; i++) await null; tools.echo({ text: "late" }); await null; tools.secret(); })();
      Promise.resolve().then(() => tools.echo({ text: "late too" }));
      return "returned";`;
    const runEvents = (s: ReturnType<typeof setup>, id: string) => s.events.filter((e) => ('callId' in e && e.callId === id) || ('parentCallId' in e && e.parentCallId === id));

    it('records each call the program makes after it returned as one ptc/call-refused, and runs none', async () => {
      const s = setup({ typecheck: 'off' });
      const v = await s.value(lateProgram);
      expect(v.result).toBe('returned');
      expect(v.calls).toEqual([]);
      await new Promise((r) => setTimeout(r, 100)); // nothing more arrives later
      const refused = s.events.filter((e) => e.type === 'ptc/call-refused');
      expect(refused.map((e) => e.toolName)).toEqual(['echo', 'echo', 'secret']);
      for (const event of refused) expect(event).toMatchObject({ parentCallId: 'run_1', reason: expect.stringContaining('the run already ended') });
      expect(s.instrumented.timeline).toEqual([]);
      expect(s.events.some((e) => e.type === 'tool/call' && e.toolName !== 'run_code')).toBe(false);
    });

    it('leaves the run\'s own events as a run without late calls has them, the refusals before ptc/run-end', async () => {
      const s = setup({ typecheck: 'off' });
      await s.value('return "returned";');
      await s.value(lateProgram);
      const plain = runEvents(s, 'run_1').map((e) => e.type);
      const leaky = runEvents(s, 'run_2').map((e) => e.type);
      expect(leaky.filter((t) => t !== 'ptc/call-refused')).toEqual(plain);
      expect(leaky.indexOf('ptc/call-refused')).toBeGreaterThan(leaky.indexOf('ptc/run-start'));
      expect(leaky.lastIndexOf('ptc/call-refused')).toBeLessThan(leaky.indexOf('ptc/run-end'));
    });

    it(`records at most ${MAX_RECORDED_LATE_CALLS} late calls of a run one by one, and counts the rest in one summary`, async () => {
      const s = setup({ typecheck: 'off' });
      const late = MAX_RECORDED_LATE_CALLS + 700;
      const v = await s.value(`(async () => { for (let i = 0; i < ${late}; i++) { await null; tools.echo({ text: "x" + i }); } })(); return 1;`);
      expect(v.result).toBe(1);
      await new Promise((r) => setTimeout(r, 100));
      const refused = s.events.filter((e) => e.type === 'ptc/call-refused');
      expect(refused).toHaveLength(MAX_RECORDED_LATE_CALLS + 1);
      expect(refused.slice(0, -1).every((e) => e.toolName === 'echo' && e.count === undefined)).toBe(true);
      expect(refused.at(-1)).toMatchObject({ parentCallId: 'run_1', toolName: MORE_LATE_CALLS, count: 700, reason: expect.stringContaining('700 more') });
      const types = s.events.map((e) => e.type);
      expect(types.lastIndexOf('ptc/call-refused')).toBeLessThan(types.indexOf('ptc/run-end'));
      expect(s.instrumented.timeline).toEqual([]);
    });

    it('refuses and records a call a runner makes after the run ended', async () => {
      const s = runCodeHost(mode);
      opened.push(s.runCode);
      let leaked: GuestBridge | undefined;
      const inner = (modeOptions(mode).runner ?? undefined) as ProgramRunner | undefined;
      const base = inner ?? (await loadRealRunner(mode));
      const leaking: ProgramRunner = {
        run: async (request, bridge, signal) => {
          leaked = bridge;
          return base.run(request, bridge, signal);
        },
        close: () => base.close(),
      };
      const tool = createRunCodeTool({ runner: leaking, name: 'run_leaky' });
      s.host.register(tool);
      const r = await s.host.call({ id: 'leaky_1', name: 'run_leaky', args: { code: 'return 1;' } });
      expect(r.value).toMatchObject({ result: 1 });
      const late = await leaked!.call('echo', '{"text":"after"}');
      expect(late).toMatchObject({ ok: false, message: expect.stringContaining('refused') });
      expect(s.events.filter((e) => e.type === 'ptc/call-refused')).toEqual([expect.objectContaining({ parentCallId: 'leaky_1', toolName: 'echo' })]);
      expect(s.events.some((e) => e.type === 'tool/call' && e.toolName === 'echo')).toBe(false);
      await base.close();
    });
  });
});

async function loadRealRunner(mode: string): Promise<ProgramRunner> {
  const path = mode === 'process' ? '../runtime/sandbox-process/index.js' : '../runtime/isolate/index.js';
  const mod = (await import(path)) as Record<string, () => ProgramRunner>;
  return (mode === 'process' ? mod.createProcessRunner! : mod.createIsolateRunner!)();
}
