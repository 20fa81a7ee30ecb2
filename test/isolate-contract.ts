/**
 * Behaviour every ProgramRunner must have, whatever the isolation: the guest surface, escape
 * attempts, resource attacks, argument caps. Each test is followed by a check that the host and
 * the runner are healthy (the next run works). Registered by the isolate and sandbox tests.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ProgramRunner } from '../runtime/program-runner.js';
import { assertHealthy, echoBridge, failureOf, runProgram, testLimits, TOOL_NAMES } from './isolate-harness.js';

const ALLOWED_GLOBALS = [
  'Object', 'Function', 'Array', 'Number', 'parseFloat', 'parseInt', 'Infinity', 'NaN', 'undefined', 'Boolean',
  'String', 'Symbol', 'Date', 'Promise', 'RegExp', 'Error', 'AggregateError', 'EvalError', 'RangeError',
  'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'globalThis', 'JSON', 'Math', 'Intl', 'ArrayBuffer',
  'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array', 'Float32Array',
  'Float64Array', 'Uint8ClampedArray', 'BigUint64Array', 'BigInt64Array', 'DataView', 'Map', 'BigInt', 'Set',
  'WeakMap', 'WeakSet', 'Proxy', 'Reflect', 'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent',
  'escape', 'unescape', 'eval', 'isFinite', 'isNaN', 'console', 'ToolCallError', 'tools', 'sleep',
];

/** How a runner differs where the contract allows it. */
export interface RunnerTraits {
  /**
   * Guest code runs on the caller's thread (the in-process runner): an abort that arrives while
   * the program computes takes effect when its slice ends, at the latest when cpuMs runs out.
   */
  readonly computesOnCallerThread?: boolean;
}

/** Registers the shared runner behaviour under `label`. */
export function describeRunnerContract(label: string, makeRunner: () => ProgramRunner, traits: RunnerTraits = {}): void {
  describe(label, () => {
    const runner = makeRunner();
    afterEach(async () => {
      await assertHealthy(runner);
    });
    afterAll(() => runner.close());

    it('stops runs in progress when the runner closes, saying so', async () => {
      const closing = makeRunner();
      // Waiting for a tool; and (where the program does not compute on this thread) computing.
      const programs = ['await tools.wait({ ms: 10000 });', ...(traits.computesOnCallerThread ? [] : ['await tools.echo({}); for (;;) {}'])];
      const started = programs.map((js) => {
        const { bridge, record } = echoBridge();
        const outcome = closing.run({ js, toolNames: TOOL_NAMES, limits: testLimits({ cpuMs: 20_000 }) }, bridge, new AbortController().signal);
        return { outcome, record };
      });
      while (started.some(({ record }) => record.calls.length === 0)) await new Promise((r) => setTimeout(r, 10));
      await closing.close();
      for (const { outcome } of started) {
        const o = await outcome;
        expect(o.ok ? 'ok' : o.failure).toEqual({ kind: 'aborted', message: 'The run was aborted: the runner was closed.' });
      }
    });

    describe('when a program runs normally', () => {
      it('returns the JSON value of its return statement, null for undefined', async () => {
        expect((await runProgram(runner, 'return { a: [1, "two", true, null] };')).value).toEqual({ a: [1, 'two', true, null] });
        const { outcome } = await runProgram(runner, 'const x = 1;');
        expect(outcome.ok && outcome.resultJson).toBe('null');
      });

      it('captures console lines with their level, in order', async () => {
        const { record } = await runProgram(runner, 'console.log("a", 1, { b: [2] }); console.warn("w"); console.error(new Error("e").message); console.debug(undefined, null);');
        expect(record.logs).toEqual([
          { level: 'log', text: 'a 1 {"b":[2]}' },
          { level: 'warn', text: 'w' },
          { level: 'error', text: 'e' },
          { level: 'debug', text: 'undefined null' },
        ]);
      });

      it('overlaps calls awaited together with Promise.all', async () => {
        const { value, record } = await runProgram(runner, 'const r = await Promise.all(Array.from({ length: 40 }, (_, i) => tools.wait({ ms: 30, i }))); return r.map((x) => x.i).reduce((a, b) => a + b, 0);');
        expect(value).toBe((39 * 40) / 2);
        expect(record.maxInFlight).toBeGreaterThan(1);
      });

      it('rejects a failed call with a guest ToolCallError exposing only name, toolName and message', async () => {
        const { value } = await runProgram(runner, `
          try { await tools.fail({ message: 'no such file' }); return 'not thrown'; }
          catch (e) { return { isToolCallError: e instanceof ToolCallError, isError: e instanceof Error, name: e.name, toolName: e.toolName, message: e.message, keys: Object.keys(e) }; }`);
        expect(value).toEqual({ isToolCallError: true, isError: true, name: 'ToolCallError', toolName: 'fail', message: 'no such file', keys: ['toolName'] });
      });

      it('reports a thrown error with its message and the line and column in the program', async () => {
        const f = failureOf((await runProgram(runner, 'const a = 1;\n\n  throw new TypeError("bad " + a);')).outcome);
        expect(f).toEqual({ kind: 'thrown', message: 'TypeError: bad 1', line: 3, column: 9 });
        const shifted = failureOf((await runProgram(runner, '// prelude\nnull.x;', { lineOffset: 1 })).outcome);
        expect(shifted).toMatchObject({ kind: 'thrown', line: 1 });
      });

      it('reports an uncaught ToolCallError at the line of the call that failed', async () => {
        const f = failureOf((await runProgram(runner, 'const a = await tools.echo({});\nconst b = 2;\n  await tools.fail({ message: "gone" });')).outcome);
        expect(f).toEqual({ kind: 'thrown', message: 'ToolCallError: gone', line: 3, column: 15 });
        const refused = failureOf((await runProgram(runner, '\nawait tools.echo({ f() {} });')).outcome);
        expect(refused).toMatchObject({ kind: 'thrown', line: 2 });
        // A tool named more than once (here also in a comment) is located by its call site.
        const twice = failureOf((await runProgram(runner, '// tools.fail\ntry { await tools.fail({ message: "a" }); } catch {}\nconst f = tools.fail;\n\n await f({ message: "b" });')).outcome);
        expect(twice).toEqual({ kind: 'thrown', message: 'ToolCallError: b', line: 5, column: 8 });
        const bracketed = failureOf((await runProgram(runner, 'const x = 1;\n  await tools["fail"]({ message: "c" });')).outcome);
        expect(bracketed).toMatchObject({ kind: 'thrown', message: 'ToolCallError: c', line: 2 });
      });

      it('keeps running past a promise rejection the program leaves unhandled, with a warning in its logs', async () => {
        const { value, record } = await runProgram(runner, 'Promise.reject(new Error("nobody awaits me")); const r = await tools.echo({ n: 1 }); return r.n;');
        expect(value).toBe(1);
        expect(record.logs).toEqual([{ level: 'warn', text: 'Unhandled promise rejection: nobody awaits me' }]);
      });

      it('words an unhandled rejection whose reason cannot be read, instead of isolated-vm\'s internal text', async () => {
        const { value, record } = await runProgram(runner, 'Promise.reject({ get message() { throw new Error("no"); }, get name() { throw 1; }, toString() { throw 2; } }); const r = await tools.echo({ n: 1 }); return r.n;');
        expect(value).toBe(1);
        expect(record.logs).toEqual([{ level: 'warn', text: 'Unhandled promise rejection: a value whose message could not be read' }]);
      });

      it('does not count a failed call the program never awaited as an unhandled rejection', async () => {
        const { value, record } = await runProgram(runner, 'tools.fail({ message: "ignored" }); await tools.wait({ ms: 20 }); return 2;');
        expect(value).toBe(2);
        expect(record.calls.map((c) => c.name)).toEqual(['fail', 'wait']);
        expect(record.logs).toEqual([]);
      });

      it('reports thrown non-errors readably', async () => {
        expect(failureOf((await runProgram(runner, 'throw "plain";')).outcome)).toMatchObject({ kind: 'thrown', message: 'plain' });
        expect(failureOf((await runProgram(runner, 'throw { code: 7 };')).outcome)).toMatchObject({ kind: 'thrown', message: 'Uncaught {"code":7}' });
        // Values JSON would turn into null (or nothing) are named as they are.
        const thrown = [
          ['throw undefined;', 'Uncaught undefined'],
          ['return Promise.reject();', 'Uncaught undefined'],
          ['throw null;', 'Uncaught null'],
          ['throw NaN;', 'Uncaught NaN'],
          ['throw -Infinity;', 'Uncaught -Infinity'],
          ['throw 10n;', 'Uncaught 10n'],
          ['throw Symbol("s");', 'Uncaught Symbol(s)'],
          ['throw 3;', 'Uncaught 3'],
        ];
        for (const [js, message] of thrown) expect(failureOf((await runProgram(runner, js!)).outcome)).toMatchObject({ kind: 'thrown', message });
      });

      it('reports a syntax error with its line, and never runs a body that closes the wrapper', async () => {
        const f = failureOf((await runProgram(runner, 'const ok = 1;\nlet x = ;')).outcome);
        expect(f).toMatchObject({ kind: 'thrown', line: 2 });
        expect(f.kind === 'thrown' && f.message).toMatch(/SyntaxError/);
        const injected = await runProgram(runner, '}); tools.echo({ injected: true }); (async function () {');
        expect(failureOf(injected.outcome)).toMatchObject({ kind: 'thrown' });
        expect(injected.record.calls).toEqual([]);
      });

      it('ends a program that awaits a promise nothing will settle, instead of hanging', async () => {
        const f = failureOf((await runProgram(runner, 'await tools.echo({}); await new Promise(() => {}); return 1;')).outcome);
        expect(f).toMatchObject({ kind: 'thrown', message: expect.stringMatching(/can never finish/) });
        expect((await runProgram(runner, 'await new Promise(() => {});')).outcome.ok).toBe(false);
      });

      it('passes sleep to the bridge as a call to its reserved name, outside maxCalls, and waits for its outcome', async () => {
        const { outcome, value, record } = await runProgram(runner, 'await Promise.all(Array.from({ length: 50 }, () => sleep(5)));\nawait sleep(20);\nreturn (await tools.echo({ n: 1 })).n;', { limits: { maxCalls: 1 } });
        expect(outcome.ok).toBe(true);
        expect(value).toBe(1);
        expect(record.calls.map((c) => c.name)).toEqual([...Array.from({ length: 51 }, () => '#sleep'), 'echo']);
        expect(record.calls[0]!.argsJson).toBe('{"ms":5}');
      });

      it('gives each run a fresh global scope', async () => {
        await runProgram(runner, 'globalThis.leftover = 1; Object.prototype.polluted = 1; Array.prototype.push = null;');
        expect((await runProgram(runner, 'return [typeof leftover, ({}).polluted === undefined, typeof [].push];')).value).toEqual(['undefined', true, 'function']);
      });
    });

    describe('when a program tries to reach the host', () => {
      it('sees only the allowed globals, and none of require, process, fetch, timers, WebAssembly, SharedArrayBuffer, Atomics', async () => {
        const { value } = await runProgram(runner, `return {
          names: Object.getOwnPropertyNames(globalThis).concat(Object.getOwnPropertySymbols(globalThis).map(String)),
          enumerable: Object.keys(globalThis),
          thisNames: Object.getOwnPropertyNames(this).length,
          types: [typeof require, typeof process, typeof fetch, typeof setTimeout, typeof setInterval, typeof queueMicrotask,
                  typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics, typeof module, typeof Buffer, typeof global],
        };`);
        const v = value as { names: string[]; enumerable: string[]; thisNames: number; types: string[] };
        expect(v.names.filter((n) => !ALLOWED_GLOBALS.includes(n))).toEqual([]);
        expect(v.enumerable).toEqual([]);
        expect(v.thisNames).toBe(v.names.length);
        expect(new Set(v.types)).toEqual(new Set(['undefined']));
      });

      it('cannot grow a resizable ArrayBuffer (it would grow outside memoryMb)', async () => {
        const { value } = await runProgram(runner, `
          const b = new ArrayBuffer(8, { maxByteLength: 2 ** 30 });
          return { resizable: b.resizable, resize: typeof b.resize, bytes: b.byteLength };`);
        expect(value).toEqual({ resizable: true, resize: 'undefined', bytes: 8 });
      });

      it('exposes tools as a frozen null-prototype object with exactly the visible tools', async () => {
        const { value } = await runProgram(runner, `
          'use strict';
          let assigned;
          try { tools.extra = 1; assigned = true; } catch { assigned = false; }
          return { keys: Object.keys(tools), proto: Object.getPrototypeOf(tools), ctor: typeof tools.constructor,
                   dunder: typeof tools.__proto__, frozen: Object.isFrozen(tools), assigned, hasOwn: typeof tools.hasOwnProperty };`);
        expect(value).toEqual({ keys: [...TOOL_NAMES], proto: null, ctor: 'undefined', dunder: 'undefined', frozen: true, assigned: false, hasOwn: 'undefined' });
        const unknown = await runProgram(runner, 'return typeof tools.constructor', { toolNames: ['constructor'] });
        expect(unknown.value).toBe('function');
      });

      it('reaches only the isolate through constructor chains from tools, results and errors', async () => {
        const { value } = await runProgram(runner, `
          const viaTool = tools.echo.constructor('return typeof process + typeof require')();
          const viaAsync = await (async () => {}).constructor('return typeof process')();
          const r = await tools.echo({ a: {} });
          const viaResult = r.constructor.constructor('return [typeof process, Object.getOwnPropertyNames(globalThis).includes("tools")]')();
          let viaError;
          try { await tools.fail({}); } catch (e) { viaError = e.constructor.constructor.constructor('return typeof process')(); }
          const protoOfResult = Object.getPrototypeOf(r.a) === Object.prototype;
          return { viaTool, viaAsync, viaResult, viaError, protoOfResult, evalProcess: eval('typeof process') };`);
        expect(value).toEqual({ viaTool: 'undefinedundefined', viaAsync: 'undefined', viaResult: ['undefined', true], viaError: 'undefined', protoOfResult: true, evalProcess: 'undefined' });
      });

      it('keeps __proto__ and constructor keys of results as plain data', async () => {
        const { value } = await runProgram(runner, `
          const r = await tools.leak({});
          return { own: Object.keys(r), polluted: ({}).polluted, protoIsObject: Object.getPrototypeOf(r) === Object.prototype };`);
        expect(value).toEqual({ own: ['__proto__', 'constructor', 'fn'], polluted: undefined, protoIsObject: true });
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });

      it('shows Error.prepareStackTrace no host object and no bootstrap function or receiver', async () => {
        const { value } = await runProgram(runner, `
          const seen = [];
          Error.prepareStackTrace = (err, frames) => {
            for (const f of frames) seen.push({ fn: typeof f.getFunction(), self: typeof f.getThis(), file: String(f.getScriptNameOrSourceURL()), name: String(f.getFunctionName()) });
            return 'hooked';
          };
          const hostile = { toJSON() { throw new Error('from toJSON'); } };
          try { await tools.echo(hostile); } catch (e) { String(e.message); }
          try { await tools.echo({ get x() { return new Error('getter').stack; } }); } catch {}
          console.log({ toJSON() { return new Error('in console').stack; } });
          try { await tools.fail({}); } catch (e) { e.stack; }
          const bootstrapFrames = seen.filter((f) => !f.file.includes('ptc-program'));
          return { exposed: bootstrapFrames.filter((f) => f.fn !== 'undefined' || f.self !== 'undefined'), bootstrap: bootstrapFrames.length, count: seen.length };`);
        const v = value as { exposed: unknown[]; bootstrap: number; count: number };
        expect(v.bootstrap).toBeGreaterThan(0);
        expect(v.exposed).toEqual([]);
      });

      it('shows a `then` getter on Object.prototype, read as a result is delivered, no guest object as a receiver', async () => {
        const { value } = await runProgram(runner, `
          const seen = [];
          Error.prepareStackTrace = (err, frames) => {
            for (const f of frames) if (!String(f.getScriptNameOrSourceURL()).includes('ptc-program')) seen.push({ self: f.getThis(), fn: f.getFunction() });
            return 'hooked';
          };
          Object.defineProperty(Object.prototype, 'then', { configurable: true, get() { new Error().stack; return undefined; } });
          const r = await tools.echo({ a: 1 });
          delete Object.prototype.then;
          Error.prepareStackTrace = undefined;
          const receivers = seen.filter((f) => f.self !== undefined).map((f) => Reflect.ownKeys(Object(f.self)).map(String).join(','));
          return { a: r.a, frames: seen.length, receivers };`);
        const v = value as { a: number; frames: number; receivers: string[] };
        expect(v.a).toBe(1);
        expect(v.frames).toBeGreaterThan(0);
        expect(v.receivers).toEqual([]);
      });

      it('keeps working when the program monkey-patches JSON, Object, Array, Promise and Reflect', async () => {
        const { value, record } = await runProgram(runner, `
          for (const k of ['reference', 'copy', 'externalCopy', 'promise', 'result', 'arguments', 'timeout', 'release', 'transferIn']) {
            Object.defineProperty(Object.prototype, k, { get() { globalThis.hit = (globalThis.hit || 0) + 1; return true; }, configurable: true });
          }
          Object.defineProperty(Array.prototype, '0', { set(v) { globalThis.stolen = v; }, configurable: true });
          JSON.stringify = () => '"patched"'; JSON.parse = () => 'patched';
          Object.keys = () => []; Object.freeze = (o) => o; Reflect.apply = () => 'patched';
          Promise.prototype.then = function () { throw new Error('patched then'); };
          try { Object.defineProperty(Promise.prototype, 'constructor', { get() { throw new Error('species'); } }); } catch {}
          try { Object.defineProperty(Promise, Symbol.species, { get() { throw new Error('species'); } }); } catch {}
          const r = await tools.echo({ a: 1, list: [1, 2] });
          return { r, hit: globalThis.hit ?? 0, stolen: typeof globalThis.stolen };`);
        expect(value).toEqual({ r: { a: 1, list: [1, 2] }, hit: 0, stolen: 'undefined' });
        expect(record.calls).toEqual([{ name: 'echo', argsJson: '{"a":1,"list":[1,2]}' }]);
      });

      it('never runs a call the program made after its run ended', async () => {
        const { value, record } = await runProgram(runner, 'tools.wait({ ms: 30 }).then(() => tools.echo({ late: true })); return 1;');
        expect(value).toBe(1);
        await new Promise((r) => setTimeout(r, 120));
        expect(record.calls.map((c) => c.name)).toEqual(['wait']);
      });
    });

    describe('when arguments cannot cross', () => {
      const refused = async (expr: string) => {
        const { value, record } = await runProgram(runner, `try { await tools.echo(${expr}); return 'sent'; } catch (e) { return [e instanceof ToolCallError, e.toolName, e.message]; }`);
        const [isToolCallError, toolName, message] = value as [boolean, string, string];
        expect(isToolCallError).toBe(true);
        expect(toolName).toBe('echo');
        expect(record.calls).toEqual([]);
        return message;
      };

      it('refuses functions, symbols, BigInt, cycles, Maps and Promises with the path', async () => {
        expect(await refused('{ cb: () => 1 }')).toMatch(/args\.cb is a function/);
        expect(await refused('{ s: Symbol("x") }')).toMatch(/args\.s is a symbol/);
        expect(await refused('{ n: [1, 2n] }')).toMatch(/args\.n\[1\] is a BigInt/);
        expect(await refused('(() => { const a = { b: {} }; a.b.a = a; return a; })()')).toMatch(/args\.b\.a is a cycle/);
        expect(await refused('{ m: new Map() }')).toMatch(/args\.m is a Map/);
        expect(await refused('{ p: Promise.resolve(1) }')).toMatch(/Promise \(did you forget await\?\)/);
        expect(await refused('{ b: new Uint8Array(2) }')).toMatch(/binary data/);
      });

      it('refuses getters and proxies that throw, as a ToolCallError', async () => {
        expect(await refused('{ get x() { throw new Error("getter boom"); } }')).toMatch(/getter boom/);
        expect(await refused('new Proxy({}, { ownKeys() { throw new Error("trap boom"); } })')).toMatch(/trap boom/);
        expect(await refused('new Proxy(new (class K {})(), { getOwnPropertyDescriptor() { throw new Error("trap boom"); } })')).toMatch(/args threw while reading toJSON: Error: trap boom/);
      });

      it('refuses a toJSON anywhere in the arguments, naming its path, and never calls it', async () => {
        const called = async (expr: string) => {
          const { value, record } = await runProgram(runner, `let called = 0;\ntry { await tools.echo(${expr}); return 'sent'; } catch (e) { return [e instanceof ToolCallError, e.message, called]; }`);
          expect(record.calls).toEqual([]);
          const [isToolCallError, message, calls] = value as [boolean, string, number];
          expect(isToolCallError).toBe(true);
          expect(calls).toBe(0);
          return message;
        };
        expect(await called('{ a: [1, { toJSON() { called++; return "x"; } }] }')).toMatch(/args\.a\[1\]\.toJSON is a function/);
        expect(await called('{ m: new (class Money { toJSON() { called++; return "12 EUR"; } })() }')).toMatch(/args\.m has a toJSON method, and functions are not JSON/);
        expect(await called('{ g: new (class { get toJSON() { return () => (called++, 1); } })() }')).toMatch(/args\.g has a toJSON method/);
        expect(await called('(() => { const d = new Date(0); d.toJSON = () => (called++, "x"); return { d }; })()')).toMatch(/args\.d has a toJSON method/);
        expect(await called('(() => { const a = [1]; a.toJSON = () => (called++, 2); return { a }; })()')).toMatch(/args\.a has a toJSON method/);
        expect(await called('Object.assign(new (class K {})(), { toJSON: () => (called++, 1) })')).toMatch(/^Arguments of tools\.echo cannot be sent: args has a toJSON method/);
      });

      it('ignores a toJSON a program put on a builtin prototype: data crosses as data, a Date as its ISO text', async () => {
        const { value, record } = await runProgram(runner, `
          let called = 0;
          Object.prototype.toJSON = function () { called++; return 'forged'; };
          Array.prototype.toJSON = function () { called++; return 'forged'; };
          Date.prototype.toJSON = function () { called++; return 'forged'; };
          Date.prototype.toISOString = function () { called++; return 'forged'; };
          await tools.echo({ a: [1, { b: 2 }], d: new Date(0), bad: new Date(NaN) });
          return called;`);
        expect(value).toBe(0);
        expect(record.calls.map((c) => c.argsJson)).toEqual(['{"a":[1,{"b":2}],"d":"1970-01-01T00:00:00.000Z","bad":null}']);
      });

      it('refuses a toJSON in the returned value, naming its path', async () => {
        const f = failureOf((await runProgram(runner, 'return { ok: [new Date(0)], money: { amount: 1, toJSON() { return "1 EUR"; } } };')).outcome);
        expect(f).toMatchObject({ kind: 'thrown', message: 'The returned value cannot be converted to JSON: result.money.toJSON is a function' });
      });

      it('refuses arguments over maxArgBytes, maxArgDepth and maxArgNodes, naming the cap', async () => {
        expect(await refused('{ s: "x".repeat(70000) }')).toMatch(/maxArgBytes=65536/);
        expect(await refused('{ s: "é".repeat(40000) }')).toMatch(/maxArgBytes=65536/);
        expect(await refused('(() => { let v = 1; for (let i = 0; i < 40; i++) v = [v]; return v; })()')).toMatch(/maxArgDepth=32/);
        expect(await refused('Array.from({ length: 20000 }, () => 0)')).toMatch(/maxArgNodes=10000/);
        expect(await refused('(() => { let x = {}; for (let i = 0; i < 30; i++) x = { a: x, b: x }; return x; })()')).toMatch(/maxArgNodes=10000/);
      });

      it('converts like the walk on the fast path too: each getter runs once, class instances by their keys, nested logging works', async () => {
        const { value, record } = await runProgram(
          runner,
          'let reads = 0; class K { constructor() { this.k = 1; } }\n' +
            'await tools.echo({ get x() { reads++; console.log({ y: [1] }); return 2; }, c: new K(), s: "a\\u2028" });\n' +
            'await tools.echo({ b: new Number(1), e: new TypeError("t") });\n' +
            'return reads;',
        );
        expect(value).toBe(1);
        expect(record.calls.map((c) => c.argsJson)).toEqual(['{"x":2,"c":{"k":1},"s":"a\u2028"}', '{"b":{},"e":{"name":"TypeError","message":"t"}}']);
        expect(record.logs.map((l) => l.text)).toEqual(['{"y":[1]}']);
      });

      it('refuses a BigInt even when the program tries to give BigInt a toJSON, and a shared long string at maxArgBytes', async () => {
        expect(await refused('(() => { try { BigInt.prototype.toJSON = function () { return "1"; }; } catch {} return { n: 1n }; })()')).toMatch(/args\.n is a BigInt/);
        expect(await refused('(() => { const s = "x".repeat(1000); return Array.from({ length: 5000 }, () => s); })()')).toMatch(/maxArgBytes=65536/);
      });

      it('sends plain JSON: dates as strings, undefined fields dropped, __proto__ as an own key', async () => {
        const { record } = await runProgram(runner, 'await tools.echo({ d: new Date(0), u: undefined, arr: [undefined], ...JSON.parse(\'{"__proto__": {"x": 1}}\') });');
        expect(record.calls[0]?.argsJson).toBe('{"d":"1970-01-01T00:00:00.000Z","arr":[null],"__proto__":{"x":1}}');
      });
    });

    describe('when a program attacks resources', () => {
      it('stops a synchronous infinite loop at cpuMs', async () => {
        const f = failureOf((await runProgram(runner, 'for (;;) {}', { limits: { cpuMs: 150 } })).outcome);
        expect(f).toMatchObject({ kind: 'limit', limit: 'cpuMs', value: 150 });
      });

      it('stops a microtask loop (for(;;) await null) at cpuMs', async () => {
        const f = failureOf((await runProgram(runner, 'for (;;) await null;', { limits: { cpuMs: 150 } })).outcome);
        expect(f).toMatchObject({ kind: 'limit', limit: 'cpuMs', value: 150 });
      });

      it('counts CPU spent after the program returned: a self-rescheduling promise chain ends at cpuMs, not in success', async () => {
        for (const js of [
          'const spin = () => Promise.resolve().then(spin); spin(); return 1;',
          'const r = await tools.echo({}); (async () => { for (let i = 0; i < 3; i++) await null; for (;;) {} })(); return r;',
        ]) {
          const { outcome } = await runProgram(runner, js, { limits: { cpuMs: 150 } });
          expect(failureOf(outcome), js).toMatchObject({ kind: 'limit', limit: 'cpuMs', value: 150 });
        }
        // Work after the return that stays within the budget changes nothing.
        const { value, outcome } = await runProgram(runner, 'let n = 0; const more = () => { if (++n < 1000) Promise.resolve().then(more); }; more(); return 7;', { limits: { cpuMs: 150 } });
        expect(outcome.ok).toBe(true);
        expect(value).toBe(7);
      });

      it('stops a loop that starts after a tool result at cpuMs', async () => {
        const f = failureOf((await runProgram(runner, 'await tools.echo({}); let i = 0; for (;;) i++;', { limits: { cpuMs: 150 } })).outcome);
        expect(f).toMatchObject({ kind: 'limit', limit: 'cpuMs', value: 150 });
      });

      it('turns deep recursion into a thrown RangeError', async () => {
        const f = failureOf((await runProgram(runner, 'function f(n) { return f(n + 1) + 1; } return f(0);')).outcome);
        expect(f).toMatchObject({ kind: 'thrown' });
        expect(f.kind === 'thrown' && f.message).toMatch(/RangeError: Maximum call stack size exceeded/);
      });

      it('stops heap growth at memoryMb', async () => {
        const f = failureOf((await runProgram(runner, 'const a = []; for (;;) a.push({ i: a.length, s: "abc" + a.length });', { limits: { memoryMb: 16, cpuMs: 10_000 } })).outcome);
        expect(f).toMatchObject({ kind: 'limit', limit: 'memoryMb', value: 16 });
      });

      it('stops heap growth that starts after a tool result at memoryMb', async () => {
        const f = failureOf((await runProgram(runner, 'await tools.echo({}); const a = []; for (;;) a.push({ i: a.length, s: "abc" + a.length });', { limits: { memoryMb: 16, cpuMs: 10_000 } })).outcome);
        expect(f).toMatchObject({ kind: 'limit', limit: 'memoryMb', value: 16 });
      });

      it('has no WebAssembly to grow memory with', async () => {
        const f = failureOf((await runProgram(runner, 'new WebAssembly.Memory({ initial: 1, maximum: 65536 }).grow(60000);')).outcome);
        expect(f).toMatchObject({ kind: 'thrown', message: 'ReferenceError: WebAssembly is not defined' });
      });

      it('stops a flood of calls made within one turn at maxCalls, without waiting for cpuMs', async () => {
        const { outcome, record } = await runProgram(runner, 'for (;;) { tools.echo({}); await null; }', { limits: { maxCalls: 50, cpuMs: 30_000 } });
        expect(failureOf(outcome)).toMatchObject({ kind: 'limit', limit: 'maxCalls', value: 50 });
        expect(outcome.cpuMs).toBeLessThan(30_000);
        expect(record.calls.length).toBeLessThanOrEqual(50 + 1024);
      });

      it('stops a console flood at maxLogBytes', async () => {
        const loop = await runProgram(runner, 'for (;;) console.log("x".repeat(1000));', { limits: { maxLogBytes: 10_000 } });
        expect(failureOf(loop.outcome)).toMatchObject({ kind: 'limit', limit: 'maxLogBytes', value: 10_000 });
        expect(loop.record.logs.reduce((n, l) => n + l.text.length, 0)).toBeLessThanOrEqual(10_000);
        const huge = await runProgram(runner, 'console.log("y".repeat(5_000_000)); return 1;', { limits: { maxLogBytes: 10_000 } });
        expect(failureOf(huge.outcome)).toMatchObject({ kind: 'limit', limit: 'maxLogBytes' });
        expect(huge.record.logs).toEqual([]);
      });

      it('refuses a return value over maxResultBytes, and cycles, BigInt and deep nesting readably', async () => {
        expect(failureOf((await runProgram(runner, 'return "x".repeat(300000);')).outcome)).toMatchObject({ kind: 'limit', limit: 'maxResultBytes', value: 256 * 1024 });
        expect(failureOf((await runProgram(runner, 'return new Array(1e8);')).outcome)).toMatchObject({ kind: 'limit', limit: 'maxResultBytes' });
        expect(failureOf((await runProgram(runner, 'const a = {}; a.self = a; return a;')).outcome)).toMatchObject({ kind: 'thrown', message: expect.stringMatching(/result\.self is a cycle/) });
        expect(failureOf((await runProgram(runner, 'return { n: 1n };')).outcome)).toMatchObject({ kind: 'thrown', message: expect.stringMatching(/result\.n is a BigInt/) });
        expect(failureOf((await runProgram(runner, 'let v = 0; for (let i = 0; i < 100000; i++) v = [v]; return v;')).outcome)).toMatchObject({ kind: 'thrown', message: expect.stringMatching(/nested deeper/) });
      });

      it('converts a hostile return value inside the budget (getter loop)', async () => {
        const f = failureOf((await runProgram(runner, 'return { get x() { for (;;) {} } };', { limits: { cpuMs: 150 } })).outcome);
        expect(f).toMatchObject({ kind: 'limit', limit: 'cpuMs' });
      });

      it('ends an aborted run promptly, waiting or spinning', async () => {
        const waiting = new AbortController();
        setTimeout(() => waiting.abort(new Error('wall deadline')), 50);
        const w = await runProgram(runner, 'await tools.wait({ ms: 5000 }); return 1;', { signal: waiting.signal });
        expect(failureOf(w.outcome)).toMatchObject({ kind: 'aborted', message: expect.stringMatching(/wall deadline/) });
        const spinning = new AbortController();
        setTimeout(() => spinning.abort(), 50);
        if (traits.computesOnCallerThread) {
          // The caller's thread is busy in the slice: the CPU budget is what ends it.
          const s = await runProgram(runner, 'await tools.wait({ ms: 1 }); for (;;) {}', { signal: spinning.signal, limits: { cpuMs: 300 } });
          expect(failureOf(s.outcome)).toMatchObject({ kind: 'limit', limit: 'cpuMs', value: 300 });
        } else {
          const s = await runProgram(runner, 'for (;;) {}', { signal: spinning.signal, limits: { cpuMs: 60_000 } });
          expect(failureOf(s.outcome)).toMatchObject({ kind: 'aborted' });
        }
        const before = new AbortController();
        before.abort();
        expect(failureOf((await runProgram(runner, 'return 1', { signal: before.signal })).outcome)).toMatchObject({ kind: 'aborted' });
      });
    });
  });
}
