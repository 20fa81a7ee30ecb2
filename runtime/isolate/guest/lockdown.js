// @ts-check
/*
 * The guest, part 2 of 7: the one capability, and the locks put on the context before any
 * program exists. Invariants the security of the in-isolate half rests on:
 * - The dispatch `ivm.Reference` (`$0`) lives only in this closure. It is never stored on an
 *   object the program can reach, never passed to a guest callback, and every call through it
 *   uses frozen null-prototype option objects, so a program that defines `Object.prototype.reference`
 *   (or `copy`, `result`, ...) cannot change how isolated-vm transfers values.
 * - Every builtin the guest uses was captured in intrinsics.js, before the program exists (see
 *   there). Lists it fills have a null prototype, so an index setter on `Array.prototype` never
 *   sees them.
 * - `Promise.prototype` and `Promise[Symbol.species]` are frozen: isolated-vm settles the guest
 *   side of an `apply` through them, so a program could otherwise stall its own calls.
 * - The code is strict: V8 then hides `this` and the function of these frames from
 *   `Error.prepareStackTrace` call sites, so a program's stack hook sees nothing of ours.
 * - The global scope is reduced to an allow-list of ECMAScript builtins (fail closed: whatever
 *   else an engine or isolated-vm adds is deleted), plus `tools`, `ToolCallError`, `console`, `sleep`.
 *   `WebAssembly`, `SharedArrayBuffer`, `Atomics`, `WeakRef`, `FinalizationRegistry` and V8's own
 *   `console` are removed. `eval` and `Function` stay: they only reach this isolate.
 * - Only strings and numbers leave the isolate (protocol.ts). Arguments, the return value and
 *   the thrown value are converted to JSON text here, inside the CPU budget, so a getter or
 *   Proxy trap runs as program code in the isolate, never on the host (json.js).
 * - The program is compiled with the `AsyncFunction` constructor, which parses the body on its
 *   own: a body that closes the wrapper's brace is a syntax error, not an injection (program.js).
 */
const dispatchRef = $0;
const applySync = dispatchRef.applySync;
const SEND_OPTIONS = ObjectFreeze({ __proto__: null, arguments: ObjectFreeze({ __proto__: null, copy: true }) });
const CALL1_OPTIONS = ObjectFreeze({ __proto__: null }); // primitives only: nothing to copy
if ((/** @this {unknown} */ function () { return this; })() !== undefined) throw new ErrorCtor('bootstrap must be strict');
// isolated-vm settles the promise of an apply through the guest's Promise.prototype.then (and its
// species): a program replacing them could stall or forge the outcomes of its own calls. Both are
// locked before any program exists.
ObjectFreeze(PromiseProto);
ObjectDefineProperty(PromiseCtor, SymbolSpecies, { configurable: false });

// A resizable ArrayBuffer grows outside isolated-vm's memoryLimit (1 GiB filled under
// memoryMb=64, measured): without resize, one can be made but never grown.
ReflectDeleteProperty(ArrayBufferProto, 'resize');
if ('resize' in ArrayBufferProto) throw new ErrorCtor('bootstrap could not remove ArrayBuffer.prototype.resize');

/**
 * Sends one message to the host (protocol.ts): a plain call on this thread, during the host's slice.
 * @template {import('./protocol.js').GuestMessageKind} K
 * @param {K} kind
 * @param {import('./protocol.js').GuestMessages[K]} items
 */
function send(kind, items) { ReflectApply(applySync, dispatchRef, [undefined, [kind, items], SEND_OPTIONS]); }

// Only these globals survive (ECMAScript builtins; everything else is deleted, fail closed).
/** @type {Record<string, true>} */
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
/** @type {Record<PropertyKey, unknown>} */
const globals = G;
for (const key of ReflectOwnKeys(G)) {
  if (typeof key === 'string' && ALLOWED[key] === true) continue;
  if (ReflectDeleteProperty(G, key)) continue;
  // Not configurable (a V8 flag such as --expose-gc can add one): overwrite it, or refuse to run.
  try { globals[key] = undefined; } catch { /* checked below */ }
  if (globals[key] !== undefined) throw new ErrorCtor('bootstrap could not remove global ' + StringCtor(key));
}
