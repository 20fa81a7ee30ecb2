/**
 * The guest half of a run: JavaScript that runs inside a fresh isolate context before any program
 * code, compiled by `context.evalClosure` with the host's one capability as `$0`.
 *
 * Invariants this file owns (the security of the in-isolate half rests on them):
 * - The dispatch `ivm.Reference` (`$0`) lives only in this closure. It is never stored on an
 *   object the program can reach, never passed to a guest callback, and every call through it
 *   uses frozen null-prototype option objects, so a program that defines `Object.prototype.reference`
 *   (or `copy`, `result`, ...) cannot change how isolated-vm transfers values.
 * - Every builtin the bootstrap uses is captured here, before the program exists. The program may
 *   monkey-patch `JSON`, `Object`, `Array.prototype`, `Promise`, `Reflect`: the bootstrap keeps
 *   working and never calls the patched versions. Lists it fills have a null prototype, so an
 *   index setter on `Array.prototype` never sees them.
 * - `Promise.prototype` and `Promise[Symbol.species]` are frozen: isolated-vm settles the guest
 *   side of an `apply` through them, so a program could otherwise stall its own calls.
 * - The code is strict: V8 then hides `this` and the function of these frames from
 *   `Error.prepareStackTrace` call sites, so a program's stack hook sees nothing of ours.
 * - The global scope is reduced to an allow-list of ECMAScript builtins (fail closed: whatever
 *   else an engine or isolated-vm adds is deleted), plus `tools`, `ToolCallError`, `console`.
 *   `WebAssembly`, `SharedArrayBuffer`, `Atomics`, `WeakRef`, `FinalizationRegistry` and V8's own
 *   `console` are removed. `eval` and `Function` stay: they only reach this isolate.
 * - Only strings and numbers leave the isolate. Arguments, the return value and the thrown value
 *   are converted to JSON text here, inside the CPU budget, so a getter or Proxy trap runs as
 *   program code in the isolate, never on the host. The walk refuses functions, symbols, BigInt,
 *   cycles, Promises, Maps, Sets, binary data, and enforces the caps as it goes (bytes, depth,
 *   nodes), so an exploding shared-reference graph stops at the cap.
 * - The program is compiled with the `AsyncFunction` constructor, which parses the body on its
 *   own: a body that closes the wrapper's brace is a syntax error, not an injection.
 *
 * Messages to the host (`$0.applyIgnored(undefined, [kind, list])`, strings and numbers only):
 *   `wait`   [id, name, argsJson, ...]     sent with `$0.apply(..., { result: { promise: true } })`:
 *            calls queued in one microtask turn, and a request for the next batch of outcomes
 *            ([id, ok, jsonOrToolName, message, ...]), which the host's promise resolves with
 *   `calls`  [id, name, argsJson, ...]     more calls while a wait is outstanding
 *   `log`    [level, text]
 *   `limit`  [limitName, value]            a cap enforced here was passed (maxLogBytes)
 *   `end`    ['return', json] | ['throw', message, line, column] | ['syntax', message]
 *            | ['limit', limitName, value, message]
 * The host calls the returned entry function: `entry('start', [js, toolNamesJson, capsJson])` once,
 * and `entry('probe', [])` to ask whether an idle program can still resume. Each returns -1 once
 * the program ended, else the number of its pending calls (0: it can never resume).
 */

/** Lines the `AsyncFunction` constructor puts before the body (`(async function anonymous(\n) {\n`). */
export const PROGRAM_HEADER_LINES = 2;

/** The `sourceURL` of the program's code, so its stack frames can be told from everything else. */
export const PROGRAM_URL = 'ptc-program.js';

/** Guest bootstrap source, for `context.evalClosure(BOOTSTRAP_SOURCE, [dispatchReference])`. */
export const BOOTSTRAP_SOURCE = String.raw`'use strict';
const dispatchRef = $0;
const G = globalThis;
const ReflectApply = Reflect.apply;
const ReflectOwnKeys = Reflect.ownKeys;
const ReflectDeleteProperty = Reflect.deleteProperty;
const ObjectCreate = Object.create;
const ObjectFreeze = Object.freeze;
const ObjectKeys = Object.keys;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectSetPrototypeOf = Object.setPrototypeOf;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ArrayIsArray = Array.isArray;
const JSONStringify = JSON.stringify;
const JSONParse = JSON.parse;
const StringCtor = String;
const NumberIsFinite = Number.isFinite;
const MathMin = Math.min;
const ObjectProto = Object.prototype;
const ArrayProto = Array.prototype;
const PromiseCtor = Promise;
const PromiseProto = Promise.prototype;
const PromiseThen = Promise.prototype.then;
const ErrorCtor = Error;
const ErrorCaptureStackTrace = Error.captureStackTrace;
const WeakMapGet = WeakMap.prototype.get;
const WeakMapSet = WeakMap.prototype.set;
// A ToolCallError is created when the outcome arrives, far from the program's line; the call
// site captured when the program made the call gives that line to an uncaught one.
const callSites = new WeakMap();
const ErrorProto = Error.prototype;
const RegExpExec = RegExp.prototype.exec;
const StringSlice = String.prototype.slice;
const ArrayBufferIsView = ArrayBuffer.isView;
const getter = (proto, key) => ObjectGetOwnPropertyDescriptor(proto, key).get;
const brandGetters = [
  [getter(ArrayBuffer.prototype, 'byteLength'), 'an ArrayBuffer'],
  [getter(Map.prototype, 'size'), 'a Map'],
  [getter(Set.prototype, 'size'), 'a Set'],
  [getter(RegExp.prototype, 'source'), 'a RegExp'],
];
if (typeof SharedArrayBuffer === 'function') brandGetters[brandGetters.length] = [getter(SharedArrayBuffer.prototype, 'byteLength'), 'a SharedArrayBuffer'];
const brandHas = [[WeakMap.prototype.has, 'a WeakMap'], [WeakSet.prototype.has, 'a WeakSet']];
const AsyncFunction = ObjectGetPrototypeOf(async function () {}).constructor;
const applyIgnored = dispatchRef.applyIgnored;
const applyCall = dispatchRef.apply;
const SEND_OPTIONS = ObjectFreeze({ __proto__: null, arguments: ObjectFreeze({ __proto__: null, copy: true }) });
const WAIT_OPTIONS = ObjectFreeze({
  __proto__: null,
  arguments: ObjectFreeze({ __proto__: null, copy: true }),
  result: ObjectFreeze({ __proto__: null, promise: true, copy: true }),
});
const STACK_FRAME = /ptc-program\.js:(\d+):(\d+)/;
if ((function () { return this; })() !== undefined) throw new ErrorCtor('bootstrap must be strict');
// isolated-vm settles the promise of an apply through the guest's Promise.prototype.then (and its
// species): a program replacing them could stall or forge the outcomes of its own calls. Both are
// locked before any program exists.
ObjectFreeze(PromiseProto);
ObjectDefineProperty(PromiseCtor, Symbol.species, { configurable: false });

function list() { const a = []; ObjectSetPrototypeOf(a, null); return a; }
function send(kind, items) { ReflectApply(applyIgnored, dispatchRef, [undefined, [kind, items], SEND_OPTIONS]); }

// Only these globals survive (ECMAScript builtins; everything else is deleted, fail closed).
const ALLOWED = ObjectCreate(null);
for (const name of ['Object', 'Function', 'Array', 'Number', 'parseFloat', 'parseInt', 'Infinity', 'NaN',
  'undefined', 'Boolean', 'String', 'Symbol', 'Date', 'Promise', 'RegExp', 'Error', 'AggregateError',
  'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'globalThis', 'JSON',
  'Math', 'Intl', 'ArrayBuffer', 'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array',
  'Int32Array', 'Float32Array', 'Float64Array', 'Uint8ClampedArray', 'BigUint64Array', 'BigInt64Array',
  'DataView', 'Map', 'BigInt', 'Set', 'WeakMap', 'WeakSet', 'Proxy', 'Reflect', 'decodeURI',
  'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape', 'eval', 'isFinite', 'isNaN']) {
  ALLOWED[name] = true;
}
for (const key of ReflectOwnKeys(G)) {
  if (typeof key === 'string' && ALLOWED[key] === true) continue;
  if (ReflectDeleteProperty(G, key)) continue;
  // Not configurable (a V8 flag such as --expose-gc can add one): overwrite it, or refuse to run.
  try { G[key] = undefined; } catch { /* checked below */ }
  if (G[key] !== undefined) throw new ErrorCtor('bootstrap could not remove global ' + StringCtor(key));
}

// ---- JSON conversion inside the isolate ------------------------------------------------------
// Class fields define own properties, so a setter on Object.prototype never sees these.
class Refusal { path; problem; limit; value; constructor(path, problem, limit, value) { this.path = path; this.problem = problem; this.limit = limit; this.value = value; } }
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
function childPath(path, key) {
  if (typeof key === 'number') return path + '[' + key + ']';
  return ReflectApply(RegExpExec, IDENT, [key]) !== null ? path + '.' + key : path + '[' + JSONStringify(key) + ']';
}
function brandOf(value) {
  const proto = ObjectGetPrototypeOf(value);
  if (proto === ObjectProto || proto === ArrayProto || proto === null) return undefined;
  if (ArrayBufferIsView(value)) return 'binary data (a typed array or DataView)';
  for (let i = 0; i < brandGetters.length; i++) {
    try { ReflectApply(brandGetters[i][0], value, []); return brandGetters[i][1]; } catch { /* not this kind */ }
  }
  for (let i = 0; i < brandHas.length; i++) {
    try { ReflectApply(brandHas[i][0], value, [value]); return brandHas[i][1]; } catch { /* not this kind */ }
  }
  if (proto === PromiseProto) return 'a Promise (did you forget await?)';
  return undefined;
}
/**
 * Converts a value to JSON text. caps: { maxBytes, maxDepth, maxNodes, bytesLimit, depthLimit,
 * nodesLimit } (limit names reported on refusal). Throws a Refusal.
 */
function toJsonText(root, rootPath, caps) {
  let nodes = 0;
  let chars = 0;
  const ancestors = list();
  let depth = 0;
  function walk(value, path, key) {
    if (typeof value === 'object' && value !== null || typeof value === 'function') {
      let toJSON;
      try { toJSON = value.toJSON; } catch (e) { throw new Refusal(path, 'threw while reading toJSON: ' + shortMessage(e)); }
      if (typeof toJSON === 'function') {
        try { value = ReflectApply(toJSON, value, [key]); } catch (e) { throw new Refusal(path, 'its toJSON() threw: ' + shortMessage(e)); }
      }
    }
    if (++nodes > caps.maxNodes) throw new Refusal(path, 'has more than ' + caps.maxNodes + ' values', caps.nodesLimit, caps.maxNodes);
    let out;
    switch (typeof value) {
      case 'string': out = JSONStringify(value); break;
      case 'number': out = NumberIsFinite(value) ? '' + value : 'null'; break;
      case 'boolean': out = value ? 'true' : 'false'; break;
      case 'undefined': return undefined;
      case 'function': throw new Refusal(path, 'is a function');
      case 'symbol': throw new Refusal(path, 'is a symbol');
      case 'bigint': throw new Refusal(path, 'is a BigInt (convert it to a string or number)');
      default: {
        if (value === null) { out = 'null'; break; }
        for (let i = 0; i < depth; i++) if (ancestors[i] === value) throw new Refusal(path, 'is a cycle (it contains itself)');
        if (depth >= caps.maxDepth) throw new Refusal(path, 'is nested deeper than ' + caps.maxDepth + ' levels', caps.depthLimit, caps.maxDepth);
        const brand = brandOf(value);
        if (brand !== undefined) throw new Refusal(path, 'is ' + brand + ', which cannot cross as JSON');
        ancestors[depth++] = value;
        try {
          if (ArrayIsArray(value)) {
            const length = value.length;
            out = '[';
            for (let i = 0; i < length; i++) {
              const item = walk(value[i], childPath(path, i), StringCtor(i));
              out += (i === 0 ? '' : ',') + (item === undefined ? 'null' : item);
              if ((chars + out.length) > caps.maxBytes) throw tooBig(path);
            }
            out += ']';
          } else {
            const isError = value instanceof ErrorCtor;
            const keys = isError ? ['name', 'message'] : ObjectKeys(value);
            out = '{';
            let first = true;
            for (let i = 0; i < keys.length; i++) {
              const k = keys[i];
              const item = walk(value[k], childPath(path, k), k);
              if (item === undefined) continue;
              out += (first ? '' : ',') + JSONStringify(k) + ':' + item;
              first = false;
              if ((chars + out.length) > caps.maxBytes) throw tooBig(path);
            }
            out += '}';
          }
        } catch (e) {
          if (e instanceof Refusal) throw e;
          throw new Refusal(path, 'threw while being read: ' + shortMessage(e));
        } finally {
          depth--;
        }
      }
    }
    return out;
  }
  function tooBig(path) { return new Refusal(path, 'is larger than ' + caps.maxBytes + ' bytes as JSON', caps.bytesLimit, caps.maxBytes); }
  let text;
  try {
    text = walk(root, rootPath, '');
  } catch (e) {
    if (e instanceof Refusal) throw e;
    throw new Refusal(rootPath, 'could not be converted: ' + shortMessage(e));
  }
  if (text === undefined) text = 'null';
  // Length in UTF-16 units is a lower bound of UTF-8 bytes; the host checks the exact byte count.
  if (text.length > caps.maxBytes) throw tooBig(rootPath);
  return text;
}
function shortMessage(e) {
  try {
    if (e instanceof Refusal) return e.path + ' ' + e.problem;
    if (typeof e === 'object' && e !== null) {
      const name = e.name; const message = e.message;
      if (typeof message === 'string') return (typeof name === 'string' && name ? name : 'Error') + ': ' + message;
    }
    if (typeof e === 'string') return e;
    return StringCtor(e);
  } catch {
    return 'an unprintable value';
  }
}

// ---- ToolCallError and console -----------------------------------------------------------------
class ToolCallError extends ErrorCtor {
  constructor(toolName, message) {
    super(StringCtor(message));
    ObjectDefineProperty(this, 'toolName', { value: StringCtor(toolName), enumerable: true, writable: false, configurable: false });
    ObjectDefineProperty(this, 'stack', { value: 'ToolCallError: ' + StringCtor(message), enumerable: false, writable: true, configurable: true });
  }
}
ObjectDefineProperty(ToolCallError.prototype, 'name', { value: 'ToolCallError', enumerable: false, writable: false, configurable: false });
ObjectFreeze(ToolCallError.prototype);
ObjectFreeze(ToolCallError);

let caps;
let logBytes = 0;
let logStopped = false;
const INSPECT_CAPS = { __proto__: null, maxBytes: 0, maxDepth: 32, maxNodes: 100000 };
function formatArg(value) {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    if (value instanceof ErrorCtor) {
      try { const s = value.stack; if (typeof s === 'string') return s; } catch { /* fall through */ }
      return shortMessage(value);
    }
    try {
      INSPECT_CAPS.maxBytes = caps.maxLogBytes + 1;
      return toJsonText(value, 'value', INSPECT_CAPS);
    } catch (e) {
      return '[unprintable: ' + (e instanceof Refusal ? e.path + ' ' + e.problem : shortMessage(e)) + ']';
    }
  }
  if (typeof value === 'function') return '[Function]';
  try { return StringCtor(value); } catch { return '[unprintable]'; }
}
function makeLogger(level) {
  return function (...args) {
    if (logStopped || caps === undefined) return;
    let text = '';
    for (let i = 0; i < args.length; i++) text += (i === 0 ? '' : ' ') + formatArg(args[i]);
    logBytes += text.length; // a lower bound of the UTF-8 bytes; the host counts them exactly
    if (logBytes > caps.maxLogBytes) {
      logStopped = true;
      send('limit', ['maxLogBytes', caps.maxLogBytes]);
      return;
    }
    send('log', [level, text]);
  };
}
const consoleObject = ObjectCreate(null);
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  ObjectDefineProperty(consoleObject, level, { value: makeLogger(level), enumerable: true });
}
ObjectFreeze(consoleObject);
ObjectDefineProperty(G, 'console', { value: consoleObject, writable: false, enumerable: false, configurable: false });
ObjectDefineProperty(G, 'ToolCallError', { value: ToolCallError, writable: false, enumerable: false, configurable: false });

// ---- calls -------------------------------------------------------------------------------------
const pending = ObjectCreate(null);
let pendingCount = 0;
let ended = false;
let nextId = 1;
let queue = list();
let flushScheduled = false;
const resolved = ReflectApply(PromiseThen, PromiseCtor.resolve(), []);
const MAX_BATCH = 3 * 1024;
let waiting = false;
function scheduleFlush() {
  if (!flushScheduled) { flushScheduled = true; ReflectApply(PromiseThen, resolved, [flush]); }
}
// Sends the queued calls. While the program has pending calls, exactly one 'wait' is outstanding:
// an apply whose promise the host resolves with the next batch of outcomes (one isolate hop per
// batch, and the isolate keeps running meanwhile). Calls queued while a wait is outstanding go
// out with applyIgnored.
function flush() {
  flushScheduled = false;
  const items = queue;
  if (items.length === 0 && (pendingCount === 0 || waiting)) return;
  queue = list();
  let from = 0;
  while (items.length - from > MAX_BATCH || (waiting && from < items.length)) {
    const part = list();
    const end = MathMin(items.length, from + MAX_BATCH);
    for (let i = from; i < end; i++) part[i - from] = items[i];
    send('calls', part);
    from = end;
  }
  if (waiting) return;
  let last = items;
  if (from > 0) {
    last = list();
    for (let i = from; i < items.length; i++) last[i - from] = items[i];
  }
  waiting = true;
  const outcomes = ReflectApply(applyCall, dispatchRef, [undefined, ['wait', last], WAIT_OPTIONS]);
  ReflectApply(PromiseThen, outcomes, [onOutcomes, onWaitFailed]);
}
function onOutcomes(items) {
  waiting = false;
  if (ArrayIsArray(items)) deliver(items);
  scheduleFlush();
}
function onWaitFailed() {
  // The host ended the run (or is gone): nothing more will arrive.
  waiting = false;
}
function makeTool(name) {
  const tool = function (args) {
    const site = { __proto__: null };
    ErrorCaptureStackTrace(site, tool);
    return new PromiseCtor((resolve, reject) => {
      let json;
      try {
        json = toJsonText(args, 'args', caps.argCaps);
      } catch (e) {
        const detail = e instanceof Refusal
          ? e.path + ' ' + e.problem + (e.limit ? ' (' + e.limit + '=' + e.value + ')' : '')
          : shortMessage(e);
        const refusal = new ToolCallError(name, 'Arguments of tools.' + name + ' cannot be sent: ' + detail + '. Only JSON data crosses (objects, arrays, strings, finite numbers, booleans, null).');
        ReflectApply(WeakMapSet, callSites, [refusal, site]);
        reject(refusal);
        return;
      }
      const id = nextId++;
      pending[id] = { __proto__: null, resolve, reject, name, site };
      pendingCount++;
      const at = queue.length;
      queue[at] = id; queue[at + 1] = name; queue[at + 2] = json;
      scheduleFlush();
    });
  };
  ObjectDefineProperty(tool, 'name', { value: name });
  return ObjectFreeze(tool);
}
function deliver(items) {
  for (let i = 0; i + 3 < items.length; i += 4) {
    const id = items[i];
    const entry = pending[id];
    if (entry === undefined) continue;
    delete pending[id];
    pendingCount--;
    if (items[i + 1] === 1) {
      let value;
      try { value = JSONParse(items[i + 2]); } catch { entry.reject(new ToolCallError(entry.name, 'The result of tools.' + entry.name + ' was not valid JSON.')); continue; }
      entry.resolve(value);
    } else {
      const failure = new ToolCallError(items[i + 2], items[i + 3]);
      ReflectApply(WeakMapSet, callSites, [failure, entry.site]);
      entry.reject(failure);
    }
  }
}

// ---- the program -------------------------------------------------------------------------------
function locate(e) {
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
    else {
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
function onReturn(value) {
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
}
let started = false;
function start(data) {
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
  for (let i = 0; i < names.length; i++) {
    ObjectDefineProperty(tools, names[i], { value: makeTool(names[i]), enumerable: true, writable: false, configurable: false });
  }
  ObjectFreeze(tools);
  ObjectDefineProperty(G, 'tools', { value: tools, writable: false, enumerable: false, configurable: false });
  let program;
  try {
    program = new AsyncFunction(js + '\n//# sourceURL=ptc-program.js');
  } catch (e) {
    ended = true;
    send('end', ['syntax', shortMessage(e)]);
    return;
  }
  const promise = ReflectApply(program, undefined, []);
  ReflectApply(PromiseThen, promise, [onReturn, describeThrown]);
}
// Returns -1 once the program ended, else how many of its calls are still pending. The value is
// computed before this call's microtasks run, so the host confirms a 0 with a later 'probe': 0
// then means nothing can ever resume the program (there are no timers or other event sources).
return function entry(op, data) {
  if (op === 'start') start(data);
  return ended ? -1 : pendingCount;
};
`;
