/**
 * `resumeLangChainRun(runCode, suspension, { decisions, agent })`: resumes a durable run that
 * suspended in a LangChain or LangGraph conversation and gives the message that puts its outcome
 * back. The tool call has its `ToolMessage` already (the model read that a person must decide),
 * and a tool call takes one, so the outcome is a follow-up `HumanMessage`: append it (or
 * `graph.invoke({ messages: [message] }, { configurable: { thread_id } })` on a checkpointed
 * graph); the model's next turn reads the program's final value.
 */
import { HumanMessage } from '@langchain/core/messages';
import { resumeRun, type ResumedRun, type ResumeRunOptions, type RunResumer, type RunSuspension } from '../tools/index.js';

/** A resumed run and the message for the conversation. */
export interface LangChainResumedRun extends ResumedRun {
  /** The follow-up message: the outcome, marked as the program's output. */
  readonly message: HumanMessage;
}

/**
 * Resumes `suspension` (as `onSuspended` got it) with the person's decisions through
 * `runCode.resume`. Throws what `resume` throws (`RunResumeError`). When the program asks
 * again, `suspension` of the answer is the new one, and the message says it is paused again.
 */
export async function resumeLangChainRun(runCode: RunResumer, suspension: RunSuspension, options: ResumeRunOptions): Promise<LangChainResumedRun> {
  const resumed = await resumeRun(runCode, suspension, options);
  return { ...resumed, message: new HumanMessage({ content: resumed.text }) };
}
