/**
 * Tool name -> the name a program calls it by (`tools.<callable>`).
 *
 * The mapping is part of the contract with models and with the runtime (the guest's `tools`
 * object uses the same names), so it is simple, documented and stable:
 * - a name that is already an identifier (`^[A-Za-z_$][A-Za-z0-9_$]*$`, which every name
 *   `defineTool` calls callable matches) is used as is;
 * - otherwise every run of characters other than ASCII letters, digits and `_` becomes one `_`
 *   (`github.search-issues` -> `github_search_issues`, `fs/read:file` -> `fs_read_file`), and a
 *   leading digit gets a `_` prefix (`1password.get` -> `_1password_get`);
 * - a result that names an `Object.prototype` hazard (`__proto__`, `constructor`, `prototype`)
 *   gets a trailing `_`.
 * Two tools mapping to one callable name is an error naming both ({@link CallableNameCollisionError}),
 * never a silent rename or drop.
 */
import { CallableNameCollisionError } from './errors.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const HAZARDS = new Set(['__proto__', 'constructor', 'prototype']);

/** The callable name of a tool name, by the documented mapping above. */
export function callableNameOf(toolName: string): string {
  let name = IDENTIFIER.test(toolName) ? toolName : toolName.replace(/[^A-Za-z0-9_]+/g, '_');
  if (name === '') name = '_';
  if (/^[0-9]/.test(name)) name = `_${name}`;
  if (HAZARDS.has(name)) name = `${name}_`;
  return name;
}

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
