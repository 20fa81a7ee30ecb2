/**
 * The guest half of a run: JavaScript that runs inside a fresh isolate context before any program
 * code, compiled as the body of a function whose one parameter, `$0`, is the host's one capability.
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
 * Messages to the host (`$0.applySync(undefined, [kind, list])`, strings and numbers only). Guest
 * code only runs inside the host's synchronous slices (see isolate-run.ts), so this is a plain
 * call on the same thread; the host only queues the message and returns:
 *   `calls`  [id, name, argsJson, ...]     the calls queued in one microtask turn
 *            (a single call is sent as `$0.applySync(undefined, ['call1', id, name, argsJson])`)
 *   `log`    [level, text]
 *   `limit`  [limitName, value]            a cap enforced here was passed (maxLogBytes)
 *   `end`    ['return', json] | ['throw', message, line, column] | ['syntax', message]
 *            | ['limit', limitName, value, message]
 * The host calls the returned entry function with `applySync`: for a pooled isolate
 * `entry('warm')` before any program, `entry('start', [js, toolNamesJson, capsJson])` once, then `entry('deliver', [id, ok, jsonOrToolName, message, ...])`
 * to push a batch of call outcomes in (`entry('deliver1', id, ok, jsonOrToolName, message)` for a
 * batch of one). The program resumes in the microtasks V8 runs before that call returns.
 */
import { GUEST_CALLS_SOURCE, GUEST_PROGRAM_SOURCE } from './guest-calls-source.js';
import { GUEST_CONSOLE_SOURCE, GUEST_JSON_SOURCE } from './guest-json-source.js';
import { GUEST_SITES_SOURCE } from './guest-sites-source.js';

/** Lines the `AsyncFunction` constructor puts before the body (`(async function anonymous(\n) {\n`). */
export const PROGRAM_HEADER_LINES = 2;

/** The `sourceURL` of the program's code, so its stack frames can be told from everything else. */
export const PROGRAM_URL = 'ptc-program.js';

/** Guest bootstrap source: the body of a function of `$0`, the dispatch reference (prepared-isolate.ts). */
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
const boxedValueOf = [Number.prototype.valueOf, String.prototype.valueOf, Boolean.prototype.valueOf, BigInt.prototype.valueOf, Symbol.prototype.valueOf];
const WeakMapGet = WeakMap.prototype.get;
const WeakMapSet = WeakMap.prototype.set;
// A ToolCallError is created when the outcome arrives, far from the program's line; the call
// site captured when the program made the call gives that line to an uncaught one.
const callSites = new WeakMap();
const ErrorProto = Error.prototype;
const RegExpExec = RegExp.prototype.exec;
const StringSlice = String.prototype.slice;
const StringIndexOf = String.prototype.indexOf;
const StringCharCodeAt = String.prototype.charCodeAt;
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
const applySync = dispatchRef.applySync;
const SEND_OPTIONS = ObjectFreeze({ __proto__: null, arguments: ObjectFreeze({ __proto__: null, copy: true }) });
const CALL1_OPTIONS = ObjectFreeze({ __proto__: null }); // primitives only: nothing to copy
const STACK_FRAME = /ptc-program\.js:(\d+):(\d+)/;
const PROGRAM_HEADER_LINES = ${PROGRAM_HEADER_LINES};
if ((function () { return this; })() !== undefined) throw new ErrorCtor('bootstrap must be strict');
// isolated-vm settles the promise of an apply through the guest's Promise.prototype.then (and its
// species): a program replacing them could stall or forge the outcomes of its own calls. Both are
// locked before any program exists.
ObjectFreeze(PromiseProto);
ObjectDefineProperty(PromiseCtor, Symbol.species, { configurable: false });
// JSON.stringify converts a BigInt through BigInt.prototype.toJSON; the fast JSON path relies on
// there being none (a BigInt never crosses).
ObjectDefineProperty(BigInt.prototype, 'toJSON', { value: undefined, writable: false, enumerable: false, configurable: false });

// A resizable ArrayBuffer grows outside isolated-vm's memoryLimit (1 GiB filled under
// memoryMb=64, measured): without resize, one can be made but never grown.
ReflectDeleteProperty(ArrayBuffer.prototype, 'resize');
if ('resize' in ArrayBuffer.prototype) throw new ErrorCtor('bootstrap could not remove ArrayBuffer.prototype.resize');

function list() { const a = []; ObjectSetPrototypeOf(a, null); return a; }
function send(kind, items) { ReflectApply(applySync, dispatchRef, [undefined, [kind, items], SEND_OPTIONS]); }

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

${GUEST_JSON_SOURCE}
${GUEST_CONSOLE_SOURCE}
${GUEST_CALLS_SOURCE}
${GUEST_SITES_SOURCE}
${GUEST_PROGRAM_SOURCE}`;
