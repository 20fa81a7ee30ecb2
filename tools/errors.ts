/**
 * Host-side error classes. Each carries structured fields and builds its message from them.
 * `instanceof` can fail across duplicate copies of this package, so every class also has a
 * `Symbol.for` brand and a static `isInstance`.
 */

const BRAND = Symbol.for('ptc-runtime.error');

/**
 * Text for anything thrown, by host code or by a hook, for a message or a denial reason. Never
 * throws itself: `String()` of a null-prototype object or of a hostile `toString` would.
 */
export function errorText(err: unknown, fallback = 'unprintable error'): string {
  try {
    if (err instanceof Error) return err.message || err.name;
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
