/**
 * `ptc-runtime/anthropic`: a host's tools (run_code among them) for Anthropic's Messages API and
 * the `@anthropic-ai/sdk` client. Needs the optional peer dependency `@anthropic-ai/sdk` (1.x);
 * nothing else in the package loads it.
 *
 * - `toAnthropicTools(host)`: tool definitions for `client.messages.create({ tools })`.
 * - `runToolUses(host, message)`: a reply's `tool_use` blocks through `host.runTurn`, as the
 *   `tool_result` blocks of the next user message.
 * - `toAnthropicRunnableTools(host)`: the same tools for `client.beta.messages.toolRunner`.
 *
 * Calls from Claude's own program in Anthropic's code execution tool (`providerCodeExecution`)
 * run through the same pipeline, recorded as the provider program's. Approval is always the
 * host's channel: the Messages API has no approval flow of its own.
 */
export { toAnthropicTools, DEFAULT_CODE_EXECUTION_CALLER } from './tools.js';
export type { AnthropicAllowedCaller, AnthropicCodeExecutionCaller, AnthropicToolsOptions } from './tools.js';
export { runToolUses } from './run-tool-uses.js';
export type { RunToolUsesOptions, ToolUseMessage } from './run-tool-uses.js';
export { toAnthropicRunnableTools } from './runnable-tools.js';
export type { AnthropicRunnableTool, AnthropicRunnableToolsOptions } from './runnable-tools.js';
export { AnthropicToolDefinitionError } from './errors.js';
export { resumeAnthropicRun } from './resume.js';
export type { AnthropicResumedRun } from './resume.js';
export type { OnSuspended, ResumedRun, ResumeRunOptions, RunResumer, RunSuspension, SuspendedCall } from '../tools/index.js';
