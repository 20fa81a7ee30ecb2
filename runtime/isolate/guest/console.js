// @ts-check
/*
 * The guest, part 4 of 7: `ToolCallError` and `console`, both installed on the global scope.
 * Console lines are formatted here (strings as they are, objects as JSON, errors by their
 * stack) and counted against `maxLogBytes`; past it the guest stops logging and tells the host.
 */
/** What a failed or refused call rejects with: only `name`, `toolName` and `message` are readable. */
class ToolCallError extends ErrorCtor {
  /** @param {unknown} toolName @param {unknown} message */
  constructor(toolName, message) {
    super(StringCtor(message));
    ObjectDefineProperty(this, 'toolName', { value: StringCtor(toolName), enumerable: true, writable: false, configurable: false });
    ObjectDefineProperty(this, 'stack', { value: 'ToolCallError: ' + StringCtor(message), enumerable: false, writable: true, configurable: true });
  }
}
ObjectDefineProperty(ToolCallError.prototype, 'name', { value: 'ToolCallError', enumerable: false, writable: false, configurable: false });
ObjectFreeze(ToolCallError.prototype);
ObjectFreeze(ToolCallError);

/** The run's caps, set by `start` (program.js); undefined until then. @type {RunCaps | undefined} */
let caps;
let logBytes = 0;
let logStopped = false;
/** @type {JsonCaps} */
const INSPECT_CAPS = { __proto__: null, maxBytes: 0, maxDepth: 32, maxNodes: 100000, callToJSON: true };
/** One console argument as text. @param {unknown} value @returns {string} */
function formatArg(value) {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    if (isError(value)) {
      try { const s = /** @type {Error} */ (value).stack; if (typeof s === 'string') return s; } catch { /* fall through */ }
      return shortMessage(value);
    }
    try {
      INSPECT_CAPS.maxBytes = /** @type {RunCaps} */ (caps).maxLogBytes + 1;
      return toJsonText(value, 'value', INSPECT_CAPS);
    } catch (e) {
      return '[unprintable: ' + (e instanceof Refusal ? e.path + ' ' + e.problem : shortMessage(e)) + ']';
    }
  }
  if (typeof value === 'function') return '[Function]';
  try { return StringCtor(value); } catch { return '[unprintable]'; }
}
/** @param {import('./protocol.js').LogLevel} level @returns {(...args: unknown[]) => void} */
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
/** The console's methods, the levels a log line may have (protocol.ts LOG_LEVELS). @type {import('./protocol.js').LogLevel[]} */
const LOG_LEVELS = ['log', 'info', 'warn', 'error', 'debug'];
const consoleObject = ObjectCreate(null);
for (const level of LOG_LEVELS) {
  ObjectDefineProperty(consoleObject, level, { value: makeLogger(level), enumerable: true });
}
ObjectFreeze(consoleObject);
ObjectDefineProperty(G, 'console', { value: consoleObject, writable: false, enumerable: false, configurable: false });
ObjectDefineProperty(G, 'ToolCallError', { value: ToolCallError, writable: false, enumerable: false, configurable: false });
