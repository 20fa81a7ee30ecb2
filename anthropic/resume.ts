/**
 * `resumeAnthropicRun(runCode, suspension, { decisions, agent })`: resumes a durable run that
 * suspended in a Messages API conversation and gives the message that puts its outcome back.
 * The `tool_use` has its `tool_result` already (the model read that a person must decide), and
 * a `tool_use` takes one, so the outcome is a follow-up user message: append it to `messages`
 * and call `client.messages.create` again; the model reads the program's final value.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { resumeRun, type ResumedRun, type ResumeRunOptions, type RunResumer, type RunSuspension } from '../tools/index.js';

/** A resumed run and the message for the conversation. */
export interface AnthropicResumedRun extends ResumedRun {
  /** The follow-up user message: the outcome, marked as the program's output. */
  readonly message: MessageParam;
}

/**
 * Resumes `suspension` (as `onSuspended` got it) with the person's decisions through
 * `runCode.resume`. Throws what `resume` throws (`RunResumeError`). When the program asks
 * again, `suspension` of the answer is the new one, and the message says it is paused again.
 */
export async function resumeAnthropicRun(runCode: RunResumer, suspension: RunSuspension, options: ResumeRunOptions): Promise<AnthropicResumedRun> {
  const resumed = await resumeRun(runCode, suspension, options);
  return { ...resumed, message: { role: 'user', content: [{ type: 'text', text: resumed.text }] } };
}
