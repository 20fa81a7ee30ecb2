import { ToolCallError } from './errors.js';
import type { JsonValue } from './json.js';
import type { ToolResult } from './types.js';

/** The value of a successful result; throws {@link ToolCallError} with the readable message otherwise. */
export function unwrapResult(result: ToolResult): JsonValue {
  if (!result.isError) return result.value ?? null;
  throw new ToolCallError(result.toolName, result.error?.message ?? `The call to "${result.toolName}" failed.`);
}
