/**
 * Step 8: the post-execute waterfall over an executed call's result.
 *
 * - replace-content changes only what the model reads; the value stays, and programs read it.
 *   It is a presentation policy, not a secrecy policy.
 * - replace-value is materialized and validated against the output schema like the tool's own
 *   value; an invalid replacement makes the result an error. Content is rendered again from it,
 *   so earlier replaced content cannot keep showing data the new value hides.
 * - block withholds value and content and is final: later listeners are not consulted.
 * A listener that throws or returns a malformed decision blocks (fail closed).
 */
import type { Tool } from './define-tool.js';
import type { PostExecuteListener } from './hooks.js';
import type { JsonValue } from './json.js';
import { materializeValue, ValidationError } from './materialize.js';
import { checkContent } from './render.js';
import type { ContentBlock, PostToolDecision, ToolExecution, ToolResult } from './types.js';

/** The mutable state of a result while post-execute listeners run. */
export interface ResultDraft {
  isError: boolean;
  value?: JsonValue;
  /** Undefined until rendered or replaced; rendered at the end if still undefined. */
  content?: readonly ContentBlock[];
  error?: ToolResult['error'];
  blocked?: ToolResult['blocked'];
  additionalContexts: string[];
  applied: { index: number; type: PostToolDecision['type'] }[];
}

function isPostDecision(d: unknown): d is PostToolDecision {
  if (typeof d !== 'object' || d === null) return false;
  const x = d as Record<string, unknown>;
  if (x.additionalContext !== undefined && typeof x.additionalContext !== 'string') return false;
  switch (x.type) {
    case 'replace-content':
      return Array.isArray(x.content);
    case 'replace-value':
      return 'value' in x;
    case 'block':
      return typeof x.reason === 'string';
    default:
      return false;
  }
}

/** Applies the listeners in order; `snapshot` presents the draft to each listener as a ToolResult. */
export async function applyPostExecute(options: {
  tool: Tool;
  execution: ToolExecution;
  listeners: readonly PostExecuteListener[];
  draft: ResultDraft;
  snapshot: () => ToolResult;
}): Promise<void> {
  const { tool, execution, listeners, draft, snapshot } = options;
  for (let index = 0; index < listeners.length; index++) {
    let d: unknown;
    try {
      d = listeners[index]!(execution, snapshot());
      if (d instanceof Promise) d = await d;
    } catch (err) {
      d = { type: 'block', reason: `post-execute listener #${index} failed: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (d === undefined) continue;
    if (!isPostDecision(d)) d = { type: 'block', reason: `post-execute listener #${index} returned an invalid decision` };
    const decision = d as PostToolDecision;
    if (decision.additionalContext) draft.additionalContexts.push(decision.additionalContext);
    draft.applied.push({ index, type: decision.type });

    if (decision.type === 'block') {
      draft.isError = true;
      delete draft.value;
      draft.content = undefined;
      draft.blocked = { reason: decision.reason, index };
      draft.error = { kind: 'blocked', message: `The result of "${tool.name}" was withheld by policy: ${decision.reason}` };
      return;
    }
    if (decision.type === 'replace-content') {
      try {
        draft.content = checkContent(decision.content, `post-execute listener #${index}`);
      } catch (err) {
        draft.isError = true;
        delete draft.value;
        draft.content = undefined;
        draft.blocked = { reason: (err as Error).message, index };
        draft.error = { kind: 'blocked', message: `The result of "${tool.name}" was withheld: ${(err as Error).message}` };
        return;
      }
      continue;
    }
    try {
      draft.value = materializeValue(tool.output.schema, decision.value);
      draft.isError = false;
      delete draft.error;
      draft.content = undefined;
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      draft.isError = true;
      delete draft.value;
      draft.content = undefined;
      draft.error = {
        kind: 'invalid-output',
        message: `A replacement value for "${tool.name}" from post-execute listener #${index} does not match the output schema: ${err.message}`,
      };
    }
  }
}
