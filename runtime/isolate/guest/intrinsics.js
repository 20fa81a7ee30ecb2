// @ts-check
'use strict';
/*
 * The guest, part 1 of 7: every builtin the guest uses, captured before any program exists.
 *
 * The guest is the JavaScript that runs inside each fresh isolate context before the program:
 * these seven files, concatenated in order (guest-source.ts, GUEST_FILES) into the body of one
 * function of `$0`, the host's dispatch reference (guest.d.ts). They share that one scope, as
 * scripts share the global scope of their own type-check (tsconfig.json in this folder).
 *
 * This file is the only one that may name a global builtin: the others use the constants below.
 * A program may monkey-patch `JSON`, `Object`, `Array.prototype`, `Promise`, `Reflect`,
 * `Symbol.iterator` or `Error[Symbol.hasInstance]`: the guest keeps working and never calls the
 * patched versions. guest-lint.test.ts enforces it: no global builtin named outside this file,
 * no method called through a builtin prototype, and no iteration protocol, spread or
 * `instanceof` of a builtin inside a function (all of them look up what a program can patch).
 */
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
const ObjectHasOwn = Object.hasOwn;
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
const PromiseResolved = Promise.resolve();
const ErrorCtor = Error;
const TypeErrorCtor = TypeError;
const ErrorCaptureStackTrace = Error.captureStackTrace;
// `x instanceof ErrorCtor` would ask Error[Symbol.hasInstance], which a program can define.
const FunctionHasInstance = Function.prototype[Symbol.hasInstance];
const SymbolSpecies = Symbol.species;
const ArrayBufferProto = ArrayBuffer.prototype;
const WeakMapCtor = WeakMap;
const DateGetTime = Date.prototype.getTime;
// For durable runs (program.js, makeDeterministic): the real Date and what reads the clock.
const DateCtor = Date;
const DateProto = Date.prototype;
const DateToString = Date.prototype.toString;
const DateParse = Date.parse;
const DateUTC = Date.UTC;
const ReflectConstruct = Reflect.construct;
const MathObject = Math;
const MathImul = Math.imul;
const NumberParseInt = Number.parseInt;
const IntlDateTimeFormatProto = Intl.DateTimeFormat.prototype;
const IntlFormatToParts = Intl.DateTimeFormat.prototype.formatToParts;
const DateToISOString = Date.prototype.toISOString;
const WeakMapGet = WeakMap.prototype.get;
const WeakMapSet = WeakMap.prototype.set;
const RegExpExec = RegExp.prototype.exec;
const StringSlice = String.prototype.slice;
const StringIndexOf = String.prototype.indexOf;
const StringCharCodeAt = String.prototype.charCodeAt;
const ArrayBufferIsView = ArrayBuffer.isView;
/** @type {(proto: object, key: string) => Function} */
const getter = (proto, key) => /** @type {Function} */ (/** @type {PropertyDescriptor} */ (ObjectGetOwnPropertyDescriptor(proto, key)).get);
/** @type {[Function, string][]} */
const brandGetters = [
  [getter(ArrayBuffer.prototype, 'byteLength'), 'an ArrayBuffer'],
  [getter(Map.prototype, 'size'), 'a Map'],
  [getter(Set.prototype, 'size'), 'a Set'],
  [getter(RegExp.prototype, 'source'), 'a RegExp'],
];
if (typeof SharedArrayBuffer === 'function') brandGetters[brandGetters.length] = [getter(SharedArrayBuffer.prototype, 'byteLength'), 'a SharedArrayBuffer'];
/** @type {[Function, string][]} */
const brandHas = [[WeakMap.prototype.has, 'a WeakMap'], [WeakSet.prototype.has, 'a WeakSet']];
/** @type {new (body: string) => () => Promise<unknown>} */
const AsyncFunction = ObjectGetPrototypeOf(async function () {}).constructor;

/** The builtin prototypes (a `toJSON` a program puts on one is never looked at: json.js). */
const BUILTIN_PROTOS = [Object, Function, Array, Number, Boolean, String, Symbol, BigInt, Date, RegExp, Error, AggregateError,
  EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, Promise, Map, Set, WeakMap, WeakSet, ArrayBuffer,
  DataView, ObjectGetPrototypeOf(Int8Array), Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array,
  Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array].map((ctor) => ctor.prototype);

/**
 * Whether `o` is one of {@link BUILTIN_PROTOS}.
 * @param {object} o
 * @returns {boolean}
 */
function isBuiltinProto(o) {
  if (o === ObjectProto || o === ArrayProto) return true;
  for (let i = 0; i < BUILTIN_PROTOS.length; i++) if (BUILTIN_PROTOS[i] === o) return true;
  return false;
}

/**
 * A list the guest fills: no prototype, so an index setter on `Array.prototype` never sees it.
 * @returns {any[]}
 */
function list() { const a = /** @type {any[]} */ ([]); ObjectSetPrototypeOf(a, null); return a; }

/**
 * Whether `value` is an Error, as `value instanceof Error` was before any program ran.
 * @param {unknown} value
 * @returns {boolean}
 */
function isError(value) { return ReflectApply(FunctionHasInstance, ErrorCtor, [value]); }
