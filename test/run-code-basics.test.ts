import { afterAll, describe, expect, it, vi } from 'vitest';
import { modeOptions, runCodeHost, runnerModes } from './run-code-support.js';
import { createIsolateRunner, createRunCodeTool, MAX_PROGRAM_CHARS, type ProgramRunner, type RunCodeTool, type RunCodeValue } from '../runtime/index.js';
import { createToolHost, defineTool } from '../tools/index.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

describe.each(runnerModes())('run_code (%s)', (mode) => {
  const setup = (options: Parameters<typeof runCodeHost>[1] = {}) => {
    const s = runCodeHost(mode, options);
    opened.push(s.runCode);
    return s;
  };

  describe('when a program runs', () => {
    it('returns result, logs, calls and stats', async () => {
      const { run } = setup();
      const r = await run('const a = await tools.echo({ text: "hi" });\nconsole.log("got", a.echoed);\nreturn { a };');
      const v = r.value as unknown as RunCodeValue;
      expect(v.result).toEqual({ a: { echoed: 'hi' } });
      expect(v.logs).toEqual(['got hi']);
      expect(v.calls).toEqual([{ tool: 'echo', status: 'ok', ms: expect.any(Number), settlement: 'completed' }]);
      expect(v.stats.childResultBytes).toBe('{"echoed":"hi"}'.length);
      // The bytes of the text the model reads.
      expect(v.stats.returnedBytes).toBe(Buffer.byteLength((r.content[0] as { text: string }).text, 'utf8'));
    });

    it('keeps the calls list short but the counts complete', async () => {
      const { value } = setup();
      const v = await value('for (let i = 0; i < 120; i++) await tools.echo({ text: String(i) });\ntry { await tools.fail(); } catch {}\nreturn 1;');
      expect(v.calls).toHaveLength(50);
      expect(v.callsOmitted).toBe(71);
      expect(v.calls.at(-1)).toMatchObject({ tool: 'fail', status: 'error' });
      expect(v.stats.calls).toEqual({ total: 121, ok: 120, error: 1, denied: 0, refused: 0, interrupted: 0 });
    });

    it('returns syntax errors at the model’s lines when the type check is off', async () => {
      const { run } = setup({ typecheck: 'off' });
      const r = await run('```ts\nconst a = 1;\nconst b = ;\nreturn a;\n```');
      expect(r.value).toMatchObject({ rejected: expect.stringContaining('syntax'), reason: 'syntax', diagnostics: [{ line: 3, message: expect.any(String) }] });
    });

    it('names syntax errors as such when the type check finds them, not as type errors', async () => {
      const { run } = setup();
      const r = await run('const a = 1;\nconst b = ;\nreturn a;');
      expect(r.value).toEqual({ rejected: 'The program was not run: fix these syntax errors and call run_code again.', reason: 'syntax', diagnostics: [{ line: 2, column: 11, message: 'Expression expected.' }] });
      const many = await run(Array.from({ length: 60 }, (_, i) => `const x${i} = ;`).join('\n'));
      expect(many.value).toMatchObject({ reason: 'syntax', diagnostics: expect.arrayContaining([expect.objectContaining({ message: expect.stringMatching(/^… and \d+ more problems/) })]) });
    });

    it('refuses an overlong program before checking or running it', async () => {
      const { run, instrumented } = setup({ typecheck: 'off' });
      const r = await run(`return 1;\n//${'x'.repeat(MAX_PROGRAM_CHARS)}`);
      expect(r.value).toMatchObject({ rejected: expect.stringContaining('too long'), reason: 'too-long', diagnostics: [{ message: expect.stringContaining(String(MAX_PROGRAM_CHARS)) }] });
      expect(instrumented.timeline).toHaveLength(0);
    });

    it('accepts a fenced program wrapped in an async arrow', async () => {
      const { value } = setup();
      const v = await value('```ts\nasync () => {\n  return 1 + 1;\n}\n```');
      expect(v.result).toBe(2);
    });

    it('reports a throw as an error with the line in the model’s own code', async () => {
      const { run } = setup();
      const r = await run('```ts\ninterface A { x: number }\nconst a: A = { x: 1 };\nif (a.x === 1) {\n  throw new Error("bad x");\n}\nreturn a;\n```');
      expect(r.isError).toBe(true);
      expect(r.error?.message).toMatch(/threw at line 5: Error: bad x/);
    });

    it('returns type errors as the value without running the program', async () => {
      const { run, instrumented } = setup();
      const r = await run('await tools.echo({ text: 1 });\nreturn 1;');
      expect(r.isError).toBe(false);
      expect(r.value).toMatchObject({ rejected: 'The program was not run: fix these type errors and call run_code again.', reason: 'types', diagnostics: [{ line: 1, message: expect.any(String) }] });
      expect(instrumented.timeline).toHaveLength(0);
    });

    it('runs anyway and lists the problems with typecheck: warn', async () => {
      const { value } = setup({ typecheck: 'warn' });
      const v = await value('const x: number = "s";\nreturn x;');
      expect(v.result).toBe('s');
      expect(v.diagnostics).toEqual([{ line: 1, column: expect.any(Number), message: expect.stringContaining('string') }]);
    });

    it('describes the visible tools, but not itself, and follows the host’s tool set', () => {
      const { host, runCode } = setup();
      const schema = host.schemas().find((s) => s.name === 'run_code')!;
      expect(schema.description).toContain('echo');
      expect(schema.description).not.toMatch(/run_code\s*\(/);
      expect(runCode.description).toContain('declare const tools');
    });

    it('learns its host at registration, so the description lists the tools before the first run', () => {
      const host = createToolHost();
      host.register(defineTool({ name: 'lookup', description: 'Looks up.', execute: () => null }));
      const runCode = createRunCodeTool({ typecheck: 'off', ...modeOptions(mode) });
      opened.push(runCode);
      expect(runCode.description).not.toContain('lookup');
      host.register(runCode);
      expect(host.schemas().find((s) => s.name === 'run_code')!.description).toContain('lookup(');
    });

    it('regenerates the declarations when the host’s tool set changes', async () => {
      const { host, runCode, value } = setup();
      expect(runCode.description).not.toContain('weather');
      const registration = host.register(
        defineTool({ name: 'weather', description: 'Weather for a city.', parameters: { city: { type: 'string', required: true } }, output: { schema: { type: 'string' } }, execute: (a) => `sunny in ${a.city}` }),
      );
      expect(runCode.description).toContain('weather');
      expect((await value('return await tools.weather({ city: "Oslo" });')).result).toBe('sunny in Oslo');
      registration.dispose();
      expect(runCode.description).not.toContain('weather');
      const r = await value('return typeof (tools as any).weather;');
      expect(r.result).toBe('undefined');
    });

    it('never shows one run_code tool to another (no nested runs, no recursive descriptions)', async () => {
      const { host, runCode } = setup();
      const other = createRunCodeTool({ typecheck: 'off', name: 'run_code_2', host, ...modeOptions(mode) });
      opened.push(other);
      host.register(other);
      expect(runCode.description).not.toContain('run_code_2');
      expect(other.description).toContain('echo');
      const r = await host.call({ id: 'x', name: 'run_code_2', args: { code: 'return typeof tools.run_code;' } });
      expect(r.value).toMatchObject({ result: 'undefined' });
    });
  });
});

describe('when a runner does not stop after its run is aborted', () => {
  it('reports a crash instead of hanging, and still revokes the token', async () => {
    const { host, events } = runCodeHost('vm');
    const stuck: ProgramRunner = { run: () => new Promise(() => {}), close: async () => {} };
    host.register(createRunCodeTool({ runner: stuck, name: 'run_stuck', typecheck: 'off', limits: { wallMs: 50 } }));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // The run's clock starts with the run, after the program is compiled (in esbuild's process).
      const started = new Promise<void>((resolve) => host.onEvent((e) => e.type === 'ptc/run-start' && resolve()));
      const pending = host.call({ id: 's1', name: 'run_stuck', args: { code: 'return 1;' } });
      await started;
      await vi.advanceTimersByTimeAsync(10_000);
      const r = await pending;
      expect(r.isError).toBe(true);
      expect(r.error?.message).toContain('wallMs=50');
    } finally {
      vi.useRealTimers();
    }
    expect(events.filter((e) => e.type === 'ptc/run-end')).toEqual([expect.objectContaining({ callId: 's1', outcome: 'limit' })]);
  });
});

describe('when the runner is closed under a run', () => {
  it('tells the model the run was aborted because the runner closed, once', async () => {
    const { host, events } = runCodeHost('vm');
    const runner = createIsolateRunner({ poolSize: 0 });
    host.register(createRunCodeTool({ runner, name: 'run_closing', typecheck: 'off' }));
    const pending = host.call({ id: 'c1', name: 'run_closing', args: { code: 'await tools.wait({ ms: 10000 }); return 1;' } });
    // Close once the program is running (its call in flight), however long its start took.
    await vi.waitFor(() => expect(events.some((e) => e.type === 'tool/call' && e.toolName === 'wait')).toBe(true), { timeout: 30_000 });
    await runner.close();
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(r.error?.message).toMatch(/failed: The run was aborted: the runner was closed\./);
    expect(r.error?.message).not.toMatch(/aborted: The run was aborted/);
  });
});

describe('when a sandbox sends back hostile results', () => {
  const fakeRunner = (resultJson: string): ProgramRunner => ({ run: async () => ({ ok: true, resultJson, cpuMs: 0, wallMs: 0 }), close: async () => {} });

  it('reports a result that is not JSON as a crash, not a host exception', async () => {
    const { host } = runCodeHost('vm');
    host.register(createRunCodeTool({ runner: fakeRunner('{not json'), name: 'run_bad', typecheck: 'off' }));
    const r = await host.call({ id: 'b1', name: 'run_bad', args: { code: 'return 1;' } });
    expect(r.isError).toBe(true);
    expect(r.error?.message).toContain('not JSON');
  });

  it('refuses a __proto__ key in the result, naming its path, and pollutes nothing', async () => {
    const { host } = runCodeHost('vm');
    host.register(createRunCodeTool({ runner: fakeRunner('{"__proto__":{"polluted":true},"a":1}'), name: 'run_proto', typecheck: 'off' }));
    const r = await host.call({ id: 'p1', name: 'run_proto', args: { code: 'return 1;' } });
    expect(r.error).toMatchObject({ kind: 'invalid-output', message: expect.stringContaining('value.result.__proto__: a "__proto__" key is not accepted') });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
