/**
 * The programs of the soak (bench/soak.ts): normal work and what a hostile model would send,
 * each with what must come of it. A scenario's `check` gets the run_code result and the limit
 * its run ended at (from `ptc/run-end`), and returns a problem, or undefined when the outcome is
 * the one the runtime promises. Programs are TypeScript and pass the default type check
 * (hostile ones reach for host globals through `as any`, as a model trying would).
 */
import type { ToolResult } from '../tools/index.js';

/** One kind of program in the mix. */
export interface SoakScenario {
  readonly name: string;
  readonly family: 'normal' | 'escape' | 'bomb' | 'flood' | 'abort' | 'approval';
  /** How often it is picked, relative to the others. */
  readonly weight: number;
  readonly code: string;
  /** Abort the run_code call this many ms after it starts (an `abort` scenario). */
  readonly abortAfterMs?: number;
  /** The problem with this outcome, or undefined. */
  check(result: ToolResult, endedBy: RunEnd | undefined): string | undefined;
}

/** How a run ended, from its `ptc/run-end` event. */
export interface RunEnd {
  readonly outcome: string;
  readonly limit?: string;
}

const value = (r: ToolResult) => (r.value as { result?: unknown } | undefined)?.result;
const ok = (expected: (v: unknown) => boolean, what: string) => (r: ToolResult) =>
  r.isError ? `failed: ${r.error?.message.slice(0, 200)}` : expected(value(r)) ? undefined : `${what}, got ${JSON.stringify(value(r))?.slice(0, 200)}`;
const endedAt = (...limits: string[]) => (r: ToolResult, end: RunEnd | undefined) =>
  !r.isError ? `succeeded, expected the ${limits.join(' or ')} limit` : end?.outcome === 'limit' && limits.includes(end.limit ?? '') ? undefined : `ended ${end?.outcome ?? 'without a run'}${end?.limit ? ` at ${end.limit}` : ''}: ${r.error?.message.slice(0, 160)}`;
/** An abort may also land before the run started (during the type check): then there is no run to end. */
const failedAs = (outcomes: string[]) => (r: ToolResult, end: RunEnd | undefined) =>
  r.isError && (end === undefined || outcomes.includes(end.outcome)) ? undefined : `expected ${outcomes.join('/')}, got ${r.isError ? end?.outcome : 'a result'}`;

/** Every global a program must not see, read the ways a program can reach for them. */
const HOST_GLOBALS = `['process', 'require', 'module', 'Buffer', 'fetch', 'setTimeout', 'setInterval', 'WebAssembly', 'SharedArrayBuffer', 'Atomics', 'global']`;

export const SCENARIOS: readonly SoakScenario[] = [
  // ---- normal --------------------------------------------------------------------------------
  {
    name: 'fan-out and join',
    family: 'normal',
    weight: 6,
    code: `const items = await tools.items({ n: 40 });
const doubled = await Promise.all(items.map(async (it) => (await tools.add({ a: it.value, b: it.value }))));
console.log('items', items.length);
return doubled.reduce((s, v) => s + v, 0);`,
    check: ok((v) => v === 2 * ((39 * 40) / 2), 'expected the doubled sum 1560'),
  },
  {
    name: 'sequential loop with filtering',
    family: 'normal',
    weight: 5,
    code: `let kept = 0;
for (let i = 0; i < 60; i++) {
  const { echoed } = await tools.echo({ text: 'n' + i });
  if (echoed.endsWith('7')) kept++;
}
return kept;`,
    check: ok((v) => v === 6, 'expected 6 kept'),
  },
  {
    name: 'tool errors caught',
    family: 'normal',
    weight: 3,
    code: `const outcomes = await Promise.all([1, 2, 3].map(async (i) => {
  try { await tools.fail({ message: 'planned ' + i }); return 'no'; } catch (e) { return e instanceof ToolCallError ? e.message : 'other'; }
}));
return outcomes.every((m) => m.includes('planned'));`,
    check: ok((v) => v === true, 'expected every failure caught as a ToolCallError'),
  },
  {
    name: 'slow tools in parallel',
    family: 'normal',
    weight: 3,
    code: `const waited = await Promise.all([30, 60, 90, 20].map((ms) => tools.slow({ ms })));
return waited.length;`,
    check: ok((v) => v === 4, 'expected 4'),
  },
  {
    name: 'large result spilled',
    family: 'normal',
    weight: 2,
    code: `const text = await tools.big({ kb: 200 });
return text.length;`,
    check: ok((v) => v === 200 * 1024, 'expected 204800'),
  },
  {
    name: 'guard denial caught',
    family: 'normal',
    weight: 2,
    code: `try { await tools.read_secret({}); return 'read'; } catch (e) { return e instanceof ToolCallError ? 'denied' : 'other'; }`,
    check: ok((v) => v === 'denied', 'expected the guard to deny'),
  },
  {
    name: 'type error rejected before running',
    family: 'normal',
    weight: 1,
    code: `const n: number = await tools.echo({ text: 1 }); return n;`,
    check: (r) => (r.isError ? `failed instead of being rejected: ${r.error?.message}` : (r.value as { rejected?: string }).rejected ? undefined : 'ran a program with type errors'),
  },
  // ---- escapes -------------------------------------------------------------------------------
  {
    name: 'host globals',
    family: 'escape',
    weight: 3,
    code: `const g = globalThis as any;
return ${HOST_GLOBALS}.filter((name) => typeof g[name] !== 'undefined');`,
    check: ok((v) => Array.isArray(v) && v.length === 0, 'expected no host global'),
  },
  {
    name: 'constructor chains from tools, results and errors',
    family: 'escape',
    weight: 3,
    code: `const reached: string[] = [];
const probe = (label: string, f: () => unknown) => { try { const x: any = f(); if (x && (x.process || x.require || x.Buffer)) reached.push(label); } catch { /* refused */ } };
const t = tools as any;
const r: any = await tools.echo({ text: 'x' });
probe('tools.constructor', () => t.constructor.constructor('return this')());
probe('tools.__proto__', () => t.__proto__);
probe('echo.constructor', () => t.echo.constructor('return this')());
probe('result.constructor', () => r.constructor.constructor('return this')());
try { await tools.fail({ message: 'x' }); } catch (e: any) { probe('error.constructor', () => e.constructor.constructor('return this')()); probe('error.stack', () => (e as any).stack?.constructor?.constructor('return process')()); }
probe('Function', () => Function('return this')());
probe('async', () => (async () => {}).constructor('return this')());
return reached;`,
    check: ok((v) => Array.isArray(v) && v.length === 0, 'expected no chain to reach the host'),
  },
  {
    name: 'prototype pollution through arguments and results',
    family: 'escape',
    weight: 2,
    code: `let refused = 0;
for (const text of ['{"__proto__": {"soakPolluted": true}}', '{"constructor": {"prototype": {"soakPolluted": true}}}']) {
  try { await tools.configure({ settings: JSON.parse(text) }); } catch { refused++; }
}
(Object.prototype as any).soakInside = true;
const back = await tools.echo({ text: 'after' });
return { refused, back: back.echoed };`,
    // The host's own Object.prototype is checked by the soak itself after every run.
    check: (r) => (r.isError ? `failed: ${r.error?.message.slice(0, 200)}` : undefined),
  },
  {
    name: 'stack trace hooks',
    family: 'escape',
    weight: 2,
    code: `const E = Error as any;
const exposed: string[] = [];
E.prepareStackTrace = (_e: unknown, frames: any[]) => {
  // Frames of the program itself may show their own function; the bootstrap's must show nothing.
  for (const f of frames) if (!String(f.getScriptNameOrSourceURL()).includes('ptc-program') && (f.getFunction() !== undefined || f.getThis() !== undefined)) exposed.push(String(f.getFunctionName()));
  return 'hooked';
};
try { await tools.fail({ message: 'x' }); } catch (e: any) { void e.stack; }
try { await tools.echo({ toJSON() { throw new Error('from toJSON'); } } as any); } catch (e: any) { void e.stack; }
try { (null as any).x; } catch (e: any) { void e.stack; }
return exposed.length === 0 ? 'none' : exposed;`,
    check: ok((v) => v === 'none', 'expected no bootstrap frame to expose a receiver or function'),
  },
  // ---- bombs ---------------------------------------------------------------------------------
  {
    name: 'memory: growing arrays',
    family: 'bomb',
    weight: 2,
    code: `const keep: number[][] = []; for (;;) keep.push(new Array(1e5).fill(keep.length));`,
    // Filling takes CPU time too: on a loaded machine cpuMs can come first.
    check: endedAt('memoryMb', 'rssMb', 'cpuMs'),
  },
  {
    name: 'memory: one huge Array.fill',
    family: 'bomb',
    weight: 1,
    code: `new Array(1e9).fill(0); return 1;`,
    // The fill runs seconds before V8 gives up (4-6 s at load 15 here): under a heavy load wallMs can come first.
    // V8's out-of-memory death takes the whole sandbox process: when it held another run of this
    // agent too (one still ending, with run slots), the host cannot tell whose it was and fails
    // them all as a crash that says so (docs/run-code.md, run slots).
    check: (r, end) => (end?.outcome === 'crash' && /ran out of memory while it held [2-9] runs of this agent/.test(r.error?.message ?? '') ? undefined : endedAt('memoryMb', 'rssMb', 'wallMs')(r, end)),
  },
  {
    name: 'memory: string doubling',
    family: 'bomb',
    weight: 1,
    code: `let s = 'x'; for (;;) s = s + s; return s.length;`,
    check: (r, end) => (r.isError && (end?.outcome === 'thrown' || end?.outcome === 'limit') ? undefined : `expected a RangeError or a memory limit, got ${r.isError ? end?.outcome : 'a result'}`),
  },
  {
    name: 'cpu: busy loop',
    family: 'bomb',
    weight: 2,
    code: `for (;;) {}`,
    check: endedAt('cpuMs'),
  },
  {
    name: 'cpu: endless promise chain left behind after return',
    family: 'bomb',
    weight: 2,
    code: `const spin = (): Promise<void> => Promise.resolve().then(spin); void spin(); return 'returned';`,
    // Issue 17 item 3 (another helper's): CPU spent after the return must end the run at a limit.
    // Each promise here resolves with the next spin's, so the whole chain stays reachable and
    // memory grows with the CPU spent (in a bare isolate with a 64 MB limit it ran out after 1.1 s), so
    // cpuMs (1,500 here) or memoryMb may come first (2026-12-07: 1 of 171 runs at memoryMb).
    check: endedAt('cpuMs', 'memoryMb'),
  },
  {
    name: 'output: huge result',
    family: 'bomb',
    weight: 1,
    code: `return 'x'.repeat(20_000_000);`,
    // Converting 20 MB takes CPU time: under load cpuMs can come first.
    check: endedAt('maxResultBytes', 'memoryMb', 'cpuMs'),
  },
  // ---- floods --------------------------------------------------------------------------------
  {
    name: 'call flood past maxCalls',
    family: 'flood',
    weight: 2,
    code: `await Promise.all(Array.from({ length: 5000 }, (_, i) => tools.echo({ text: String(i) }))); return 'all';`,
    check: endedAt('maxCalls'),
  },
  {
    name: 'log flood past maxLogBytes',
    family: 'flood',
    weight: 2,
    code: `const line = 'log '.repeat(256); for (;;) console.log(line);`,
    check: endedAt('maxLogBytes'),
  },
  {
    name: 'huge arguments',
    family: 'flood',
    weight: 2,
    code: `let refused = 0;
for (let i = 0; i < 5; i++) { try { await tools.echo({ text: 'y'.repeat(3_000_000) }); } catch (e) { if (e instanceof ToolCallError) refused++; } }
return refused;`,
    // Measuring 15 MB of arguments takes CPU time in the isolate: under load cpuMs can end the run first.
    check: (r, end) => (r.isError ? (end?.limit === 'cpuMs' ? undefined : `failed: ${r.error?.message.slice(0, 160)}`) : value(r) === 5 ? undefined : `expected 5 refusals, got ${JSON.stringify(value(r))}`),
  },
  {
    name: 'invalid 100k-item arguments (host amplification)',
    family: 'flood',
    weight: 2,
    code: `const bad = Array.from({ length: 99_000 }, (_, i) => i);
let refused = 0;
for (let i = 0; i < 10; i++) { try { await tools.echo({ text: bad as any }); } catch (e) { if (e instanceof ToolCallError) refused++; } }
return refused;`,
    check: (r, end) => (!r.isError ? (value(r) === 10 ? undefined : `expected 10 refusals, got ${JSON.stringify(value(r))}`) : end?.outcome === 'limit' ? undefined : `failed: ${r.error?.message.slice(0, 160)}`),
  },
  // ---- aborts --------------------------------------------------------------------------------
  {
    name: 'aborted mid-run',
    family: 'abort',
    weight: 3,
    abortAfterMs: 120,
    code: `for (let i = 0; i < 1000; i++) await tools.slow({ ms: 5 }); return 'finished';`,
    check: failedAs(['aborted']),
  },
  {
    name: 'aborted while computing',
    family: 'abort',
    weight: 1,
    abortAfterMs: 80,
    code: `let x = 0; for (let i = 0; i < 1e12; i++) x += i; return x;`,
    check: (r, end) => (r.isError && ['aborted', 'limit'].includes(end?.outcome ?? '') ? undefined : `expected aborted (or cpuMs first), got ${r.isError ? end?.outcome : 'a result'}`),
  },
  // ---- approvals -----------------------------------------------------------------------------
  {
    name: 'deploys that ask for approval',
    family: 'approval',
    weight: 3,
    code: `const answers = await Promise.all(['api', 'web', 'db'].map(async (service) => {
  try { return await tools.deploy({ service }); } catch (e) { return e instanceof ToolCallError ? 'refused' : 'other'; }
}));
return answers.filter((a) => a === 'other').length;`,
    check: ok((v) => v === 0, 'expected every deploy deployed or refused'),
  },
  {
    name: 'approval pending when the run is aborted',
    family: 'approval',
    weight: 1,
    abortAfterMs: 60,
    code: `await tools.deploy({ service: 'slow-approval' }); return 'deployed';`,
    check: failedAs(['aborted']),
  },
];
