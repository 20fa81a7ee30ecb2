/**
 * Whether a `tool_use` that names a program as its `caller` may run as that program's call.
 *
 * The message is untrusted (an API reply, or history an app stored and read back), and a
 * `caller` is just two strings in it. Taken at its word, any `tool_use` could claim to be a
 * program's call, also on a tool never offered to programs. So a program's call is honoured only
 * when
 * - its `caller.tool_id` names a code execution block of the same message: a `server_tool_use`
 *   of a code execution tool (`code_execution`, `bash_code_execution`,
 *   `text_editor_code_execution`) or such a tool's result block, by id; and
 * - the tool allows that caller: its definition as sent (`allowed_callers`) lists
 *   `caller.type`. No definitions given means none does (the API's default: direct calls only).
 * Otherwise the call is refused (recorded, `is_error`), and its body never runs.
 */

const CODE_EXECUTION_USES: ReadonlySet<unknown> = new Set(['code_execution', 'bash_code_execution', 'text_editor_code_execution']);
const CODE_EXECUTION_RESULTS: ReadonlySet<unknown> = new Set(['code_execution_tool_result', 'bash_code_execution_tool_result', 'text_editor_code_execution_tool_result']);

/** A property read once; a getter or Proxy trap that throws reads as undefined. */
function read(target: unknown, key: string): unknown {
  try {
    return typeof target === 'object' && target !== null ? (target as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** The id of `block` when it is a code execution block (its call or its result). */
export function codeExecutionIdOf(block: unknown): string | undefined {
  const type = read(block, 'type');
  const id = type === 'server_tool_use' && CODE_EXECUTION_USES.has(read(block, 'name')) ? read(block, 'id') : CODE_EXECUTION_RESULTS.has(type) ? read(block, 'tool_use_id') : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Tool name -> the callers its definition allows, from the `tools` a request sent. */
export function allowedCallersOf(tools: readonly unknown[] | undefined): ReadonlyMap<string, ReadonlySet<string>> {
  const byName = new Map<string, ReadonlySet<string>>();
  if (!Array.isArray(tools)) return byName;
  for (const tool of tools) {
    const name = read(tool, 'name');
    const callers = read(tool, 'allowed_callers');
    if (typeof name !== 'string' || !Array.isArray(callers)) continue;
    byName.set(name, new Set(callers.filter((c): c is string => typeof c === 'string')));
  }
  return byName;
}

const shown = (text: string) => JSON.stringify(text.slice(0, 200));

/** Why a program's call must not run, or undefined when it may. */
export function programCallRefusal(call: { toolName: string; callerType: string; toolId: string; codeExecutionIds: ReadonlySet<string> | undefined; allowed: ReadonlySet<string> | undefined }): string | undefined {
  const { toolName, callerType, toolId } = call;
  if (call.codeExecutionIds !== undefined && !call.codeExecutionIds.has(toolId)) {
    return `The call to ${shown(toolName)} names ${shown(toolId)} as the code execution that made it, and this message has no code execution block with that id: a program's call is honoured only beside the program that made it. It was not run.`;
  }
  if (!call.allowed?.has(callerType)) {
    const list = call.allowed && call.allowed.size > 0 ? [...call.allowed].join(', ') : 'direct only';
    return `The call to ${shown(toolName)} comes from ${shown(callerType)}, which the tool does not allow (its allowed_callers as sent: ${list}). It was not run.`;
  }
  return undefined;
}
