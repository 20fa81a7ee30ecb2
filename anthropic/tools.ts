/**
 * `toAnthropicTools(host)`: the host's tools (run_code among them) as Messages API tool
 * definitions for `client.messages.create({ tools })`. Built from `host.schemas()` alone: the
 * name, the description and the parameters' JSON Schema as `input_schema`. Nothing else a tool
 * carries reaches the API.
 *
 * No `strict: true`: our pipeline is the one validator (invalid input comes back as our error
 * naming the argument path, and the trace records it), and the API does not take `strict` on a
 * tool that its code execution tool may call.
 *
 * `providerCodeExecution` lets Claude's own program, running in Anthropic's code execution tool,
 * call these tools (`allowed_callers`). Add the code execution tool of that version to `tools`
 * yourself (`{ type: 'code_execution_20260120', name: 'code_execution' }`). The program's calls
 * come back as `tool_use` blocks with a `caller`; `runToolUses` runs them through the same
 * pipeline and policy, recorded as calls of the provider's program.
 */
import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import { InvalidOptionError, selectToolSchemas, type ToolHost, type ToolSchema, type ToolSelection } from '../tools/index.js';
import { AnthropicToolDefinitionError } from './errors.js';

/** A value of a tool's `allowed_callers` in the installed SDK: `'direct'` or a code execution tool version. */
export type AnthropicAllowedCaller = NonNullable<Tool['allowed_callers']>[number];

/** A code execution tool version that may call tools (`'code_execution_20260120'`, ...). */
export type AnthropicCodeExecutionCaller = Exclude<AnthropicAllowedCaller, 'direct'>;

/**
 * The code execution version `providerCodeExecution: true` allows: the one whose calls the SDK's
 * `tool_use` caller type names (`ServerToolCaller20260120`), with state that persists across
 * requests that reuse the container. Pass a version or a list to choose another.
 */
export const DEFAULT_CODE_EXECUTION_CALLER = 'code_execution_20260120' satisfies AnthropicCodeExecutionCaller;

/** Options of {@link toAnthropicTools}. */
export interface AnthropicToolsOptions extends ToolSelection {
  /**
   * Whether Claude's program in Anthropic's code execution tool may call these tools, as their
   * `allowed_callers`. Omitted or `false`: none is sent (the API's default, Claude's direct calls
   * only). `true`: `['direct', DEFAULT_CODE_EXECUTION_CALLER]`. A version: `['direct', version]`.
   * A list: exactly that list (`['code_execution_20260120']` for calls from the program only).
   */
  readonly providerCodeExecution?: boolean | AnthropicCodeExecutionCaller | readonly AnthropicAllowedCaller[];
}

/**
 * The host's tools (all, or `include` minus `exclude`, in registration order) as Messages API
 * tool definitions, fresh objects on every call. Throws a `ToolSelectionError` naming a tool
 * `include` or `exclude` lists and the host lacks, an {@link AnthropicToolDefinitionError} for a
 * tool whose name the API refuses, and a `TypeError` for a malformed `providerCodeExecution`.
 */
export function toAnthropicTools(host: ToolHost, options: AnthropicToolsOptions = {}): Tool[] {
  const allowedCallers = readAllowedCallers(options.providerCodeExecution);
  return selectToolSchemas(host, options).map((schema) => toolDefinition(schema, allowedCallers));
}

/** One definition: what the model sees of the tool, and who may call it. */
export function toolDefinition(schema: ToolSchema, allowedCallers: readonly AnthropicAllowedCaller[] | undefined): Tool {
  const { name, description, parameters } = schema;
  // The API's tool name pattern; a longer name than it takes is for the API to refuse.
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(name)) throw new AnthropicToolDefinitionError(name, 'a tool name there may hold only letters, digits, "_" and "-" (at most 128)');
  if (parameters.type !== 'object') throw new AnthropicToolDefinitionError(name, 'its parameters are not an object schema (input_schema must have type "object")');
  return {
    name,
    description,
    input_schema: parameters as Tool.InputSchema,
    ...(allowedCallers ? { allowed_callers: [...allowedCallers] } : {}),
  };
}

const CALLER = /^(?:direct|code_execution_\d{8})$/;

/** `providerCodeExecution` as the `allowed_callers` to send, or undefined for none. */
export function readAllowedCallers(option: AnthropicToolsOptions['providerCodeExecution']): readonly AnthropicAllowedCaller[] | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return ['direct', DEFAULT_CODE_EXECUTION_CALLER];
  const problem = (what: string) =>
    new InvalidOptionError({
      where: 'toAnthropicTools',
      option: 'providerCodeExecution',
      value: option,
      expected: `true, false, a code execution version ('code_execution_20260120') or a list of allowed callers ('direct', 'code_execution_<date>') (${what})`,
    });
  if (typeof option === 'string') {
    if ((option as string) === 'direct' || !CALLER.test(option)) throw problem(`${JSON.stringify(option)} is not a code execution version`);
    return ['direct', option];
  }
  if (!Array.isArray(option)) throw problem(`got ${option === null ? 'null' : typeof option}`);
  if (option.length === 0) throw problem('the list is empty (leave the option out for direct calls only)');
  const seen = new Set<string>();
  for (const caller of option as readonly unknown[]) {
    if (typeof caller !== 'string' || !CALLER.test(caller)) throw problem(`${JSON.stringify(caller) ?? String(caller)} is not an allowed caller`);
    if (seen.has(caller)) throw problem(`${JSON.stringify(caller)} is listed twice`);
    seen.add(caller);
  }
  return [...option];
}
