/**
 * `ptc-runtime/langchain`: a host's tools (run_code among them) as LangChain structured tools,
 * for `@langchain/core` 1.x chat models, LangGraph's `ToolNode` and loops of your own. Needs the
 * optional peer dependency `@langchain/core`; nothing else in the package loads it.
 *
 * - `toLangChainTools(host)`: `StructuredTool`s whose every call goes through `host.call` and
 *   ends as a `ToolMessage` (`status: 'error'` for failures and denials, the canonical value as
 *   `artifact`).
 * - `runToolCalls(host, aiMessage)`: an AI message's tool calls as one `host.runTurn`, the
 *   `ToolMessage`s in call order.
 *
 * Approval is the host's channel; there is no LangGraph `interrupt()` flow (see tools.ts).
 */
export { HostStructuredTool, toLangChainTools } from './tools.js';
export type { LangChainToolsOptions } from './tools.js';
export { runToolCalls } from './run-tool-calls.js';
export type { RunToolCallsOptions, ToolCallsMessage } from './run-tool-calls.js';
export { messageContentOf, toolMessageOf } from './results.js';
export type { PassThroughSchema } from './input-schema.js';
export { resumeLangChainRun } from './resume.js';
export type { LangChainResumedRun } from './resume.js';
export type { OnSuspended, ResumedRun, ResumeRunOptions, RunResumer, RunSuspension, SuspendedCall } from '../tools/index.js';
