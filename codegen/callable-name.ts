/**
 * Both directions of the callable-name mapping for a tool set (the mapping itself,
 * {@link callableNameOf}, is the tool model's: tools/callable-name.ts). Two tools mapping to one
 * callable name is an error naming both ({@link CallableNameCollisionError}), never a silent
 * rename or drop.
 */
import { callableNameOf } from '../tools/index.js';
import { CallableNameCollisionError } from './errors.js';

export { callableNameOf };

/** Both directions of the mapping for a tool set. */
export interface CallableNameMaps {
  /** Tool name -> callable name. */
  readonly callableNames: ReadonlyMap<string, string>;
  /** Callable name -> tool name. */
  readonly toolNames: ReadonlyMap<string, string>;
}

/**
 * Maps every tool name, refusing collisions. Throws {@link CallableNameCollisionError} naming
 * both tools when two names map to one callable name (or a name is given twice).
 */
export function mapCallableNames(toolNames: Iterable<string>): CallableNameMaps {
  const callableNames = new Map<string, string>();
  const byCallable = new Map<string, string>();
  for (const toolName of toolNames) {
    const callable = callableNameOf(toolName);
    const taken = byCallable.get(callable);
    if (taken !== undefined) throw new CallableNameCollisionError(callable, [taken, toolName]);
    byCallable.set(callable, toolName);
    callableNames.set(toolName, callable);
  }
  return { callableNames, toolNames: byCallable };
}
