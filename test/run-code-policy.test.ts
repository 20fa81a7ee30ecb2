import { afterAll, describe, expect, it } from 'vitest';
import { decision, type ApprovalChannel, type ToolExecution } from '../tools/index.js';
import type { RunCodeTool } from '../runtime/index.js';
import { runCodeHost, runnerModes } from './run-code-support.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

const CATCH = `
try {
  return { ok: await tools.echo({ text: "hi" }) };
} catch (e) {
  return { isToolCallError: e instanceof ToolCallError, name: e.name, toolName: e.toolName, message: e.message, keys: Object.keys(e) };
}`;

describe.each(runnerModes())('run_code policy path (%s)', (mode) => {
  const setup = (options: Parameters<typeof runCodeHost>[1] = {}) => {
    const s = runCodeHost(mode, options);
    opened.push(s.runCode);
    return s;
  };

  describe('when a guard denies a child call', () => {
    it('the program gets a ToolCallError saying it was denied, why, and that it is final', async () => {
      const s = setup();
      s.host.hooks.guard((e) => (e.toolName === 'echo' && e.origin.kind === 'ptc' ? 'no echoes from programs' : undefined));
      const v = await s.value(CATCH);
      expect(v.result).toEqual({
        isToolCallError: true,
        name: 'ToolCallError',
        toolName: 'echo',
        message: expect.stringMatching(/denied.*no echoes from programs.*final/),
        keys: expect.not.arrayContaining(['kind', 'denied', 'additionalContexts']),
      });
      expect(v.calls).toEqual([expect.objectContaining({ tool: 'echo', status: 'denied' })]);
    });
  });

  describe('when a listener asks for approval', () => {
    const asking = (approval?: ApprovalChannel, limits?: { wallMs: number }) => {
      const s = setup({ ...(approval ? { approval } : {}), ...(limits ? { limits } : {}) });
      s.host.hooks.preExecute((e) => (e.toolName === 'echo' ? decision.ask('echo needs a person') : undefined));
      return s;
    };

    it('runs the call once approved, while the program simply awaits', async () => {
      const requests: ToolExecution[] = [];
      const s = asking({ request: async ({ execution }) => (requests.push(execution), 'allow-once') });
      const v = await s.value(CATCH);
      expect(v.result).toEqual({ ok: { echoed: 'hi' } });
      expect(requests).toHaveLength(1);
      expect(requests[0]!.origin).toMatchObject({ kind: 'ptc', parentCallId: 'run_1' });
    });

    it('lets other calls continue while a parallel call waits for a person', async () => {
      let release!: () => void;
      const s = setup({ approval: { request: () => new Promise((r) => (release = () => r('allow-once'))) } });
      s.host.hooks.preExecute((e) => (e.toolName === 'wait' ? decision.ask('waiting needs a person') : undefined));
      const pending = s.value(`
        const asked = tools.wait({ ms: 1 });
        const others = [];
        for (let i = 0; i < 5; i++) others.push((await tools.echo({ text: String(i) })).echoed);
        return { others, waited: await asked };
      `);
      const echoes = () => s.events.filter((e) => e.type === 'tool/result' && e.toolName === 'echo').length;
      for (let i = 0; i < 500 && echoes() < 5; i++) await new Promise((r) => setTimeout(r, 10));
      expect(echoes()).toBe(5);
      expect(s.events.some((e) => e.type === 'tool/result' && e.toolName === 'wait')).toBe(false);
      release();
      expect((await pending).result).toEqual({ others: ['0', '1', '2', '3', '4'], waited: 1 });
    });

    it('holds back siblings while an exclusive call waits for a person (it is a barrier)', async () => {
      let release!: () => void;
      const s = setup({ approval: { request: () => new Promise((r) => (release = () => r('allow-once'))) } });
      s.host.hooks.preExecute((e) => (e.toolName === 'secret' ? decision.ask('secrets need a person') : undefined));
      const pending = s.value('const asked = tools.secret();\nconst other = tools.echo({ text: "after" });\nreturn [(await asked).value, (await other).echoed];');
      for (let i = 0; i < 500 && !s.events.some((e) => e.type === 'tool/decision' && e.toolName === 'secret'); i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 50));
      expect(s.events.some((e) => e.type === 'tool/call' && e.toolName === 'echo')).toBe(false);
      release();
      expect((await pending).result).toEqual(['the real secret', 'after']);
    });

    it('refuses the call when the approver denies it', async () => {
      const s = asking({ request: async () => 'deny' });
      const v = await s.value(CATCH);
      expect(v.result).toMatchObject({ isToolCallError: true, message: expect.stringMatching(/denied by the approver.*final/) });
      expect((await s.value('return await tools.secret();')).result).toEqual({ value: 'the real secret' });
    });

    it('fails closed as unavailable without an approval channel', async () => {
      const s = asking();
      const v = await s.value(CATCH);
      expect(v.result).toMatchObject({ isToolCallError: true, message: expect.stringContaining('unavailable') });
    });

    it('does not count the wait for a person against the run’s wall clock', async () => {
      const s = asking({ request: () => new Promise((r) => setTimeout(() => r('allow-once'), 1_500)) }, { wallMs: 1_000 });
      await s.value('return 0;'); // a cold sandbox process starts within the first run's wall clock
      const v = await s.value(CATCH);
      expect(v.result).toEqual({ ok: { echoed: 'hi' } });
      expect(v.stats.approvalWaitMs).toBeGreaterThan(1_000);
    });
  });

  describe('when post-execute policy acts', () => {
    it('the program reads a replace-value, and a replace-content changes nothing for it', async () => {
      const s = setup();
      s.host.hooks.postExecute((e) => (e.toolName === 'secret' ? { type: 'replace-content', content: [{ type: 'text', text: 'shown to the model only' }] } : undefined));
      const first = await s.value('return await tools.secret();');
      expect(first.result).toEqual({ value: 'the real secret' });
      s.host.hooks.postExecute((e) => (e.toolName === 'secret' ? { type: 'replace-value', value: { value: '[redacted]' }, additionalContext: 'not for programs' } : undefined));
      const second = await s.value('return await tools.secret();');
      expect(second.result).toEqual({ value: '[redacted]' });
      expect(JSON.stringify(second)).not.toContain('not for programs');
    });

    it('a block is a ToolCallError in the program', async () => {
      const s = setup();
      s.host.hooks.postExecute((e) => (e.toolName === 'echo' ? { type: 'block', reason: 'echoes are classified' } : undefined));
      const v = await s.value(CATCH);
      expect(v.result).toMatchObject({ isToolCallError: true, toolName: 'echo', message: expect.stringContaining('echoes are classified') });
    });

    it('a tool’s own failure text reaches the program', async () => {
      const s = setup();
      const v = await s.value('try { await tools.fail(); return "no"; } catch (e) { return [e instanceof ToolCallError, e.message]; }');
      expect(v.result).toEqual([true, expect.stringContaining('disk on fire')]);
    });
  });

  describe('when the trace is read', () => {
    it('records ptc-dispatch with only pair id, tool name and args, before the child’s policy', async () => {
      const s = setup();
      await s.value('await tools.echo({ text: "x" }); return null;');
      const dispatch = s.events.find((e) => e.type === 'tool/ptc-dispatch')!;
      expect(Object.keys(dispatch).sort()).toEqual(['args', 'pairId', 'seq', 'time', 'toolName', 'type']);
      expect(dispatch).toMatchObject({ toolName: 'echo', args: { text: 'x' } });
      const childCall = s.events.find((e) => e.type === 'tool/call' && e.toolName === 'echo')!;
      const childDecision = s.events.find((e) => e.type === 'tool/decision' && e.toolName === 'echo')!;
      expect(dispatch.seq).toBeLessThan(childCall.seq);
      expect(dispatch.seq).toBeLessThan(childDecision.seq);
      expect(childCall).toMatchObject({ callId: (dispatch as { pairId: string }).pairId, origin: { kind: 'ptc', parentCallId: 'run_1', tokenId: expect.any(String) } });
      const types = s.events.map((e) => e.type);
      expect(types.indexOf('ptc/run-start')).toBeLessThan(types.indexOf('tool/ptc-dispatch'));
      const childResult = s.events.findIndex((e) => e.type === 'tool/result' && e.toolName === 'echo');
      expect(types.indexOf('ptc/run-end')).toBeGreaterThan(childResult);
      expect(types.indexOf('ptc/run-end')).toBeLessThan(types.lastIndexOf('tool/result'));
    });

    it('gives children the run token, which the program can never see', async () => {
      const s = setup({ typecheck: 'off' });
      const origins: ToolExecution['origin'][] = [];
      s.host.hooks.preExecute((e) => {
        origins.push(e.origin);
        return undefined;
      });
      const v = await s.value(`
        await tools.echo({ text: "a" });
        const seen = [];
        const walk = (o, depth) => {
          if (depth > 3 || o === null || (typeof o !== 'object' && typeof o !== 'function')) return;
          for (const k of Object.getOwnPropertyNames(o)) {
            let x; try { x = o[k]; } catch { continue; }
            if (typeof x === 'string') seen.push(x);
            walk(x, depth + 1);
          }
        };
        walk(globalThis, 0);
        walk(tools, 0);
        console.log(Object.getOwnPropertyNames(globalThis).join(','));
        return seen;
      `);
      const childOrigins = origins.filter((o) => o.kind === 'ptc');
      expect(childOrigins).toHaveLength(1);
      const token = (childOrigins[0] as { token: string }).token;
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(JSON.stringify(v)).not.toContain(token);
      expect(JSON.stringify(s.events)).not.toContain(token);
    });
  });
});
