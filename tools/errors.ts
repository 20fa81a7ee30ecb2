/**
 * Host-side error classes, and the one way to turn anything thrown into text.
 *
 * Each class carries structured fields and builds its message from them. `instanceof` can fail
 * across duplicate copies of this package, so every class extends {@link PtcError}: a
 * `Symbol.for` brand and a static `isInstance` (test/error-brands.test.ts walks every subpath's
 * exports and fails on an error class without them). An option out of range is an
 * {@link InvalidOptionError}, naming the option, the value and what was expected.
 *
 * {@link errorText} is the only "error to text": a thrown value is untrusted (a hook, a tool, an
 * approval channel or a plugin threw it), and `String()` of a null-prototype object, or of one
 * whose `toString` throws, throws itself.
 */

const BRAND = Symbol.for('ptc-runtime.error');

/**
 * Text for anything thrown, by host code or by a hook, for a message or a denial reason (and
 * for any untrusted value shown in one). Never throws itself: `String()` of a null-prototype
 * object or of a hostile `toString` would, and so can an Error's `message` getter.
 */
export function errorText(err: unknown, fallback = 'unprintable error'): string {
  try {
    if (err instanceof Error) {
      const message: unknown = err.message;
      return typeof message === 'string' && message !== '' ? message : String(err.name);
    }
    return String(err);
  } catch {
    return fallback;
  }
}

/**
 * Cuts `text` to at most `max` characters (default 16 KiB, the most of a tool's own error text a
 * result carries), saying so. Every message built from untrusted input goes through it.
 */
export function clipText(text: string, max = MAX_ERROR_CHARS): string {
  if (text.length <= max) return text;
  // Never end on half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)} ... [cut at ${max} characters of ${text.length}]`;
}

/** Longest error text of a tool's own that a result carries (the model reads it). */
export const MAX_ERROR_CHARS = 16 * 1024;

/** Base class of every error this package throws on the host side. */
export class PtcError extends Error {
  readonly [BRAND] = true;
  /**
   * `PtcError.isInstance(x)`: any ptc-runtime error; `SomeError.isInstance(x)`: that class (by
   * its `name`), even when `x` comes from another copy of the package.
   */
  static isInstance<T extends PtcError>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    if (typeof value !== 'object' || value === null || (value as Record<symbol, unknown>)[BRAND] !== true) return false;
    return (this as unknown) === PtcError || (value as PtcError).name === (this as unknown as { name: string }).name;
  }
}

/** How a given option value is shown in a message: short, and never by running its code. */
function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return errorText(value, typeof value);
}

/**
 * An option given to one of this package's factories is unknown, of the wrong type or out of
 * range. `where` is the factory (`createToolHost`), `option` the option's path
 * (`limits.maxCalls`), `value` what was given and `expected` what is allowed.
 */
export class InvalidOptionError extends PtcError {
  override readonly name: string = 'InvalidOptionError';
  readonly where: string;
  readonly option: string;
  readonly value: unknown;
  readonly expected: string;
  constructor(options: { readonly where: string; readonly option: string; readonly value: unknown; readonly expected: string }) {
    super(`${options.where}: ${options.option} must be ${options.expected}, got ${shownValue(options.value)}`);
    this.where = options.where;
    this.option = options.option;
    this.value = options.value;
    this.expected = options.expected;
  }
}

/** A tool definition is invalid; raised by `defineTool`, naming the tool and the field. */
export class ToolDefinitionError extends PtcError {
  override readonly name = 'ToolDefinitionError';
  constructor(
    readonly toolName: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`Invalid tool "${toolName}": ${field} ${problem}`);
  }
}

/** Registering a tool failed (for instance the name is taken). */
export class ToolRegistrationError extends PtcError {
  override readonly name = 'ToolRegistrationError';
  constructor(
    readonly toolName: string,
    readonly problem: string,
  ) {
    super(`Cannot register tool "${toolName}": ${problem}`);
  }
}

/**
 * A tool call failed, as a throw. The pipeline itself never throws for a failed call (failures
 * are `ToolResult.isError`); this is what `unwrapResult` and PTC programs see. Only `name`,
 * `toolName` and `message` are meant to be read.
 */
export class ToolCallError extends PtcError {
  override readonly name = 'ToolCallError';
  constructor(
    readonly toolName: string,
    message: string,
  ) {
    super(message);
  }
}
