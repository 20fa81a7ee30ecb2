/**
 * `ptc-runtime/openai-agents`: a host's tools (run_code among them) as function tools for the
 * OpenAI Agents SDK (`@openai/agents-core` 0.20, or `@openai/agents`, which re-exports it). Needs
 * the optional peer dependency `@openai/agents-core`; nothing else in the package loads it.
 */
export { AgentsToolNameError, toAgentsTools } from './tools.js';
export type { AgentsToolsOptions } from './tools.js';
export { agentsCallData, CUSTOM_DATA_KEY } from './results.js';
export type { AgentsCallData, AgentsToolOutput } from './results.js';
export { FRAMEWORK } from './approval.js';
export { resumeAgentsRun } from './resume.js';
export type { AgentsResumedRun } from './resume.js';
export type { OnSuspended, ResumedRun, ResumeRunOptions, RunResumer, RunSuspension, SuspendedCall } from '../tools/index.js';
