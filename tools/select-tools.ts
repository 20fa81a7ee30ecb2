/**
 * The tools an adapter hands to a framework: the host's model-facing schemas, narrowed by
 * `include` and `exclude`. A name in either list that the host does not have is an error naming
 * it (a typo would otherwise hide a tool, or expose one meant to be excluded, without a word).
 */
import { PtcError } from './errors.js';
import type { ToolHost, ToolSchema } from './tool-types.js';

/** Which of a host's tools to expose: all by default, only `include`, minus `exclude`. */
export interface ToolSelection {
  /** Only these tools (by name), in the host's registration order. */
  readonly include?: readonly string[];
  /** Not these tools (applied after `include`). */
  readonly exclude?: readonly string[];
}

/** `include` or `exclude` names a tool the host does not have. */
export class ToolSelectionError extends PtcError {
  override readonly name = 'ToolSelectionError';
  constructor(
    readonly option: 'include' | 'exclude',
    readonly unknownNames: readonly string[],
    readonly availableTools: readonly string[],
  ) {
    super(`${option} names tools the host does not have: ${unknownNames.map((n) => JSON.stringify(n)).join(', ')}. Available tools: ${availableTools.length ? availableTools.join(', ') : '(none)'}.`);
  }
}

/** The selected schemas, fresh copies (see `host.schemas()`). Throws {@link ToolSelectionError}. */
export function selectToolSchemas(host: ToolHost, selection: ToolSelection = {}): ToolSchema[] {
  const all = host.schemas();
  const names = all.map((s) => s.name);
  const known = new Set(names);
  const check = (option: 'include' | 'exclude', list: readonly string[] | undefined): ReadonlySet<string> | undefined => {
    if (list === undefined) return undefined;
    if (!Array.isArray(list)) throw new TypeError(`${option} must be an array of tool names`);
    const unknown = list.filter((name) => typeof name !== 'string' || !known.has(name));
    if (unknown.length > 0) throw new ToolSelectionError(option, unknown.map(String), names);
    return new Set(list);
  };
  const include = check('include', selection.include);
  const exclude = check('exclude', selection.exclude);
  return all.filter((s) => (include === undefined || include.has(s.name)) && !exclude?.has(s.name));
}
