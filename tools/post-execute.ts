/**
 * Step 8: the post-execute waterfall over an executed call's result.
 *
 * - replace-content changes only what the model reads; the value stays, and programs read it.
 *   It is a presentation policy, not a secrecy policy.
 * - replace-value is materialized and validated against the output schema like the tool's own
 *   value, a large one in slices as well (materialize-result.ts; for a program's call with its
 *   JSON text made on the way); an invalid replacement makes the result an error. Content is
 *   rendered again from it, so earlier replaced content cannot keep showing data the new value
 *   hides.
 * - block withholds value and content and is final: later listeners are not consulted.
 * A listener that throws or returns a malformed decision blocks (fail closed).
 */
import type { Tool } from './tool-types.js';
import { errorText } from './errors.js';
import type { PostExecuteListener } from './hooks.js';
import type { JsonValue } from './json.js';
import { ValidationError } from './materialize.js';
import { materializeResultValue } from './materialize-result.js';
import { checkContent, withTextFor } from './render.js';
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

/**
 * A listener's return as a fresh decision, or undefined when it is not one. Each field is read
 * once, and a read that throws (a Proxy's trap, a getter) makes it "not a decision", never an
 * exception out of the pipeline.
 */
function readPostDecision(d: unknown): PostToolDecision | undefined {
  try {
    if (typeof d !== 'object' || d === null) return undefined;
    const x = d as Record<string, unknown>;
    const { type, additionalContext } = x;
    if (additionalContext !== undefined && typeof additionalContext !== 'string') return undefined;
    const extra = additionalContext === undefined ? {} : { additionalContext };
    switch (type) {
      case 'replace-content': {
        const content = x.content;
        return Array.isArray(content) ? { type, content, ...extra } : undefined;
      }
      case 'replace-value':
        return 'value' in x ? { type, value: x.value as JsonValue, ...extra } : undefined;
      case 'block': {
        const reason = x.reason;
        return typeof reason === 'string' ? { type, reason, ...extra } : undefined;
      }
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

/**
 * Applies the listeners in order; `snapshot` presents the draft to each listener as a ToolResult.
 * `forProgram`: a PTC call (a large replacement's JSON text is made while it is materialized).
 */
export async function applyPostExecute(options: {
  tool: Tool;
  execution: ToolExecution;
  listeners: readonly PostExecuteListener[];
  draft: ResultDraft;
  snapshot: () => ToolResult;
  forProgram?: boolean;
}): Promise<void> {
  const { tool, execution, listeners, draft, snapshot, forProgram = false } = options;
  for (let index = 0; index < listeners.length; index++) {
    let d: unknown;
    try {
      d = listeners[index]!(execution, snapshot());
      if (isPromise(d)) d = await d;
    } catch (err) {
      d = { type: 'block', reason: `post-execute listener #${index} failed: ${errorText(err)}` };
    }
    if (d === undefined) continue;
    const decision: PostToolDecision = readPostDecision(d) ?? { type: 'block', reason: `post-execute listener #${index} returned an invalid decision` };
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
        draft.blocked = { reason: errorText(err), index };
        draft.error = { kind: 'blocked', message: `The result of "${tool.name}" was withheld: ${errorText(err)}` };
        return;
      }
      continue;
    }
    try {
      const replaced = materializeResultValue(tool.output.schema, decision.value, withTextFor(tool, forProgram));
      draft.value = replaced instanceof Promise ? await replaced : replaced;
      draft.isError = false;
      delete draft.error;
      draft.content = undefined;
    } catch (err) {
      // Not only a ValidationError: a replacement with a throwing trap or too deep to copy is
      // just as invalid, and must not throw out of the pipeline.
      const why = err instanceof ValidationError ? err.message : `it could not be copied (${errorText(err)})`;
      draft.isError = true;
      delete draft.value;
      draft.content = undefined;
      draft.error = {
        kind: 'invalid-output',
        message: `A replacement value for "${tool.name}" from post-execute listener #${index} does not match the output schema: ${why}`,
      };
    }
  }
}

function isPromise(value: unknown): boolean {
  try {
    return value instanceof Promise;
  } catch {
    return false;
  }
}
