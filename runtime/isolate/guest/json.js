// @ts-check
/*
 * The guest, part 3 of 7: the JSON conversion every value leaving the isolate goes through
 * (arguments, the return value, the thrown value, console arguments). Only strings and numbers
 * cross to the host, so this runs inside the CPU budget: a getter or Proxy trap runs as program
 * code in the isolate, never on the host. The walk refuses functions, symbols, BigInt, cycles,
 * Promises, Maps, Sets and binary data, naming the path, and enforces the caps as it goes
 * (bytes, depth, nodes), so an exploding shared-reference graph stops at the cap.
 * json.test.ts checks it against JSON.stringify on generated values, without an isolate.
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
 * builtins, never by what the object says about itself).
 * @param {object} value
 * @returns {string | undefined}
 */
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
// The fast path: the engine's own JSON.stringify (a builtin: fast while the isolate's own code
// is still cold) with a replacer that checks what the walk below checks for plain data, and
// gives up (FALLBACK) on anything else: a value that is not a string, number, boolean, null,
// undefined or an object the walk would send by its own keys (see plainEnough: not functions,
// symbols, BigInt, Errors, Maps, Promises, binary data, boxed primitives), a cycle, a throw, or a
// cap about to be passed
// (nodes, depth, or a lower bound of the bytes). The walk then converts the value again and
// names the refusal (or converts an Error or a boxed primitive); only then can a getter or toJSON
// run twice. BigInt.prototype.toJSON
// is locked by the bootstrap, so JSON.stringify never converts a BigInt the walk would refuse.
const FALLBACK = ObjectFreeze({ __proto__: null });
/** @type {JsonCaps} */
let fCaps = /** @type {any} */ (null);
let fNodes = 0;
let fBytes = 0;
let fBase = 0;
let fTop = 0;
const fOpen = list(); // the containers JSON.stringify is inside, fBase..fTop-1, innermost last
/** @this {unknown} @param {string} key @param {unknown} value @returns {unknown} */
function fastReplacer(key, value) {
  if (++fNodes > fCaps.maxNodes) throw FALLBACK;
  fBytes += key.length + 1;
  const t = typeof value;
  if (t === 'string') {
    fBytes += /** @type {string} */ (value).length;
  } else if (t === 'number' || t === 'boolean' || t === 'undefined') {
    fBytes += 1;
  } else if (t !== 'object') {
    throw FALLBACK;
  } else if (value !== null) {
    // The holder of this value is the innermost open container: close those JSON.stringify left.
    const holder = this;
    while (fTop > fBase && fOpen[fTop - 1] !== holder) fOpen[--fTop] = undefined;
    if (fTop - fBase >= fCaps.maxDepth) throw FALLBACK;
    const proto = ObjectGetPrototypeOf(value);
    if (proto !== ObjectProto && proto !== ArrayProto && proto !== null && !plainEnough(/** @type {object} */ (value))) throw FALLBACK;
    fOpen[fTop++] = value;
  }
  if (fBytes > fCaps.maxBytes) throw FALLBACK;
  return value;
}
// Whether JSON.stringify converts this object exactly as the walk does: not a kind the walk
// refuses, not an Error (the walk sends its name and message), not a boxed primitive (JSON.stringify
// unwraps one, the walk sends its own keys). Class instances and arrays of a subclass pass.
/** @param {object} value @returns {boolean} */
function plainEnough(value) {
  if (brandOf(value) !== undefined || isError(value)) return false;
  for (let i = 0; i < boxedValueOf.length; i++) {
    try { ReflectApply(boxedValueOf[i], value, []); return false; } catch { /* not this kind */ }
  }
  return true;
}
// JSON text of root, or FALLBACK. Re-entrant (a getter may make a tool call or log): each call
// saves the state it found, works above the stack's current top, and restores the state.
/** @param {unknown} root @param {JsonCaps} caps @returns {string | undefined | typeof FALLBACK} */
function fastJson(root, caps) {
  const savedCaps = fCaps; const savedNodes = fNodes; const savedBytes = fBytes; const savedBase = fBase; const savedTop = fTop;
  fCaps = caps; fNodes = 0; fBytes = 0; fBase = savedTop;
  try {
    return JSONStringify(root, fastReplacer);
  } catch {
    return FALLBACK;
  } finally {
    while (fTop > savedTop) fOpen[--fTop] = undefined;
    fCaps = savedCaps; fNodes = savedNodes; fBytes = savedBytes; fBase = savedBase; fTop = savedTop;
  }
}
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
  const fast = fastJson(root, caps);
  if (fast === FALLBACK) return walkJsonText(root, rootPath, caps);
  const text = /** @type {string | undefined} */ (fast);
  if (text === undefined) return 'null';
  // Length in UTF-16 units is a lower bound of UTF-8 bytes; the host checks the exact byte count.
  if (text.length > caps.maxBytes) return walkJsonText(root, rootPath, caps);
  return text;
}
// The walk: converts a value or names exactly what cannot cross (path, problem, cap).
/** @param {unknown} root @param {string} rootPath @param {JsonCaps} caps @returns {string} */
function walkJsonText(root, rootPath, caps) {
  let nodes = 0;
  let chars = 0;
  const ancestors = list();
  let depth = 0;
  // Paths are built only for a refusal: a value's place is (up, key), up being its parent's
  // node { up, key } (null at the root, whose key is rootPath).
  /** @param {PathNode | null} up @param {string | number} key @returns {string} */
  function pathOf(up, key) {
    const keys = list();
    let n = 0;
    keys[n++] = key;
    while (up !== null) { keys[n++] = up.key; up = up.up; }
    let text = /** @type {string} */ (keys[n - 1]);
    for (let i = n - 2; i >= 0; i--) text = childPath(text, keys[i]);
    return text;
  }
  /**
   * JSON text of `value`, or undefined for what JSON leaves out (undefined).
   * @param {any} value @param {PathNode | null} up @param {string | number} key
   * @returns {string | undefined}
   */
  function walk(value, up, key) {
    if (typeof value === 'object' && value !== null || typeof value === 'function') {
      let toJSON;
      try { toJSON = value.toJSON; } catch (e) { throw new Refusal(pathOf(up, key), 'threw while reading toJSON: ' + shortMessage(e)); }
      if (typeof toJSON === 'function') {
        try { value = ReflectApply(toJSON, value, [up === null ? '' : StringCtor(key)]); } catch (e) { throw new Refusal(pathOf(up, key), 'its toJSON() threw: ' + shortMessage(e)); }
      }
    }
    if (++nodes > caps.maxNodes) throw new Refusal(pathOf(up, key), 'has more than ' + caps.maxNodes + ' values', caps.nodesLimit, caps.maxNodes);
    let out;
    switch (typeof value) {
      case 'string': out = JSONStringify(value); break;
      case 'number': out = NumberIsFinite(value) ? '' + value : 'null'; break;
      case 'boolean': out = value ? 'true' : 'false'; break;
      case 'undefined': return undefined;
      case 'function': throw new Refusal(pathOf(up, key), 'is a function');
      case 'symbol': throw new Refusal(pathOf(up, key), 'is a symbol');
      case 'bigint': throw new Refusal(pathOf(up, key), 'is a BigInt (convert it to a string or number)');
      default: {
        if (value === null) { out = 'null'; break; }
        for (let i = 0; i < depth; i++) if (ancestors[i] === value) throw new Refusal(pathOf(up, key), 'is a cycle (it contains itself)');
        if (depth >= caps.maxDepth) throw new Refusal(pathOf(up, key), 'is nested deeper than ' + caps.maxDepth + ' levels', caps.depthLimit, caps.maxDepth);
        const brand = brandOf(value);
        if (brand !== undefined) throw new Refusal(pathOf(up, key), 'is ' + brand + ', which cannot cross as JSON');
        /** @type {PathNode} */
        const here = { __proto__: null, up, key };
        ancestors[depth++] = value;
        try {
          if (ArrayIsArray(value)) {
            const length = value.length;
            out = '[';
            for (let i = 0; i < length; i++) {
              const item = walk(value[i], here, i);
              out += (i === 0 ? '' : ',') + (item === undefined ? 'null' : item);
              if ((chars + out.length) > caps.maxBytes) throw tooBig(pathOf(up, key));
            }
            out += ']';
          } else {
            const keys = isError(value) ? ['name', 'message'] : ObjectKeys(value);
            out = '{';
            let first = true;
            for (let i = 0; i < keys.length; i++) {
              const k = keys[i];
              const item = walk(value[k], here, k);
              if (item === undefined) continue;
              out += (first ? '' : ',') + JSONStringify(k) + ':' + item;
              first = false;
              if ((chars + out.length) > caps.maxBytes) throw tooBig(pathOf(up, key));
            }
            out += '}';
          }
        } catch (e) {
          if (e instanceof Refusal) throw e;
          throw new Refusal(pathOf(up, key), 'threw while being read: ' + shortMessage(e));
        } finally {
          depth--;
        }
      }
    }
    return out;
  }
  /** @param {string} path */
  function tooBig(path) { return new Refusal(path, 'is larger than ' + caps.maxBytes + ' bytes as JSON', caps.bytesLimit, caps.maxBytes); }
  let text;
  try {
    text = walk(root, null, rootPath);
  } catch (e) {
    if (e instanceof Refusal) throw e;
    throw new Refusal(rootPath, 'could not be converted: ' + shortMessage(e));
  }
  if (text === undefined) text = 'null';
  // Length in UTF-16 units is a lower bound of UTF-8 bytes; the host checks the exact byte count.
  if (text.length > caps.maxBytes) throw tooBig(rootPath);
  return text;
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
