import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { LateCallEvent } from '../runtime/isolate/index.js';
import type { GuestBridge } from '../runtime/program-runner.js';
import { createProcessRunner, type ProcessEvent } from '../runtime/sandbox-process/index.js';
import { describeRunnerContract } from './isolate-contract.js';
import { assertHealthy, echoBridge, failureOf, runProgram, testLimits } from './isolate-harness.js';

describeRunnerContract('sandbox-process runner', () => createProcessRunner({ poolSize: 1, maxProcesses: 2 }));

describe('when a program takes down its sandbox process', () => {
  const events: ProcessEvent[] = [];
  const runner = createProcessRunner({ poolSize: 1, maxProcesses: 2, onProcessEvent: (e) => events.push(e) });
  afterEach(() => assertHealthy(runner));
  afterAll(() => runner.close());

  it('survives a memory bomb that aborts V8 (new Array(1e9).fill(0)) and reports it as the memory limit', async () => {
    const { outcome } = await runProgram(runner, 'new Array(1e9).fill(0); return 1;', { limits: { memoryMb: 32 } });
    const f = failureOf(outcome);
    expect(f).toMatchObject({ kind: 'limit', limit: 'memoryMb', value: 32 });
    expect(f.message).toMatch(/ran out of memory/);
    expect(events.some((e) => e.kind === 'exited')).toBe(true);
  });

  it('kills a process stuck converting a hostile unhandled rejection (outside any isolate timeout) at its CPU backstop', async () => {
    // isolated-vm reads message and stack of an unhandled rejection after the slice's timeout has
    // ended; a getter, trap or toString that never returns stalls that thread. In a sandbox
    // process the host's CPU poll ends it (cpuBackstopMs: 3 x cpuMs + 500 ms here) and names cpuMs.
    for (const js of [
      'Promise.reject({ get message() { for (;;) {} } }); await tools.echo({}); return 1;',
      'Promise.reject(new Proxy({}, { get() { for (;;) {} } })); return 2;',
      'Promise.reject({ message: { toString() { for (;;) {} } } }); return 3;',
    ]) {
      const { outcome } = await runProgram(runner, js, { limits: { cpuMs: 200 } });
      expect(failureOf(outcome)).toMatchObject({ kind: 'limit', limit: 'cpuMs', value: 200 });
    }
  });

  it('kills a process that passes rssMb and names the limit', async () => {
    const { outcome } = await runProgram(runner, 'const keep = []; for (;;) keep.push(new Float64Array(1 << 17).fill(keep.length));', {
      limits: { memoryMb: 1024, rssMb: 150, cpuMs: 20_000 },
    });
    expect(failureOf(outcome)).toMatchObject({ kind: 'limit', limit: 'rssMb', value: 150 });
  });

  it('runs each program in a fresh process state after a kill (the next run works)', async () => {
    const started = events.filter((e) => e.kind === 'started').length;
    const { value } = await runProgram(runner, 'return (await tools.echo({ ok: true })).ok;');
    expect(value).toBe(true);
    expect(started).toBeGreaterThanOrEqual(2);
  });
});

/**
 * A stand-in worker that speaks the frame protocol but misbehaves as the program text says:
 * the host must treat a compromised sandbox process as hostile.
 */
const HOSTILE_WORKER = String.raw`
import net from 'node:net';
import fs from 'node:fs';
const input = new net.Socket({ fd: 3, readable: true, writable: false });
const output = new net.Socket({ fd: 4, readable: false, writable: true });
const frame = (m) => { const b = Buffer.from(JSON.stringify(m)); const h = Buffer.alloc(4); h.writeUInt32LE(b.length); output.write(Buffer.concat([h, b])); };
const raw = (text) => { const b = Buffer.from(text); const h = Buffer.alloc(4); h.writeUInt32LE(b.length); output.write(Buffer.concat([h, b])); };
let buf = Buffer.alloc(0);
let relay;
// CPU time of this process's own, as a worker spends it relaying calls (not program time).
const burn = (us) => { const from = process.cpuUsage(); for (;;) { const d = process.cpuUsage(from); if (d.user + d.system >= us) return; } };
input.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  while (buf.length >= 4) {
    const n = buf.readUInt32LE(0); if (buf.length < 4 + n) return;
    const m = JSON.parse(buf.subarray(4, 4 + n).toString()); buf = buf.subarray(4 + n);
    if (m.t === 'results' && relay !== undefined && m.runId === relay.id) { relay.next(); continue; }
    if (m.t !== 'run') continue;
    const id = m.runId; const mode = m.request.js;
    const done = (outcome) => frame({ t: 'done', runId: id, outcome: { cpuMs: 0, wallMs: 0, ...outcome } });
    if (mode === 'env') done({ ok: true, resultJson: JSON.stringify({ env: Object.keys(process.env), cwd: fs.readdirSync(process.cwd()) }) });
    else if (mode === 'garbage') raw('{not json');
    else if (mode === 'oversize') { const h = Buffer.alloc(4); h.writeUInt32LE(0x7ffffff0); output.write(h); }
    else if (mode === 'unknown-tool') frame({ t: 'calls', runId: id, items: [1, 'secret_tool', '{}'] });
    else if (mode === 'big-args') frame({ t: 'calls', runId: id, items: [1, 'echo', JSON.stringify('x'.repeat(70000))] });
    else if (mode === 'foreign') { frame({ t: 'calls', runId: id + 1000, items: [1, 'echo', '{}'] }); done({ ok: true, resultJson: '1' }); }
    else if (mode === 'replay') { frame({ t: 'calls', runId: id, items: [1, 'echo', '{"n":1}'] }); frame({ t: 'calls', runId: id, items: [1, 'echo', '{"n":2}'] }); }
    else if (mode === 'bad-outcome') done({ ok: true, resultJson: 42 });
    else if (mode === 'deep-result') done({ ok: true, resultJson: '['.repeat(600) + ']'.repeat(600) });
    else if (mode === 'lying-limit') done({ ok: false, failure: { kind: 'limit', limit: 'cpuMs', value: 999999, message: 'x' } });
    else if (mode === 'exit') process.exit(3);
    else if (mode === 'ignore-abort') { /* never answers */ }
    else if (mode === 'late') { done({ ok: true, resultJson: '1' }); frame({ t: 'calls', runId: id, items: [1, 'echo', '{"late":true}'] }); }
    else if (mode === 'spin') { for (;;) {} }
    else if (mode === 'late-notice') { frame({ t: 'late', runId: id, names: ['echo', 'constructor'], more: 5 }); done({ ok: true, resultJson: '1' }); }
    else if (mode === 'late-overnamed') { const names = Array.from({ length: 60 }, () => 'echo'); frame({ t: 'late', runId: id, names, more: 0 }); frame({ t: 'late', runId: id, names, more: 0 }); }
    else if (mode === 'late-bad') frame({ t: 'late', runId: id, names: [1], more: 0 });
    else if (mode === 'log-over-then-call') {
      // One write: a console line over maxLogBytes (the host kills the process for it), then a call.
      const bytes = (m) => { const b = Buffer.from(JSON.stringify(m)); const h = Buffer.alloc(4); h.writeUInt32LE(b.length); return Buffer.concat([h, b]); };
      output.write(Buffer.concat([bytes({ t: 'log', runId: id, level: 'log', text: 'x'.repeat(70000) }), bytes({ t: 'calls', runId: id, items: [1, 'echo', '{}'] })]));
    }
    else if (mode.startsWith('relay ')) {
      // relay <calls> <µs of own CPU per call>: calls one at a time, then a result
      const [, calls, us] = mode.split(' ').map(Number);
      let sent = 0;
      const call = () => { burn(us); frame({ t: 'calls', runId: id, items: [++sent, 'echo', '{}'] }); };
      relay = { id, next: () => (sent < calls ? call() : done({ ok: true, resultJson: String(sent) })) };
      call();
    }
  }
});
input.on('end', () => process.exit(0));
frame({ t: 'ready', pid: process.pid });
`;

describe('when a sandbox process is compromised', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-hostile-'));
  const entry = join(dir, 'hostile-worker.mjs');
  writeFileSync(entry, HOSTILE_WORKER);
  const late: LateCallEvent[] = [];
  const events: ProcessEvent[] = [];
  const runner = createProcessRunner({ poolSize: 0, maxProcesses: 2, workerEntry: entry, abortGraceMs: 100, onLateCall: (e) => late.push(e), onProcessEvent: (e) => events.push(e) });
  afterAll(async () => {
    await runner.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const run = (mode: string, signal?: AbortSignal) => runProgram(runner, mode, { signal, toolNames: ['echo'], limits: { cpuMs: 300 } });
  // Under bubblewrap the environment is empty too but for PWD, which bwrap always sets (to the
  // sandbox's own empty /tmp; test/os-sandbox.test.ts reads it from outside).
  const emptyEnv = { env: runner.osSandbox === 'bubblewrap' ? ['PWD'] : [], cwd: [] };
  afterEach(async () => {
    // The host survived and the runner still starts and runs a (stand-in) sandbox process.
    expect((await run('env')).value).toEqual(emptyEnv);
  });

  it('starts it with an empty environment in an empty working directory', async () => {
    const { value } = await run('env');
    expect(value).toEqual(emptyEnv);
  });

  it('kills it for a frame that is not JSON, or one over the frame cap, and reports a crash', async () => {
    for (const mode of ['garbage', 'oversize']) {
      const { outcome, record } = await run(mode);
      expect(failureOf(outcome)).toMatchObject({ kind: 'crash', message: expect.stringMatching(/malformed message/) });
      expect(record.calls).toEqual([]);
    }
  });

  it('never relays a call for a tool the program cannot see, or with arguments over maxArgBytes', async () => {
    for (const mode of ['unknown-tool', 'big-args']) {
      const { outcome, record } = await run(mode);
      expect(failureOf(outcome)).toMatchObject({ kind: 'crash', message: expect.stringMatching(/malformed message/) });
      expect(record.calls).toEqual([]);
    }
  });

  it('relays a replayed call id once, then kills the process', async () => {
    const { outcome, record } = await run('replay');
    expect(failureOf(outcome)).toMatchObject({ kind: 'crash', message: expect.stringMatching(/call id/) });
    expect(record.calls).toEqual([{ name: 'echo', argsJson: '{"n":1}' }]);
  });

  it('ignores and reports calls for another run, and calls after the run ended', async () => {
    const foreign = await run('foreign');
    expect(foreign.value).toBe(1);
    expect(foreign.record.calls).toEqual([]);
    const after = await run('late');
    expect(after.value).toBe(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(after.record.calls).toEqual([]);
    expect(late.map((e) => e.name)).toEqual(['echo', 'echo']);
  });

  it('reports the late calls it names and counts, and kills one that names more than a run may', async () => {
    const before = late.length;
    const notice = await run('late-notice');
    expect(notice.value).toBe(1);
    expect(notice.record.calls).toEqual([]);
    expect(late.slice(before)).toEqual([
      { name: 'echo', reason: 'run-ended' },
      { name: 'constructor', reason: 'run-ended' },
      { name: '', reason: 'run-ended', count: 5 },
    ]);
    for (const mode of ['late-overnamed', 'late-bad']) {
      const { outcome, record } = await run(mode);
      expect(failureOf(outcome)).toMatchObject({ kind: 'crash', message: expect.stringMatching(/malformed message/) });
      expect(record.calls).toEqual([]);
    }
  });

  it('drops what a process sent after the frame it was killed for, even within the same read', async () => {
    const before = late.length;
    const { outcome, record } = await run('log-over-then-call');
    expect(failureOf(outcome)).toMatchObject({ kind: 'limit', limit: 'maxLogBytes' });
    expect(record.calls).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    expect(late.slice(before)).toEqual([]);
  });

  it('rejects an outcome of the wrong shape, and uses its own value for a limit', async () => {
    expect(failureOf((await run('bad-outcome')).outcome)).toMatchObject({ kind: 'crash' });
    // Deeper than the guest ever converts a result (512): refused before it is parsed.
    expect(failureOf((await run('deep-result')).outcome)).toMatchObject({ kind: 'crash', message: expect.stringMatching(/malformed message/) });
    expect(failureOf((await run('lying-limit')).outcome)).toMatchObject({ kind: 'limit', limit: 'cpuMs', value: 300 });
  });

  it('reports a process that dies during a run, naming its exit code', async () => {
    expect(failureOf((await run('exit')).outcome)).toMatchObject({ kind: 'crash', message: expect.stringMatching(/exit code 3/) });
  });

  it('resolves an abort at once and kills a process that does not stop within the grace', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const { outcome } = await run('ignore-abort', controller.signal);
    expect(failureOf(outcome)).toMatchObject({ kind: 'aborted' });
    const killed = () => events.some((e) => e.kind === 'exited' && /did not stop within 100 ms/.test(e.detail ?? ''));
    for (let waited = 0; !killed() && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(killed()).toBe(true);
  });

  it('kills a process that burns CPU past its budget without answering', async () => {
    expect(failureOf((await run('spin')).outcome)).toMatchObject({ kind: 'limit', limit: 'cpuMs', value: 300 });
  });

  it('does not count the CPU a process spends relaying many calls against the program (up to maxCalls)', async () => {
    // 2,000 calls at 0.45 ms of the worker's own CPU each: 0.9 s, past 2 x cpuMs + 0.5 s = 0.7 s,
    // within that plus 0.5 ms per relayed call.
    const { outcome, record } = await runProgram(runner, 'relay 2000 450', { toolNames: ['echo'], limits: { cpuMs: 100, maxCalls: 5000 } });
    expect(outcome.ok ? 'ok' : outcome.failure).toBe('ok');
    expect(record.calls).toHaveLength(2000);
    // With maxCalls 100 the allowance stops growing at 100 calls: the same relay is stopped.
    const capped = await runProgram(runner, 'relay 2000 450', { toolNames: ['echo'], limits: { cpuMs: 100, maxCalls: 100 } });
    expect(failureOf(capped.outcome)).toMatchObject({ kind: 'limit', limit: 'cpuMs', value: 100 });
  });

  it('stays usable after all of that', async () => {
    expect((await run('env')).value).toEqual(emptyEnv);
    expect(runner.stats().processes).toBeLessThanOrEqual(2);
  });
});

describe('a sandbox process reading replies', () => {
  const runner = createProcessRunner({ poolSize: 1, maxProcesses: 1 });
  afterEach(() => assertHealthy(runner));
  afterAll(() => runner.close());

  // The worker reads a reply by polling right after its calls go out, and by its event loop
  // otherwise: a reply larger than one read arrives partly one way, partly the other.
  it('keeps every reply whole and in order, whichever way its bytes were read', async () => {
    const js = [
      'const sizes = [];',
      'for (let i = 1; i <= 40; i++) {',
      '  const bytes = (i % 4) * 90000 + i;',
      '  const [text, echo] = await Promise.all([tools.big({ bytes }), tools.echo({ i })]);',
      '  sizes.push(text.length === bytes && echo.i === i ? 1 : 0);',
      '  await tools.echo({ i });',
      '}',
      'return sizes.join("");',
    ].join('\n');
    const { value, record } = await runProgram(runner, js, { limits: { maxResultBytes: 1 << 20 } });
    expect(value).toBe('1'.repeat(40));
    expect(record.calls).toHaveLength(120);
  });
});

describe('a sandbox process sending what its program produced', () => {
  const runner = createProcessRunner({ poolSize: 1, maxProcesses: 1 });
  afterEach(() => assertHealthy(runner));
  afterAll(() => runner.close());

  // The worker writes the frames of one turn together (worker.ts, send): console lines, calls and
  // the end must still reach the host whole and in the order the program made them, also past
  // the size at which the worker writes at once.
  it('keeps console lines, calls and the result in the order the program made them', async () => {
    const seen: string[] = [];
    const bridge: GuestBridge = {
      call: async (name, argsJson) => {
        seen.push(`call ${argsJson}`);
        return { ok: true, json: argsJson };
      },
      log: (level, text) => void seen.push(`${level} ${text.length > 20 ? `${text.slice(0, 12)}+${text.length}` : text}`),
    };
    const js = [
      'for (let i = 0; i < 200; i++) {',
      "  console.log('line ' + i);",
      "  if (i % 40 === 0) { console.warn('y'.repeat(30000)); await tools.echo({ i }); }",
      '}',
      "console.log('end');",
      'return 7;',
    ].join('\n');
    const outcome = await runner.run({ js, toolNames: ['echo'], limits: testLimits({ maxLogBytes: 1 << 20 }) }, bridge, new AbortController().signal);
    expect(outcome).toMatchObject({ ok: true, resultJson: '7' });
    const expected: string[] = [];
    for (let i = 0; i < 200; i++) {
      expected.push(`log line ${i}`);
      if (i % 40 === 0) expected.push(`warn ${'y'.repeat(12)}+30000`, `call {"i":${i}}`);
    }
    expected.push('log end');
    expect(seen).toEqual(expected);
  });
});

describe('when runs outnumber sandbox processes', () => {
  const runner = createProcessRunner({ poolSize: 1, maxProcesses: 1 });
  afterEach(() => assertHealthy(runner));
  afterAll(() => runner.close());

  it('queues them and runs each in turn', async () => {
    const results = await Promise.all([1, 2, 3].map((n) => runProgram(runner, `await tools.wait({ ms: 20 }); return ${n};`)));
    expect(results.map((r) => r.value)).toEqual([1, 2, 3]);
  });

  it('gives up waiting when the run is aborted', async () => {
    const busy = runProgram(runner, 'await tools.wait({ ms: 300 }); return 1;');
    const controller = new AbortController();
    const waiting = runner.run({ js: 'return 2', toolNames: [], limits: testLimits() }, echoBridge().bridge, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(failureOf(await waiting)).toMatchObject({ kind: 'aborted' });
    expect((await busy).value).toBe(1);
  });
});

describe('when many runs arrive at once', () => {
  const events: ProcessEvent[] = [];
  const runner = createProcessRunner({ poolSize: 1, maxProcesses: 4, idleMs: 2_000, onProcessEvent: (e) => events.push(e) });
  afterAll(() => runner.close());

  it('grows the pool on demand, one program per process, up to maxProcesses', async () => {
    await runner.warmUp();
    // A barrier: no call returns before four programs are in a call at once, which four runs in
    // fewer than four processes could never be.
    let arrived = 0;
    let open!: () => void;
    const allIn = new Promise<void>((resolve) => (open = resolve));
    const bridge: GuestBridge = {
      async call(_name, argsJson) {
        if (++arrived === 4) open();
        await allIn;
        return { ok: true, json: argsJson };
      },
      log() {},
    };
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => runner.run({ js: `await tools.wait({}); return ${n};`, toolNames: ['wait'], limits: testLimits() }, bridge, new AbortController().signal)));
    expect(results.map((r) => r.ok && r.resultJson)).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(new Set(results.map((r) => r.pid)).size).toBe(4);
    expect(runner.stats().processes).toBe(4);
  });

  it('shrinks back to poolSize once the extra processes have been idle for idleMs', async () => {
    await vi.waitFor(() => expect(runner.stats().processes).toBe(1), { timeout: 10_000, interval: 50 });
    expect(events.filter((e) => e.kind === 'exited' && /idle for 2000 ms/.test(e.detail ?? '')).length).toBe(3);
    await assertHealthy(runner);
  });

  it("keeps each program's crash to its own run", async () => {
    const runs = ['await tools.wait({ ms: 200 }); return 1;', 'await tools.wait({ ms: 20 }); new Array(1e9).fill(0); return 2;', 'await tools.wait({ ms: 200 }); return 3;'].map((js) =>
      runProgram(runner, js, { limits: { memoryMb: 32 } }),
    );
    const [first, bomb, third] = await Promise.all(runs);
    expect(first!.value).toBe(1);
    expect(failureOf(bomb!.outcome)).toMatchObject({ kind: 'limit', limit: 'memoryMb' });
    expect(third!.value).toBe(3);
  });
});

describe('when the machine has no memory to spare for another sandbox process', () => {
  // minFreeMb above any machine's memory: the pool never grows past its first process.
  const runner = createProcessRunner({ poolSize: 1, maxProcesses: 4, minFreeMb: Number.MAX_SAFE_INTEGER });
  afterAll(() => runner.close());

  it('runs arrivals in turn in the processes it has instead of starting more', async () => {
    await runner.warmUp();
    const results = await Promise.all([1, 2, 3].map((n) => runner.run({ js: `await tools.wait({ ms: 30 }); return ${n};`, toolNames: ['wait'], limits: testLimits() }, echoBridge().bridge, new AbortController().signal)));
    expect(results.map((r) => r.ok && r.resultJson)).toEqual(['1', '2', '3']);
    expect(new Set(results.map((r) => r.pid)).size).toBe(1);
    expect(runner.stats().processes).toBe(1);
  });
});
