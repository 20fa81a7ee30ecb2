/**
 * Guest source, part of the bootstrap (see bootstrap-source.ts for the invariants): the calls
 * (`tools`, batching, delivery of outcomes) and the program's start and
 * end. Concatenated into the bootstrap's closure after the JSON and console parts.
 */

/** Calls: queue, flush, deliver, `makeTool`. */
export const GUEST_CALLS_SOURCE = String.raw`// ---- calls -------------------------------------------------------------------------------------
// A call waiting for its outcome. Class fields are defined, not assigned, so a setter the program
// puts on Object.prototype never sees these.
class PendingCall { resolve; reject; name; site; promise; constructor(resolve, reject, name, site, promise) { this.resolve = resolve; this.reject = reject; this.name = name; this.site = site; this.promise = promise; } }
// By call id: ids are dense, so this stays a fast array; a settled call's slot is undefined.
const pending = list();
let pendingCount = 0;
let ended = false;
let nextId = 1;
const queue = list();
let flushScheduled = false;
const resolved = ReflectApply(PromiseThen, PromiseCtor.resolve(), []);
const MAX_BATCH = 3 * 1024;
const ignore = (function ignore() {});
// One executor for every call's promise (no closure per call): the constructor calls it at once.
let executorResolve;
let executorReject;
const captureSettlers = (function captureSettlers(resolve, reject) { executorResolve = resolve; executorReject = reject; });
function scheduleFlush() {
  if (!flushScheduled) { flushScheduled = true; ReflectApply(PromiseThen, resolved, [flush]); }
}
// Sends the calls queued in this microtask turn, in messages of at most MAX_BATCH items. The host
// queues them (isolated-vm copies the list during the call) and dispatches them when its slice
// returns; it pushes the outcomes back in with entry('deliver', outcomes) in a later slice.
const flush = (function flush() {
  flushScheduled = false;
  const n = queue.length;
  if (n === 0) return;
  if (n === 3) {
    // One call crosses as primitives (no array for isolated-vm to serialize).
    const id = queue[0]; const name = queue[1]; const json = queue[2];
    queue.length = 0;
    ReflectApply(applySync, dispatchRef, [undefined, ['call1', id, name, json], CALL1_OPTIONS]);
    return;
  }
  if (n <= MAX_BATCH) { send('calls', queue); queue.length = 0; return; }
  for (let from = 0; from < n; from += MAX_BATCH) {
    const part = list();
    const end = MathMin(n, from + MAX_BATCH);
    for (let i = from; i < end; i++) part[i - from] = queue[i];
    send('calls', part);
  }
  queue.length = 0;
});
// staticSite: where the program names this tool, when it names it exactly once (see
// staticSites); otherwise each call captures its call site, which costs a few µs per call.
const makeTool = (function makeTool(name, staticSite) {
  const tool = (function (args) {
    let site = staticSite;
    if (site === undefined) {
      site = { __proto__: null };
      ErrorCaptureStackTrace(site, tool);
    }
    let json;
    try {
      json = toJsonText(args, 'args', caps.argCaps);
    } catch (e) {
      const detail = e instanceof Refusal
        ? e.path + ' ' + e.problem + (e.limit ? ' (' + e.limit + '=' + e.value + ')' : '')
        : shortMessage(e);
      const refusal = new ToolCallError(name, 'Arguments of tools.' + name + ' cannot be sent: ' + detail + '. Only JSON data crosses (objects, arrays, strings, finite numbers, booleans, null).');
      ReflectApply(WeakMapSet, callSites, [refusal, site]);
      const refused = new PromiseCtor(captureSettlers);
      ReflectApply(PromiseThen, refused, [undefined, ignore]);
      executorReject(refusal);
      return refused;
    }
    const promise = new PromiseCtor(captureSettlers);
    const id = nextId++;
    pending[id] = new PendingCall(executorResolve, executorReject, name, site, promise);
    pendingCount++;
    const at = queue.length;
    queue[at] = id; queue[at + 1] = name; queue[at + 2] = json;
    scheduleFlush();
    return promise;
  });
  ObjectDefineProperty(tool, 'name', { value: name });
  return ObjectFreeze(tool);
});
// One outcome: ok 1 with the result's JSON text, or ok 0 with the tool name and the message.
const deliverOne = (function deliverOne(id, ok, jsonOrToolName, message) {
  const entry = pending[id];
  if (entry === undefined) return;
  pending[id] = undefined;
  pendingCount--;
  if (ok === 1) {
    let value;
    try { value = JSONParse(jsonOrToolName); } catch {
      ReflectApply(PromiseThen, entry.promise, [undefined, ignore]);
      entry.reject(new ToolCallError(entry.name, 'The result of tools.' + entry.name + ' was not valid JSON.'));
      return;
    }
    entry.resolve(value);
  } else {
    const failure = new ToolCallError(jsonOrToolName, message);
    ReflectApply(WeakMapSet, callSites, [failure, entry.site]);
    // A failed call the program never awaits is in the run's call list, not an unhandled
    // rejection (isolated-vm would rethrow that out of the slice).
    ReflectApply(PromiseThen, entry.promise, [undefined, ignore]);
    entry.reject(failure);
  }
});
const deliver = (function deliver(items) {
  for (let i = 0; i + 3 < items.length; i += 4) deliverOne(items[i], items[i + 1], items[i + 2], items[i + 3]);
});
`;

/** The program: compile, run, report the end; and the `entry` function returned to the host. */
export const GUEST_PROGRAM_SOURCE = String.raw`// ---- the program -------------------------------------------------------------------------------
function locate(e) {
  if (ArrayIsArray(e)) return e; // a static site: [line, column]
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
  const m = ReflectApply(RegExpExec, STACK_FRAME, [stack]);
  return m === null ? [-1, -1] : [+m[1], +m[2]];
}
function describeThrown(e) {
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
      try { message = 'Uncaught ' + toJsonText(e, 'thrown', { __proto__: null, maxBytes: caps.maxResultBytes, maxDepth: 64, maxNodes: 1e9 }); }
      catch { message = 'Uncaught ' + shortMessage(e); }
    }
  }
  if (message.length > caps.maxResultBytes) {
    message = ReflectApply(StringSlice, message, [0, caps.maxResultBytes]) + ' ... [message cut at maxResultBytes=' + caps.maxResultBytes + ']';
  }
  let where = typeof e === 'object' && e !== null ? locate(e) : [-1, -1];
  if (where[0] === -1 && typeof e === 'object' && e !== null) {
    const site = ReflectApply(WeakMapGet, callSites, [e]);
    if (site !== undefined) where = locate(site);
  }
  ended = true;
  send('end', ['throw', message, where[0], where[1]]);
}
const onReturn = (function onReturn(value) {
  ended = true;
  let json;
  try {
    json = toJsonText(value, 'result', caps.resultCaps);
  } catch (e) {
    if (e instanceof Refusal && e.limit === 'maxResultBytes') {
      send('end', ['limit', 'maxResultBytes', e.value, 'The returned value is larger than maxResultBytes=' + e.value + ' bytes as JSON (at ' + e.path + ').']);
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
const compileProgram = (function compileProgram(js) { return new AsyncFunction(js + '\n//# sourceURL=ptc-program.js'); });
let started = false;
const start = (function start(data) {
  if (started) return;
  started = true;
  const js = data[0];
  const names = JSONParse(data[1]);
  const c = JSONParse(data[2]);
  caps = { __proto__: null,
    maxLogBytes: c.maxLogBytes,
    maxResultBytes: c.maxResultBytes,
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
// Returns -1 once the program ended, else how many of its calls are pending (read before the
// microtasks this call releases run; the host keeps its own exact account).
return function entry(op, data, a, b, c) {
  if (op === 'deliver') { if (ArrayIsArray(data)) deliver(data); }
  else if (op === 'deliver1') deliverOne(data, a, b, c);
  else if (op === 'start') start(data);
  else if (op === 'warm') { if (!started) warm(); }
  return ended ? -1 : pendingCount;
};`;
