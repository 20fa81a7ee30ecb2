// @ts-check
/*
 * The guest, part 5 of 7: the calls. `tools.x(args)` converts its arguments to JSON text at
 * once (json.js), queues the call and returns a promise; the calls queued in one microtask turn
 * go to the host in one message (protocol.ts `calls`, or `call1` for a single call). The host
 * pushes outcomes back in with `entry('deliver' | 'deliver1', ...)` (program.js), in a later slice.
 * `sleep(ms)` is a call too, to the reserved name `#sleep` (codegen/sleep.ts): the host settles it
 * with a timer, and it resolves to undefined (or rejects with a plain Error in the host's words).
 */
// A call waiting for its outcome. Class fields are defined, not assigned, so a setter the program
// puts on Object.prototype never sees these.
class PendingCall {
  /** @type {(value: unknown) => void} */ resolve;
  /** @type {(reason: unknown) => void} */ reject;
  /** @type {string} */ name;
  /** @type {CallSite} */ site;
  /** @type {Promise<unknown>} */ promise;
  /**
   * @param {(value: unknown) => void} resolve @param {(reason: unknown) => void} reject
   * @param {string} name @param {CallSite} site @param {Promise<unknown>} promise
   */
  constructor(resolve, reject, name, site, promise) { this.resolve = resolve; this.reject = reject; this.name = name; this.site = site; this.promise = promise; }
}
// By call id: ids are dense, so this stays a fast array; a settled call's slot is undefined.
// A ToolCallError is created when the outcome arrives, far from the program's line; the call
// site captured when the program made the call gives that line to an uncaught one.
/** @type {WeakMap<object, CallSite>} */
const callSites = new WeakMapCtor();
/** @type {(PendingCall | undefined)[]} */
const pending = list();
let pendingCount = 0;
let ended = false;
let nextId = 1;
/** Calls of this microtask turn: id, name, argsJson, ... @type {import('./protocol.js').CallItems} */
const queue = list();
let flushScheduled = false;
const resolved = ReflectApply(PromiseThen, PromiseResolved, []);
/** Items in one `calls` message at most (1024 calls). */
const MAX_BATCH = 3 * 1024;
const ignore = (function ignore() {});
// One executor for every call's promise (no closure per call): the constructor calls it at once.
/** @type {(value: unknown) => void} */
let executorResolve = ignore;
/** @type {(reason: unknown) => void} */
let executorReject = ignore;
const captureSettlers = (/** @param {(value: unknown) => void} resolve @param {(reason: unknown) => void} reject */ function captureSettlers(resolve, reject) { executorResolve = resolve; executorReject = reject; });
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
    const id = /** @type {number} */ (queue[0]); const name = /** @type {string} */ (queue[1]); const json = /** @type {string} */ (queue[2]);
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
const makeTool = (/** @param {string} name @param {StaticSite | undefined} staticSite */ function makeTool(name, staticSite) {
  const tool = (/** @param {unknown} args @returns {Promise<unknown>} */ function (args) {
    /** @type {CallSite | undefined} */
    let site = staticSite;
    if (site === undefined) {
      site = { __proto__: null };
      ErrorCaptureStackTrace(site, tool);
    }
    let json;
    try {
      json = toJsonText(args, 'args', /** @type {RunCaps} */ (caps).argCaps);
    } catch (e) {
      const detail = e instanceof Refusal
        ? e.path + ' ' + e.problem + (e.limit ? ' (' + limitText(e.limit, e.value) + ')' : '')
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
// A large array result arrives in parts while the host's pipeline still walks it (a sandbox
// process's run, tools/result-text-stream.ts): `ok` 3 is a part, whole items comma-separated,
// parsed here at once into a list the program cannot reach (null prototype: no setter of the
// program's sees an item; JSON.parse runs no program code). `ok` 2 is the verdict that the
// result is exactly those parts: the list becomes the array the program gets. Any other outcome
// of the call drops them: the host's verdict was another value, or none.
/** @type {(unknown[] | null | undefined)[]} */
const staged = list();
const stagePart = (/** @param {number} id @param {string} text */ function stagePart(id, text) {
  if (pending[id] === undefined) return;
  let into = staged[id];
  if (into === null) return; // an earlier part was not JSON: the call fails at its outcome
  /** @type {unknown[]} */
  let items;
  try { items = JSONParse('[' + text + ']'); } catch { staged[id] = null; return; }
  if (into === undefined) { into = list(); staged[id] = into; }
  const n = items.length;
  let at = into.length;
  for (let i = 0; i < n; i++) into[at++] = items[i];
});
// One outcome: ok 1 with the result's JSON text, or ok 0 with the tool name and the message
// (ok 2 and 3: the parts of a large result, above).
const deliverOne = (/** @param {number} id @param {number} ok @param {string} jsonOrToolName @param {string} message */ function deliverOne(id, ok, jsonOrToolName, message) {
  if (ok === 3) { stagePart(id, jsonOrToolName); return; }
  const parts = staged[id];
  if (parts !== undefined) staged[id] = undefined;
  const call = pending[id];
  if (call === undefined) return;
  pending[id] = undefined;
  pendingCount--;
  if (call.name === SLEEP_CALL) {
    sleepsWaiting--;
    if (ok === 1) { ReflectApply(call.resolve, undefined, [undefined]); return; }
    const failure = new ErrorCtor(message);
    ReflectApply(WeakMapSet, callSites, [failure, call.site]);
    ReflectApply(PromiseThen, call.promise, [undefined, ignore]);
    ReflectApply(call.reject, undefined, [failure]);
    return;
  }
  if (ok === 2) {
    if (parts === undefined || parts === null) {
      ReflectApply(PromiseThen, call.promise, [undefined, ignore]);
      ReflectApply(call.reject, undefined, [new ToolCallError(call.name, 'The result of tools.' + call.name + ' was not valid JSON.')]);
      return;
    }
    ObjectSetPrototypeOf(parts, ArrayProto);
    ReflectApply(call.resolve, undefined, [parts]);
  } else if (ok === 1) {
    let value;
    try { value = JSONParse(jsonOrToolName); } catch {
      ReflectApply(PromiseThen, call.promise, [undefined, ignore]);
      ReflectApply(call.reject, undefined, [new ToolCallError(call.name, 'The result of tools.' + call.name + ' was not valid JSON.')]);
      return;
    }
    // Resolving with an object reads its `then`, which may be a getter of the program's: called
    // as a method, the settler's frame would show the program this PendingCall as its receiver.
    ReflectApply(call.resolve, undefined, [value]);
  } else {
    const failure = new ToolCallError(jsonOrToolName, message);
    ReflectApply(WeakMapSet, callSites, [failure, call.site]);
    // A failed call the program never awaits is in the run's call list, not an unhandled
    // rejection (isolated-vm would rethrow that out of the slice).
    ReflectApply(PromiseThen, call.promise, [undefined, ignore]);
    ReflectApply(call.reject, undefined, [failure]);
  }
});
const deliver = (/** @param {import('./protocol.js').OutcomeBatch} items */ function deliver(items) {
  for (let i = 0; i + 3 < items.length; i += 4) deliverOne(/** @type {number} */ (items[i]), /** @type {number} */ (items[i + 1]), /** @type {string} */ (items[i + 2]), /** @type {string} */ (items[i + 3]));
});
// `sleep(ms)`: a call to the reserved name (see the note at the top). The host clamps `ms` to its
// cap and refuses what is not a finite number; here NaN and non-numbers are refused at once, a
// negative wait is 0 and an infinite one the largest JSON number, so the text is always JSON.
const SLEEP_CALL = '#sleep';
let sleepsWaiting = 0;
const sleep = (/** @param {unknown} ms @returns {Promise<void>} */ function sleep(ms) {
  /** @type {CallSite} */
  const site = { __proto__: null };
  ErrorCaptureStackTrace(site, sleep);
  const promise = new PromiseCtor(captureSettlers);
  const maxSleeps = /** @type {RunCaps} */ (caps).maxSleeps;
  if (typeof ms !== 'number' || ms !== ms || sleepsWaiting >= maxSleeps) {
    const refusal = typeof ms !== 'number' || ms !== ms
      ? new TypeErrorCtor('sleep(ms) takes a number of milliseconds; got ' + (typeof ms === 'number' ? 'NaN' : typeof ms) + '.')
      : new ErrorCtor('sleep(ms) was refused: ' + maxSleeps + ' sleeps of this run are already waiting, the most at once.');
    ReflectApply(WeakMapSet, callSites, [refusal, site]);
    ReflectApply(PromiseThen, promise, [undefined, ignore]);
    executorReject(refusal);
    return /** @type {Promise<void>} */ (promise);
  }
  const wait = ms < 0 ? 0 : ms > 1e300 ? 1e300 : ms;
  const id = nextId++;
  pending[id] = new PendingCall(executorResolve, executorReject, SLEEP_CALL, site, promise);
  pendingCount++;
  sleepsWaiting++;
  const at = queue.length;
  queue[at] = id; queue[at + 1] = SLEEP_CALL; queue[at + 2] = '{"ms":' + StringCtor(wait) + '}';
  scheduleFlush();
  return /** @type {Promise<void>} */ (promise);
});
ObjectFreeze(sleep);
ObjectDefineProperty(G, 'sleep', { value: sleep, writable: false, enumerable: false, configurable: false });
