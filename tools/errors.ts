/**
 * Host-side error classes. Each carries structured fields and builds its message from them.
 * `instanceof` can fail across duplicate copies of this package, so every class also has a
 * `Symbol.for` brand and a static `isInstance`.
 */

const BRAND = Symbol.for('ptc-runtime.error');

/** Base class of every error this package throws on the host side. */
export class PtcError extends Error {
  readonly [BRAND] = true;
  /** True for any ptc-runtime error, even from another copy of the package. */
  static isInstance(value: unknown): value is PtcError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
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
  static override isInstance(value: unknown): value is ToolDefinitionError {
    return PtcError.isInstance(value) && value.name === 'ToolDefinitionError';
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
  static override isInstance(value: unknown): value is ToolRegistrationError {
    return PtcError.isInstance(value) && value.name === 'ToolRegistrationError';
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
  static override isInstance(value: unknown): value is ToolCallError {
    return PtcError.isInstance(value) && value.name === 'ToolCallError';
  }
}
