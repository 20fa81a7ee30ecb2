// @ts-check
/*
 * The guest, part 7 of 7: the program's start and end, the warm-up, and `entry`, the function
 * the bootstrap returns to the host (guest-source.ts appends `return entry;`). The host calls it
 * with `applySync` (protocol.ts EntryArgs): `warm` once for a pooled isolate, `start` once with
 * the program, then `deliver` / `deliver1` with batches of call outcomes. The program resumes in
 * the microtasks V8 runs before each of those calls returns.
 */
const STACK_FRAME = /ptc-program\.js:(\d+):(\d+)/;
/**
 * Where in the program (line, column of ptc-program.js) an error or a captured call site is, or
 * [-1, -1].
 * @param {any} e
 * @returns {StaticSite | [number, number]}
 */
function locate(e) {
  if (ArrayIsArray(e)) return /** @type {StaticSite} */ (/** @type {unknown} */ (e)); // a static site: [line, column]
  // The program's line and column, read from the stack V8 formats by default.
  let stack;
  const saved = ObjectGetOwnPropertyDescriptor(ErrorCtor, 'prepareStackTrace');
  try {
    if (saved !== undefined && saved.configurable) ReflectDeleteProperty(ErrorCtor, 'prepareStackTrace');
    stack = e.stack;
  } catch { stack = undefined; } finally {
    try { if (saved !== undefined && saved.configurable) ObjectDefineProperty(ErrorCtor, 'prepareStackTrace', saved); } catch { /* ignore */ }
  }
  if (typeof stack !== 'string') return [-1, -1];
  /** @type {RegExpExecArray | null} */
  const m = ReflectApply(RegExpExec, STACK_FRAME, [stack]);
  return m === null ? [-1, -1] : [+m[1], +m[2]];
}
/** Ends the run with what the program threw. @param {any} e */
function describeThrown(e) {
  const runCaps = /** @type {RunCaps} */ (caps);
  /** @type {string | undefined} */
  let message;
  if (typeof e === 'object' && e !== null) {
    let name; let msg;
    try { name = e.name; msg = e.message; } catch (inner) { msg = undefined; }
    if (typeof msg === 'string') message = (typeof name === 'string' && name ? name : 'Error') + ': ' + msg;
  }
  if (message === undefined) {
    if (typeof e === 'string') message = e;
    else if (e === null || (typeof e !== 'object' && typeof e !== 'function')) {
      // undefined, NaN, Infinity, a symbol or a BigInt: JSON would say null, or nothing at all.
      message = 'Uncaught ' + StringCtor(e) + (typeof e === 'bigint' ? 'n' : '');
    } else {
      try { message = 'Uncaught ' + toJsonText(e, 'thrown', { __proto__: null, maxBytes: runCaps.maxResultBytes, maxDepth: 64, maxNodes: 1e9, callToJSON: true }); }
      catch { message = 'Uncaught ' + shortMessage(e); }
    }
  }
  if (message.length > runCaps.maxResultBytes) {
    message = ReflectApply(StringSlice, message, [0, runCaps.maxResultBytes]) + ' ... [message cut at ' + limitText('maxResultBytes', runCaps.maxResultBytes) + ']';
  }
  let where = typeof e === 'object' && e !== null ? locate(e) : [-1, -1];
  if (where[0] === -1 && typeof e === 'object' && e !== null) {
    const site = ReflectApply(WeakMapGet, callSites, [e]);
    if (site !== undefined) where = locate(site);
  }
  ended = true;
  send('end', ['throw', message, where[0], where[1]]);
}
const onReturn = (/** @param {unknown} value */ function onReturn(value) {
  ended = true;
  let json;
  try {
    json = toJsonText(value, 'result', /** @type {RunCaps} */ (caps).resultCaps);
  } catch (e) {
    if (e instanceof Refusal && e.limit === 'maxResultBytes') {
      send('end', ['limit', 'maxResultBytes', /** @type {number} */ (e.value), 'The returned value is larger than ' + limitText('maxResultBytes', e.value) + ' bytes as JSON (at ' + e.path + ').']);
      return;
    }
    const detail = e instanceof Refusal ? e.path + ' ' + e.problem : shortMessage(e);
    send('end', ['throw', 'The returned value cannot be converted to JSON: ' + detail, -1, -1]);
    return;
  }
  send('end', ['return', json]);
});
// V8 records where a dynamic function was made from and, on the first one made from a function,
// recompiles that function to find source positions: in a small function made for it, once, at
// warm-up (from the 30 KB bootstrap function that took 0.7 ms; from start() 70 µs of the run).
const compileProgram = (/** @param {string} js */ function compileProgram(js) { return new AsyncFunction(js + '\n//# sourceURL=ptc-program.js'); });
// Durable runs (docs/run-life.md): a seeded Math.random, and a Date (and Intl's formatting of "now")
// that reads the recorded clock: the clock of the slice, plus 1 ms per reading in it. With the same
// seed and the same batches at the same clocks, a replay sees exactly what the first run saw.
let deterministic = false;
let clockBase = 0;
let clockReads = 0;
function clockNow() { return clockBase + clockReads++; }
/** @param {unknown} clockMs */
function setClock(clockMs) {
  if (deterministic && typeof clockMs === 'number') { clockBase = clockMs; clockReads = 0; }
}
/** @param {number} x @param {number} k */
function rotl(x, k) { return (x << k) | (x >>> (32 - k)); }
const makeDeterministic = (/** @param {string} seedHex @param {number} clockMs */ function makeDeterministic(seedHex, clockMs) {
  deterministic = true;
  clockBase = clockMs;
  // xoshiro128**, two outputs per number for 53 random bits.
  let s0 = NumberParseInt(ReflectApply(StringSlice, seedHex, [0, 8]), 16) | 0;
  let s1 = NumberParseInt(ReflectApply(StringSlice, seedHex, [8, 16]), 16) | 0;
  let s2 = NumberParseInt(ReflectApply(StringSlice, seedHex, [16, 24]), 16) | 0;
  let s3 = NumberParseInt(ReflectApply(StringSlice, seedHex, [24, 32]), 16) | 0;
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;
  const next = function next() {
    const result = MathImul(rotl(MathImul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11);
    return result;
  };
  ObjectDefineProperty(MathObject, 'random', { value: function random() { return ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992; }, writable: true, enumerable: false, configurable: true });
  const DurableDate = /** @type {DateConstructor} */ (/** @type {unknown} */ (function Date() {
    const now = list();
    if (new.target === undefined) { now[0] = clockNow(); return ReflectApply(DateToString, ReflectConstruct(DateCtor, now), []); }
    if (arguments.length === 0) { now[0] = clockNow(); return ReflectConstruct(DateCtor, now, new.target); }
    return ReflectConstruct(DateCtor, arguments, new.target);
  }));
  ObjectDefineProperty(DurableDate, 'length', { value: 7 });
  ObjectDefineProperty(DurableDate, 'prototype', { value: DateProto, writable: false, enumerable: false, configurable: false });
  ObjectDefineProperty(DurableDate, 'now', { value: function now() { return clockNow(); }, writable: true, enumerable: false, configurable: true });
  ObjectDefineProperty(DurableDate, 'parse', { value: DateParse, writable: true, enumerable: false, configurable: true });
  ObjectDefineProperty(DurableDate, 'UTC', { value: DateUTC, writable: true, enumerable: false, configurable: true });
  ObjectDefineProperty(DateProto, 'constructor', { value: DurableDate, writable: true, enumerable: false, configurable: true });
  ObjectDefineProperty(G, 'Date', { value: DurableDate, writable: true, enumerable: false, configurable: true });
  // Intl formats "now" when given no date.
  const formatGetter = getter(IntlDateTimeFormatProto, 'format');
  ObjectDefineProperty(IntlDateTimeFormatProto, 'format', {
    get: function format() {
      const bound = ReflectApply(formatGetter, this, []);
      return function (/** @type {unknown} */ date) { return bound(date === undefined ? clockNow() : date); };
    },
    enumerable: false,
    configurable: true,
  });
  ObjectDefineProperty(IntlDateTimeFormatProto, 'formatToParts', {
    value: function formatToParts(/** @type {unknown} */ date) { const at = list(); at[0] = date === undefined ? clockNow() : date; return ReflectApply(IntlFormatToParts, this, at); },
    writable: true,
    enumerable: false,
    configurable: true,
  });
});
let started = false;
const start = (/** @param {import('./protocol.js').StartData} data */ function start(data) {
  if (started) return;
  started = true;
  const js = data[0];
  /** @type {string[]} */
  const names = JSONParse(data[1]);
  /** @type {import('./protocol.js').GuestCaps} */
  const c = JSONParse(data[2]);
  caps = { __proto__: null,
    maxLogBytes: c.maxLogBytes,
    maxResultBytes: c.maxResultBytes,
    maxSleeps: c.maxSleeps,
    argCaps: { __proto__: null, maxBytes: c.maxArgBytes, maxDepth: c.maxArgDepth, maxNodes: c.maxArgNodes, bytesLimit: 'maxArgBytes', depthLimit: 'maxArgDepth', nodesLimit: 'maxArgNodes' },
    resultCaps: { __proto__: null, maxBytes: c.maxResultBytes, maxDepth: 512, maxNodes: 1e15, bytesLimit: 'maxResultBytes', depthLimit: undefined, nodesLimit: undefined },
  };
  const tools = ObjectCreate(null);
  const sites = staticSites(js);
  for (let i = 0; i < names.length; i++) {
    ObjectDefineProperty(tools, names[i], { value: makeTool(names[i], sites[names[i]]), enumerable: true, writable: false, configurable: false });
  }
  ObjectFreeze(tools);
  ObjectDefineProperty(G, 'tools', { value: tools, writable: false, enumerable: false, configurable: false });
  const determinism = data[3];
  if (typeof determinism === 'string' && determinism !== '') {
    /** @type {{ seed: string, clockMs: number }} */
    const d = JSONParse(determinism);
    makeDeterministic(d.seed, d.clockMs);
  }
  let program;
  try {
    program = compileProgram(js);
  } catch (e) {
    ended = true;
    send('end', ['syntax', shortMessage(e)]);
    return;
  }
  const promise = ReflectApply(program, undefined, []);
  ReflectApply(PromiseThen, promise, [onReturn, describeThrown]);
});
// Warm-up of a pooled isolate, before any program exists (entry('warm'); a new isolate that a
// run waits for skips it: its run pays only for what it uses). Runs the conversion every call and
// result goes through once, so it is compiled before the run (the functions above that a run
// needs are parenthesized, which makes V8 compile them with the bootstrap rather than on first
// use); and what every start runs once: finding tool names, the first AsyncFunction, the first
// message to the host (which the host ignores while it prepares the isolate).
const warm = (function warm() {
  toJsonText({ a: [1, 'x', true, null], b: { c: 1.5 } }, 'warm', { __proto__: null, maxBytes: 1024, maxDepth: 8, maxNodes: 100, bytesLimit: undefined, depthLimit: undefined, nodesLimit: undefined });
  staticSites('tools.a(1); tools?.b(2);\ntools["c"](3);');
  ReflectApply(PromiseThen, ReflectApply(compileProgram('return 1;'), undefined, []), [ignore, ignore]);
  ReflectApply(applySync, dispatchRef, [undefined, ['warm'], CALL1_OPTIONS]);
});
/**
 * The host's way in (protocol.ts EntryArgs; `deliver1` passes one outcome as four primitives,
 * so a sequential call crosses no array). Returns -1 once the program ended, else how many of
 * its calls are pending (read before the microtasks this call releases run; the host keeps its
 * own exact account).
 * @param {import('./protocol.js').EntryOp} op
 * @param {any} [data]
 * @param {any} [a]
 * @param {any} [b]
 * @param {any} [c]
 * @param {any} [d]
 * @returns {number}
 */
function entry(op, data, a, b, c, d) {
  if (op === 'deliver') { setClock(a); if (ArrayIsArray(data)) deliver(data); }
  else if (op === 'deliver1') { setClock(d); deliverOne(data, a, b, c); }
  else if (op === 'start') start(data);
  else if (op === 'warm') { if (!started) warm(); }
  return ended ? -1 : pendingCount;
}
