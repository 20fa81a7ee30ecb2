/**
 * A large array result reaches a program in a sandbox process in parts, parsed in its isolate
 * while the host's pipeline still walks the value, and is handed to the program only once the
 * pipeline's outcome is exactly the text streamed (tools/result-text-stream.ts, docs/run-code.md
 * "Large results"). Real sandbox processes and isolates; nothing timed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createToolHost, defineTool, type ToolHost } from '../tools/index.js';
import { createProcessRunner, createRunCodeTool, type ProgramRunner } from '../runtime/index.js';
import type { GuestBridge, GuestCallMeta, GuestCallOutcome } from '../runtime/program-runner.js';
import type { ResultTextStream } from '../tools/result-text-stream.js';
import { assertHealthy, failureOf, testLimits } from './isolate-harness.js';

const runner = createProcessRunner({ poolSize: 1, maxProcesses: 2 });
afterAll(() => runner.close());

/** A bridge whose one tool, `parts`, streams `parts` and then settles with `outcome(text)`. */
function streamingBridge(parts: readonly string[], outcome: (text: string) => GuestCallOutcome, pauseMs = 0): { bridge: GuestBridge; streamed: () => boolean } {
  let streamed = false;
  const bridge: GuestBridge = {
    async call(name: string, argsJson: string, meta?: GuestCallMeta): Promise<GuestCallOutcome> {
      if (name === '#sleep') {
        await new Promise((r) => setTimeout(r, Number((JSON.parse(argsJson) as { ms: number }).ms)));
        return { ok: true, json: 'null' };
      }
      if (name !== 'parts') return { ok: true, json: argsJson };
      const stream = meta?.textStream;
      if (stream === undefined) return { ok: false, toolName: name, message: 'no stream offered' };
      for (const part of parts) {
        stream.items(part);
        await new Promise((r) => setTimeout(r, 1));
      }
      streamed = true;
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      const text = `[${parts.join(',')}]`;
      stream.end(text);
      return outcome(text);
    },
    log() {},
  };
  return { bridge, streamed: () => streamed };
}

async function run(js: string, bridge: GuestBridge, memoryMb = 64) {
  const outcome = await runner.run({ js, toolNames: ['parts', 'echo'], limits: testLimits({ memoryMb, cpuMs: 60_000, wallMs: 120_000 }) }, bridge, new AbortController().signal);
  return outcome;
}

describe('the sandbox process runner with a streamed result', () => {
  it('hands the program the parts as one array when the outcome is exactly the text streamed', async () => {
    const parts = ['1,"é😀\\u2028"', '{"a":[2,{"b":null}],"__proto__":{"x":1}}', '[],[[]],-0.5e3,true'];
    const { bridge, streamed } = streamingBridge(parts, (text) => ({ ok: true, json: text }));
    const outcome = await run(
      'const v = await tools.parts(); return { json: JSON.stringify(v), isArray: Array.isArray(v), proto: Object.getPrototypeOf(v) === Array.prototype, protoKey: Object.keys(v[2]), polluted: ({}).x };',
      bridge,
    );
    expect(streamed()).toBe(true);
    expect(outcome.ok && JSON.parse(outcome.resultJson)).toEqual({
      json: JSON.stringify(JSON.parse(`[${parts.join(',')}]`)),
      isArray: true,
      proto: true,
      protoKey: ['a', '__proto__'],
    });
  });

  it('gives the outcome, not the parts, when the pipeline settled on another value', async () => {
    const { bridge } = streamingBridge(['1,2', '3'], () => ({ ok: true, json: '["redacted"]' }));
    const outcome = await run('return await tools.parts();', bridge);
    expect(outcome.ok && JSON.parse(outcome.resultJson)).toEqual(['redacted']);
  });

  it('rejects the call, and drops the parts, when the pipeline failed after streaming', async () => {
    const { bridge } = streamingBridge(['1,2', '3'], () => ({ ok: false, toolName: 'parts', message: 'Denied: withheld' }));
    const outcome = await run('try { await tools.parts(); return "seen"; } catch (e) { return [e.name, e.message, (await tools.echo({ after: 1 })).after]; }', bridge);
    expect(outcome.ok && JSON.parse(outcome.resultJson)).toEqual(['ToolCallError', 'Denied: withheld', 1]);
  });

  it('never lets the program reach a part before the verdict, even through setters it puts on the prototypes', async () => {
    const { bridge } = streamingBridge(['{"secret":1},{"secret":2}', '{"secret":3}'], () => ({ ok: false, toolName: 'parts', message: 'Denied: withheld' }), 30);
    const outcome = await run(
      `const seen = [];
       for (const [proto, keys] of [[Array.prototype, ['0', '1', '2']], [Object.prototype, ['secret']]]) {
         for (const key of keys) Object.defineProperty(proto, key, { set(v) { seen.push(v); }, configurable: true });
       }
       const pending = tools.parts().then(() => 'resolved', (e) => e.message);
       for (let i = 0; i < 10; i++) await sleep(5);
       return { seen: seen.length, outcome: await pending };`,
      bridge,
    );
    expect(outcome.ok ? JSON.parse(outcome.resultJson) : outcome.failure).toEqual({ seen: 0, outcome: 'Denied: withheld' });
  });

  it('fails the call when a part is not JSON (a host bug), and the run goes on', async () => {
    const { bridge } = streamingBridge(['1,2', '3,}'], (text) => ({ ok: true, json: text }));
    const outcome = await run('try { await tools.parts(); return "seen"; } catch (e) { return e.message; }', bridge);
    expect(outcome.ok && JSON.parse(outcome.resultJson)).toMatch(/was not valid JSON/);
    await assertHealthy(runner);
  });

  it('counts the parts against memoryMb, like the whole text', async () => {
    const item = JSON.stringify({ id: 'x'.repeat(200), n: [1, 2, 3] });
    const parts = Array.from({ length: 64 }, () => Array.from({ length: 2_000 }, () => item).join(','));
    const { bridge } = streamingBridge(parts, (text) => ({ ok: true, json: text }));
    const outcome = await run('const v = await tools.parts(); return v.length;', bridge, 32);
    expect(failureOf(outcome)).toMatchObject({ kind: 'limit', limit: 'memoryMb', value: 32 });
  });
});

/** Counts the parts each call's stream got, around a real runner. */
function countingRunner(inner: ProgramRunner): { runner: ProgramRunner; parts: () => number } {
  let parts = 0;
  const runner: ProgramRunner = {
    run(request, bridge, signal) {
      const counted: GuestBridge = {
        ...bridge,
        call(name, argsJson, meta) {
          const stream = meta?.textStream;
          if (stream === undefined) return bridge.call(name, argsJson, meta);
          const counting: ResultTextStream = {
            items(text) {
              parts++;
              stream.items(text);
            },
            end: (text) => stream.end(text),
          };
          return bridge.call(name, argsJson, { textStream: counting });
        },
      };
      return inner.run(request, counted, signal);
    },
    close: () => inner.close(),
  };
  return { runner, parts: () => parts };
}

const ROWS = 100_000;
const rows = Array.from({ length: ROWS }, (_, i) => ({ id: `row-${i}-é😀\u2028`, score: i / 7, done: i % 3 === 0, tags: ['alpha', { n: i, deep: [[i]] }], none: null }));
const rowsText = JSON.stringify(rows);

function hostWith(runCode: ProgramRunner, extra: (host: ToolHost) => void = () => {}, memoryMb = 256): ToolHost {
  const host = createToolHost();
  host.register([
    defineTool({ name: 'rows', description: 'Returns many rows.', isConcurrencySafe: true, execute: () => rows }),
    defineTool({ name: 'rows_text', description: 'The rows as JSON text.', isConcurrencySafe: true, execute: () => rowsText }),
    defineTool({
      name: 'rows_bad',
      description: 'Rows, one of them not JSON, near the end.',
      isConcurrencySafe: true,
      execute: () => rows.map((row, i) => (i === ROWS - 10 ? { ...row, bad: () => 1 } : row)),
    }),
    createRunCodeTool({ name: 'run_code', runner: runCode, typecheck: 'off', limits: { cpuMs: 60_000, wallMs: 120_000, hostMs: 120_000, maxResultBytes: 1 << 20, memoryMb, rssMb: 1024 } }),
  ]);
  extra(host);
  return host;
}

describe('run_code in a sandbox process reading a large array result', () => {
  const process = createProcessRunner({ poolSize: 1, maxProcesses: 2 });
  afterAll(() => process.close());

  it('delivers the value intact (deep equal, unicode and all) and streamed it in parts', async () => {
    const { runner: counted, parts } = countingRunner(process);
    const host = hostWith(counted);
    const r = await host.call({
      id: 'c1',
      name: 'run_code',
      args: { code: 'const rows = await tools.rows(); const text = await tools.rows_text(); return { same: JSON.stringify(rows) === text, n: rows.length, frozen: Object.isFrozen(rows), last: rows[rows.length - 1] };' },
    });
    expect(r.isError, JSON.stringify(r.error)).toBe(false);
    const value = r.value as { result: unknown };
    expect(value.result).toEqual({ same: true, n: ROWS, frozen: false, last: rows[ROWS - 1] });
    expect(parts()).toBeGreaterThan(1);
  }, 120_000);

  it('keeps the result from the program when a post-execute listener denies it (and streams nothing then)', async () => {
    const { runner: counted, parts } = countingRunner(process);
    const host = hostWith(counted, (h) =>
      void h.hooks.postExecute((e) => (e.toolName === 'rows' ? { type: 'block', reason: 'too much' } : undefined)),
    );
    const r = await host.call({ id: 'c2', name: 'run_code', args: { code: 'try { const rows = await tools.rows(); return rows.length; } catch (e) { return e.message; }' } });
    expect((r.value as { result: unknown }).result).toMatch(/^Denied: the result of "rows" was withheld by policy: too much/);
    expect(parts()).toBe(0);
  }, 120_000);

  it('keeps the parts from the program when the walk refuses the value after streaming some of it', async () => {
    const { runner: counted, parts } = countingRunner(process);
    const host = hostWith(counted);
    const r = await host.call({ id: 'c3', name: 'run_code', args: { code: 'try { const rows = await tools.rows_bad(); return rows.length; } catch (e) { return e.message; }' } });
    expect((r.value as { result: unknown }).result).toMatch(/returned an invalid value/);
    expect(parts()).toBeGreaterThan(1);
  }, 120_000);

  it('still enforces memoryMb on a program that builds a huge value itself', async () => {
    const host = hostWith(process, () => {}, 64);
    const r = await host.call({
      id: 'c4',
      name: 'run_code',
      args: { code: 'const keep = []; for (let i = 0; ; i++) keep.push({ i, s: "x".repeat(100) + i });' },
    });
    expect(JSON.stringify(r.error ?? r.value)).toMatch(/memoryMb/);
  }, 120_000);
});
