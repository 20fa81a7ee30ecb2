/**
 * `ptc-runtime/ai-sdk`: a host's tools (run_code among them) as a Vercel AI SDK `ToolSet`, for
 * ai 6 and 7. Needs the optional peer dependency `ai`; nothing else in the package loads it.
 */
export { toAiSdkTools } from './tools.js';
export type { AiSdkToolOutput, AiSdkToolsOptions } from './tools.js';
export { AiSdkToolError, isDeniedOutput } from './results.js';
export type { AiSdkModelOutput, DeniedToolOutput } from './results.js';
export { approvalAnswer } from './approval.js';
export type { ApprovalAnswer } from './approval.js';
export { resumeAiSdkRun } from './resume.js';
export type { AiSdkResumedRun } from './resume.js';
export type { OnSuspended, ResumedRun, ResumeRunOptions, RunResumer, RunSuspension, SuspendedCall } from '../tools/index.js';
