/**
 * `resumeAiSdkRun(runCode, suspension, { decisions, agent })`: resumes a durable run that
 * suspended in an AI SDK conversation and gives the message that puts its outcome back. The call
 * was answered already (the model read that a person must decide), and a call id takes one
 * result, so the outcome is a follow-up user message: append it to the messages and call
 * `generateText` / `streamText` again; the model's next turn reads the program's final value.
 */
import type { UserModelMessage } from 'ai';
import { resumeRun, type ResumedRun, type ResumeRunOptions, type RunResumer, type RunSuspension } from '../tools/index.js';

/** A resumed run and the message for the conversation. */
export interface AiSdkResumedRun extends ResumedRun {
  /** The follow-up for `messages`: the outcome, marked as the program's output. */
  readonly message: UserModelMessage;
}

/**
 * Resumes `suspension` (as `onSuspended` got it) with the person's decisions through
 * `runCode.resume`. Throws what `resume` throws (`RunResumeError`: refused token, missing
 * decisions, a changed tool set). When the program asks again, `suspension` of the answer is
 * the new one (its token for the next resume), and the message says it is paused again.
 */
export async function resumeAiSdkRun(runCode: RunResumer, suspension: RunSuspension, options: ResumeRunOptions): Promise<AiSdkResumedRun> {
  const resumed = await resumeRun(runCode, suspension, options);
  return { ...resumed, message: { role: 'user', content: [{ type: 'text', text: resumed.text }] } };
}
