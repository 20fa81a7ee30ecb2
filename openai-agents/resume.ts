/**
 * `resumeAgentsRun(runCode, suspension, { decisions, agent })`: resumes a durable run that
 * suspended in an Agents SDK run and gives the input item that puts its outcome back. The call
 * has its output already (the model read that a person must decide), and a call id takes one
 * output, so the outcome is a follow-up user message: run the agent again on
 * `[...result.history, message]`; the model's next turn reads the program's final value.
 */
import type { UserMessageItem } from '@openai/agents-core';
import { resumeRun, type ResumedRun, type ResumeRunOptions, type RunResumer, type RunSuspension } from '../tools/index.js';

/** A resumed run and the input item for the conversation. */
export interface AgentsResumedRun extends ResumedRun {
  /** The follow-up input item: the outcome, marked as the program's output. */
  readonly message: UserMessageItem;
}

/**
 * Resumes `suspension` (as `onSuspended` got it) with the person's decisions through
 * `runCode.resume`. Throws what `resume` throws (`RunResumeError`). When the program asks
 * again, `suspension` of the answer is the new one, and the message says it is paused again.
 */
export async function resumeAgentsRun(runCode: RunResumer, suspension: RunSuspension, options: ResumeRunOptions): Promise<AgentsResumedRun> {
  const resumed = await resumeRun(runCode, suspension, options);
  return { ...resumed, message: { type: 'message', role: 'user', content: resumed.text } };
}
