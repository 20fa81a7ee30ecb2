// @ts-check
/*
 * The guest, part 3 of 7: the JSON conversion every value leaving the isolate goes through
 * (arguments, the return value, the thrown value, console arguments). Only strings and numbers
 * cross to the host, so this runs inside the CPU budget: a getter or Proxy trap runs as program
 * code in the isolate, never on the host. The walk refuses functions, symbols, BigInt, cycles,
 * Promises, Maps, Sets and binary data, naming the path, and enforces the caps as it goes
 * (bytes, depth, nodes), so an exploding shared-reference graph stops at the cap.
 *
 * A `toJSON` is a function too: an object with one of its own, or one from its class, is refused
 * as not JSON (JSON.stringify would send whatever the method returns, not the data). Only a Date
 * crosses through its builtin conversion (its ISO text, or null for an invalid date), and a
 * `toJSON` the program put on a builtin prototype (Object.prototype, Array.prototype,
 * Date.prototype, ...) is never looked at: the guest does not use what a program patched.
 * Console lines and thrown values are text for a reader, not data: there (`callToJSON`) the
 * program's own `toJSON` is called, as JSON.stringify would.
 *
 * One walk, no JSON.stringify of the whole value: JSON.stringify calls every `toJSON` before a
 * replacer could see it, so it cannot tell the program's data from what a method returned.
 * json.test.ts checks the walk against JSON.stringify on generated values, without an isolate.
 */
/**
 * Why a value cannot cross: where (`args.a[2]`), what is wrong, and the cap passed, if one was.
 * Class fields define own properties, so a setter on Object.prototype never sees these.
 */
class Refusal {
  /** @type {string} */ path;
  /** @type {string} */ problem;
  /** @type {string | undefined} */ limit;
  /** @type {number | undefined} */ value;
  /** @param {string} path @param {string} problem @param {string} [limit] @param {number} [value] */
  constructor(path, problem, limit, value) { this.path = path; this.problem = problem; this.limit = limit; this.value = value; }
}
/**
 * `limit=value`, as every limit message names it (the host's are built by bridge/limit-failure.ts).
 * @param {string} limit @param {number | undefined} value @returns {string}
 */
function limitText(limit, value) { return limit + '=' + value; }
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** @param {string} path @param {string | number} key @returns {string} */
function childPath(path, key) {
  if (typeof key === 'number') return path + '[' + key + ']';
  return ReflectApply(RegExpExec, IDENT, [key]) !== null ? path + '.' + key : path + '[' + JSONStringify(key) + ']';
}
/**
 * What kind of object cannot cross as JSON, or undefined (told by brand checks with captured
 * builtins, never by what the object says about itself). `proto` is its prototype.
 * @param {object} value
 * @param {object | null} proto
 * @returns {string | undefined}
 */
function brandOf(value, proto) {
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
const TOJSON_REFUSED = 'has a toJSON method, and functions are not JSON (send what it returns instead)';
/**
 * The `toJSON` method the program gave `value` (its own, or its class's), or undefined; `proto`
 * is its prototype. The lookup stops at the builtin prototypes, so one a program put there is
 * not seen; it reads descriptors, so it runs only a toJSON getter (or a Proxy trap), as the
 * program's code.
 * @param {object} value
 * @param {object | null} proto
 * @returns {Function | undefined}
 */
function programToJSON(value, proto) {
  if (ReflectApply(ObjectHasOwn, undefined, [value, 'toJSON'])) return toJSONOf(value, value);
  for (let o = proto; o !== null && !isBuiltinProto(o); o = ObjectGetPrototypeOf(o)) {
    if (ReflectApply(ObjectHasOwn, undefined, [o, 'toJSON'])) return toJSONOf(o, value);
  }
  return undefined;
}
/**
 * The `toJSON` that `holder` defines for `value`, if it is a function.
 * @param {object} holder @param {object} value
 * @returns {Function | undefined}
 */
function toJSONOf(holder, value) {
  const d = /** @type {PropertyDescriptor} */ (ObjectGetOwnPropertyDescriptor(holder, 'toJSON'));
  const method = d.get !== undefined ? ReflectApply(d.get, value, []) : d.value;
  return typeof method === 'function' ? method : undefined;
}
/**
 * Whether `value`, an object that is not plain data, is a Date (by its internal slot: a program
 * cannot fake or hide one).
 * @param {object} value
 * @returns {value is Date}
 */
function isDate(value) {
  try { ReflectApply(DateGetTime, value, []); return true; } catch { return false; }
}
/**
 * What JSON.stringify sends for a Date: its ISO text, or null when it is invalid.
 * @param {Date} date
 * @returns {string | null}
 */
function dateJson(date) {
  return NumberIsFinite(ReflectApply(DateGetTime, date, [])) ? ReflectApply(DateToISOString, date, []) : null;
}
/**
 * The conversion in progress: the containers being converted, outermost first, and the key each
 * is under (a refusal's path is read from these, so none is built unless one is needed). A
 * conversion works from `base` up and restores what it found when it ends: a getter or a Proxy
 * trap may log or make a call, which converts a value of its own meanwhile.
 */
const ancestors = list();
const keysAt = list();
let base = 0;
let depth = 0;
let nodes = 0;
/** @type {JsonCaps} */
let walkCaps = /** @type {any} */ (null);

/**
 * Converts a value to JSON text within `caps` (whose limit names a refusal reports). Throws a
 * Refusal.
 * @param {unknown} root
 * @param {string} rootPath what the root is called in a refusal (`args`, `result`)
 * @param {JsonCaps} caps
 * @returns {string}
 */
function toJsonText(root, rootPath, caps) {
  // tools.x() with no arguments, the most common call: nothing to convert.
  if (root === undefined || root === null) return 'null';
  const savedBase = base;
  const savedDepth = depth;
  const savedNodes = nodes;
  const savedCaps = walkCaps;
  base = depth;
  nodes = 0;
  walkCaps = caps;
  try {
    let text;
    try {
      text = walk(root, rootPath);
    } catch (e) {
      if (e instanceof Refusal) throw e;
      throw new Refusal(rootPath, 'could not be converted: ' + shortMessage(e));
    }
    if (text === undefined) text = 'null';
    // Length in UTF-16 units is a lower bound of UTF-8 bytes; the host checks the exact byte count.
    if (text.length > caps.maxBytes) throw tooBig(rootPath);
    return text;
  } finally {
    while (depth > savedDepth) ancestors[--depth] = undefined;
    base = savedBase;
    depth = savedDepth;
    nodes = savedNodes;
    walkCaps = savedCaps;
  }
}
/** The path of the innermost container being converted. */
function containerPath() {
  let text = /** @type {string} */ (keysAt[base]);
  for (let i = base + 1; i < depth; i++) text = childPath(text, keysAt[i]);
  return text;
}
/** The path of the value under `key` in the innermost container (the root's: its own name). @param {string | number} key */
function pathOf(key) {
  return depth === base ? /** @type {string} */ (key) : childPath(containerPath(), key);
}
/** @param {string} path */
function tooBig(path) {
  return new Refusal(path, 'is larger than ' + walkCaps.maxBytes + ' bytes as JSON', walkCaps.bytesLimit, walkCaps.maxBytes);
}
/**
 * JSON text of `value`, under `key` in the innermost container, or undefined for what JSON
 * leaves out (undefined).
 * @param {any} value @param {string | number} key
 * @returns {string | undefined}
 */
function walk(value, key) {
  const caps = walkCaps;
  // The prototype of `value` while it is the object it was (undefined: not looked up).
  let proto;
  if ((typeof value === 'object' && value !== null) || (typeof value === 'function' && caps.callToJSON === true)) {
    let toJSON;
    try {
      proto = ObjectGetPrototypeOf(value);
      // Plain data needs no look in arguments and results: an enumerable toJSON is one of its
      // values, refused below as a function, and one that is not enumerable is not its data.
      toJSON = (proto === ObjectProto || proto === null) && caps.callToJSON !== true ? undefined : programToJSON(value, proto);
    } catch (e) { throw new Refusal(pathOf(key), 'threw while reading toJSON: ' + shortMessage(e)); }
    if (toJSON !== undefined) {
      if (caps.callToJSON !== true) throw new Refusal(pathOf(key), TOJSON_REFUSED);
      try { value = ReflectApply(toJSON, value, [depth === base ? '' : StringCtor(key)]); } catch (e) { throw new Refusal(pathOf(key), 'its toJSON() threw: ' + shortMessage(e)); }
      proto = undefined;
    } else if (proto !== ObjectProto && proto !== ArrayProto && proto !== null && isDate(value)) {
      value = dateJson(value);
      proto = undefined;
    }
  }
  if (++nodes > caps.maxNodes) throw new Refusal(pathOf(key), 'has more than ' + caps.maxNodes + ' values', caps.nodesLimit, caps.maxNodes);
  switch (typeof value) {
    case 'string': return JSONStringify(value);
    case 'number': return NumberIsFinite(value) ? '' + value : 'null';
    case 'boolean': return value ? 'true' : 'false';
    case 'undefined': return undefined;
    case 'function': throw new Refusal(pathOf(key), 'is a function');
    case 'symbol': throw new Refusal(pathOf(key), 'is a symbol');
    case 'bigint': throw new Refusal(pathOf(key), 'is a BigInt (convert it to a string or number)');
  }
  if (value === null) return 'null';
  for (let i = base; i < depth; i++) if (ancestors[i] === value) throw new Refusal(pathOf(key), 'is a cycle (it contains itself)');
  if (depth - base >= caps.maxDepth) throw new Refusal(pathOf(key), 'is nested deeper than ' + caps.maxDepth + ' levels', caps.depthLimit, caps.maxDepth);
  if (proto === undefined) proto = ObjectGetPrototypeOf(value);
  const plain = proto === ObjectProto || proto === ArrayProto || proto === null;
  const brand = plain ? undefined : brandOf(value, proto);
  if (brand !== undefined) throw new Refusal(pathOf(key), 'is ' + brand + ', which cannot cross as JSON');
  keysAt[depth] = key;
  ancestors[depth++] = value;
  let out;
  try {
    if (ArrayIsArray(value)) {
      const length = value.length;
      out = '[';
      for (let i = 0; i < length; i++) {
        const item = walk(value[i], i);
        out += (i === 0 ? '' : ',') + (item === undefined ? 'null' : item);
        if (out.length > caps.maxBytes) throw tooBig(containerPath());
      }
      out += ']';
    } else {
      const keys = !plain && isError(value) ? ['name', 'message'] : ObjectKeys(value);
      out = '{';
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        const item = walk(value[k], k);
        if (item === undefined) continue;
        out += (first ? '' : ',') + JSONStringify(k) + ':' + item;
        first = false;
        if (out.length > caps.maxBytes) throw tooBig(containerPath());
      }
      out += '}';
    }
  } catch (e) {
    if (e instanceof Refusal) throw e;
    throw new Refusal(containerPath(), 'threw while being read: ' + shortMessage(e));
  } finally {
    ancestors[--depth] = undefined;
  }
  return out;
}
/**
 * A short readable account of a thrown value (never throws).
 * @param {any} e
 * @returns {string}
 */
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
