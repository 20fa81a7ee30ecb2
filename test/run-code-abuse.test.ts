import { afterAll, describe, expect, it } from 'vitest';
import type { RunCodeTool } from '../runtime/index.js';
import { runCodeHost, runnerModes } from './run-code-support.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

describe.each(runnerModes())('run_code bridge abuse (%s)', (mode) => {
  const setup = () => {
    const s = runCodeHost(mode, { typecheck: 'off' });
    opened.push(s.runCode);
    return s;
  };
  const healthy = async (s: ReturnType<typeof setup>) => {
    expect((await s.value('return (await tools.echo({ text: "still fine" })).echoed;')).result).toBe('still fine');
  };
  const caught = (expr: string) => `try { await ${expr}; return "no error"; } catch (e) { return [e instanceof ToolCallError, String(e && e.message)]; }`;

  describe('when arguments cannot be copied', () => {
    it.each([
      ['a function', 'tools.echo({ text: () => 1 })'],
      ['a symbol', 'tools.echo({ text: Symbol("s") })'],
      ['a BigInt', 'tools.echo({ text: 10n })'],
      ['a cycle', '(() => { const a = { text: "x" }; a.self = a; return tools.echo(a); })()'],
      ['a throwing proxy', 'tools.echo(new Proxy({}, { ownKeys() { throw new Error("trap"); }, get() { throw new Error("trap"); } }))'],
      ['a Map', 'tools.echo({ text: new Map() })'],
    ])('%s is a ToolCallError in the program, never a host exception', async (_label, expr) => {
      const s = setup();
      const v = await s.value(caught(expr));
      expect(v.result).toEqual([true, expect.any(String)]);
      expect(s.events.some((e) => e.type === 'tool/call' && e.toolName === 'echo')).toBe(false);
      await healthy(s);
    });

    it('sends a Date only as its JSON text, never as a Date', async () => {
      const s = setup();
      let seen: unknown;
      s.host.hooks.preExecute((e) => {
        if (e.toolName === 'echo') seen = e.args;
        return undefined;
      });
      const v = await s.value('const r = await tools.echo({ text: new Date(0) }); return [typeof r.echoed, r.echoed];');
      expect(v.result).toEqual(['string', '1970-01-01T00:00:00.000Z']);
      expect(seen).toEqual({ text: '1970-01-01T00:00:00.000Z' });
    });

    it('runs a getter with side effects inside the isolate only, once, and the host gets plain data', async () => {
      const s = setup();
      let seen: unknown;
      s.host.hooks.preExecute((e) => {
        if (e.toolName === 'echo') seen = e.args;
        return undefined;
      });
      const v = await s.value(`
        let reads = 0;
        const args = { get text() { reads++; return "g" + reads; } };
        const r = await tools.echo(args);
        return [r.echoed, reads];
      `);
      // The getter ran once, in the isolate, while the arguments were converted to JSON text.
      expect(v.result).toEqual(['g1', 1]);
      // The host received a copy: a data property holding the value the getter returned then.
      expect(Object.getOwnPropertyDescriptor(seen as object, 'text')).toEqual({ value: 'g1', writable: false, enumerable: true, configurable: false });
      await healthy(s);
    });
  });

  describe('when arguments or the result carry a toJSON', () => {
    it('refuses a toJSON in the arguments as not JSON, naming its path, without calling it', async () => {
      const s = setup();
      const v = await s.value(`
        let called = 0;
        const forged = () => { called++; return { text: "forged" }; };
        const out = [];
        for (const args of [{ text: "x", toJSON: forged }, { text: "x", nested: [{ toJSON: forged }] }, new (class Args { constructor() { this.text = "x"; } toJSON() { return forged(); } })()]) {
          try { await tools.echo(args); out.push("sent"); } catch (e) { out.push(e instanceof ToolCallError ? e.message : "other"); }
        }
        return { out, called };
      `);
      const { out, called } = v.result as { out: string[]; called: number };
      expect(called).toBe(0);
      expect(out[0]).toMatch(/^Arguments of tools\.echo cannot be sent: args\.toJSON is a function\./);
      expect(out[1]).toMatch(/args\.nested\[0\]\.toJSON is a function/);
      expect(out[2]).toMatch(/args has a toJSON method, and functions are not JSON/);
      expect(s.events.some((e) => e.type === 'tool/call' && e.toolName === 'echo')).toBe(false);
      await healthy(s);
    });

    it('refuses a returned value with a toJSON, naming its path', async () => {
      const s = setup();
      const r = await s.run('return { rows: [1, 2], total: { toJSON() { return 3; } } };');
      expect(r.isError).toBe(true);
      expect(r.error?.message).toContain('The returned value cannot be converted to JSON: result.total.toJSON is a function');
      await healthy(s);
    });
  });

  describe('when keys try to pollute prototypes', () => {
    it('refuses __proto__ and constructor.prototype keys as a ToolCallError, polluting neither the host nor the program', async () => {
      const s = setup();
      const v = await s.value(`
        const args = JSON.parse('{"text":"a","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
        let message = "";
        try { await tools.echo(args); } catch (e) { message = e.message; }
        return { message, pollutedHere: ({}).polluted === true };
      `);
      expect(v.result).toMatchObject({ message: expect.stringContaining('args.__proto__: a "__proto__" key is not accepted'), pollutedHere: false });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
      await healthy(s);
    });

    it('treats tools.constructor, tools.__proto__ and inherited names as absent', async () => {
      const s = setup();
      const v = await s.value(`
        return [typeof tools.constructor, Object.getPrototypeOf(tools), Object.isFrozen(tools), Object.keys(tools).sort(), typeof tools.hasOwnProperty];
      `);
      expect(v.result).toEqual(['undefined', null, true, ['echo', 'fail', 'secret', 'wait', 'write'], 'undefined']);
    });
  });

  describe('when the program plays with promises and builtins', () => {
    it('resolves a thenable the program awaits or returns', async () => {
      const s = setup();
      const v = await s.value(`
        const t = { then(resolve) { resolve(tools.echo({ text: "via thenable" })); } };
        const r = await t;
        return { then: undefined, echoed: r.echoed };
      `);
      expect(v.result).toEqual({ echoed: 'via thenable' });
    });

    it('refuses a thenable as an argument instead of awaiting it', async () => {
      const s = setup();
      const v = await s.value(caught('tools.echo({ text: "x", then(r) { r(1); } })'));
      expect(v.result).toEqual([true, expect.any(String)]);
      await healthy(s);
    });

    it('keeps the bridge working when the program monkey-patches Promise, JSON, Object, Array and Function', async () => {
      const s = setup();
      const r = await s.run(`
        const realThen = Promise.prototype.then;
        Function.prototype.call = function () { throw new Error("no call"); };
        Function.prototype.apply = function () { throw new Error("no apply"); };
        Array.prototype[Symbol.iterator] = function () { throw new Error("no iteration"); };
        JSON.stringify = () => '{"text":"hijacked"}';
        JSON.parse = () => ({ echoed: "forged" });
        Object.prototype.toJSON = function () { return "forged"; };
        Object.defineProperty(Object.prototype, "then", { get() { return undefined; }, configurable: true });
        Object.keys = () => [];
        Object.freeze = (x) => x;
        Array.prototype.push = function () { throw new Error("no push"); };
        Promise.prototype.then = function (a, b) { return realThen.call(this, a, b); };
        globalThis.Promise = function () { throw new Error("no promises"); };
        const a = await tools.echo({ text: "real" });
        return a.echoed;
      `);
      expect(r.error).toBeUndefined();
      expect(r.value).toMatchObject({ result: 'real' });
      expect(s.events.filter((e) => e.type === 'tool/ptc-dispatch').map((e) => (e as { args: unknown }).args)).toEqual([{ text: 'real' }]);
      await healthy(s);
    });

    it('never lets the program reach the host through constructor chains or stack hooks', async () => {
      const s = setup();
      const v = await s.value(`
        const found = [];
        try { const F = tools.echo.constructor; const g = F("return globalThis")(); found.push(typeof g.process, typeof g.require); } catch (e) { found.push("ctor:" + e.name); }
        try { Error.prepareStackTrace = (e, frames) => frames.map((f) => typeof f.getThis() + ":" + typeof f.getFunction()); found.push(String(new Error("x").stack)); } catch (e) { found.push("pst:" + e.name); }
        try { const r = await tools.echo({ text: "v" }); found.push(typeof r.constructor.constructor("return process")()); } catch (e) { found.push("val:" + e.name); }
        found.push(typeof this, typeof process, typeof require, typeof fetch, typeof setTimeout, typeof WebAssembly, typeof SharedArrayBuffer);
        return found;
      `);
      const found = v.result as string[];
      // Constructor chains reach only the isolate's own Function: no process, no require.
      expect(found.slice(0, 2)).toEqual(['undefined', 'undefined']);
      // A stack hook sees the program's own frame at most; every frame below it hides this and its function.
      const frames = found[2]!.split(',');
      expect(frames.slice(1).every((f) => f === 'undefined:undefined')).toBe(true);
      // No host globals.
      expect(found.slice(-6)).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
      await healthy(s);
    });
  });
});
