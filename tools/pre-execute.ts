/**
 * Steps 3 and 4: the pre-execute waterfall, then the monotonic guards.
 *
 * Why guards are monotonic: a listener can return allow, so the order of listeners decides who
 * wins among them. A guard has no allow. Guards run after every listener, and the first guard
 * that returns a reason replaces whatever the listeners decided with a denial; nothing runs after
 * that could undo it. So "any guard denies => the call is denied and its body never runs" holds
 * whatever the registration order, and a reviewer can check a guard on its own.
 *
 * Failing closed: a listener that throws, or returns something that is not a decision, denies
 * the call (naming the listener); a guard that throws or returns a non-string (an async guard's
 * Promise, say) denies too.
 */
import { errorText } from './errors.js';
import type { PreExecuteListener, ToolGuard } from './hooks.js';
import type { PreToolDecision, ToolExecution } from './types.js';

/** Who set the decision: nobody (default allow), the listener or guard at `index`. */
export type PreDecisionSource = { kind: 'default' } | { kind: 'listener'; index: number } | { kind: 'guard'; index: number };

/** The outcome of steps 3-4. */
export interface PreDecisionOutcome {
  readonly decision: PreToolDecision;
  readonly source: PreDecisionSource;
  readonly additionalContexts: string[];
}

const ALLOW: PreToolDecision = Object.freeze({ type: 'allow' });

/** Checks that a listener's return is a well-formed pre-execute decision. */
export function isPreToolDecision(value: unknown): value is PreToolDecision {
  return readPreDecision(value) !== undefined;
}

/**
 * A listener's return as a fresh frozen decision, or undefined when it is not one. Each field is
 * read once (a getter cannot show one value to the check and another to the use), and a read
 * that throws (a Proxy's trap, a getter) makes it "not a decision", never an exception.
 */
function readPreDecision(value: unknown): PreToolDecision | undefined {
  try {
    if (typeof value !== 'object' || value === null) return undefined;
    const { type, reason, additionalContext } = value as Record<string, unknown>;
    if (additionalContext !== undefined && typeof additionalContext !== 'string') return undefined;
    const extra = additionalContext === undefined ? {} : { additionalContext };
    if (type === 'allow') return Object.freeze({ type, ...extra });
    if ((type === 'deny' || type === 'ask') && typeof reason === 'string') return Object.freeze({ type, reason, ...extra });
    return undefined;
  } catch {
    return undefined;
  }
}

/** Runs the waterfall and then the guards over a frozen execution. */
export async function decidePreExecute(
  execution: ToolExecution,
  listeners: readonly PreExecuteListener[],
  guards: readonly ToolGuard[],
): Promise<PreDecisionOutcome> {
  let decision = ALLOW;
  let source: PreDecisionSource = { kind: 'default' };
  const additionalContexts: string[] = [];

  for (let index = 0; index < listeners.length; index++) {
    let next: unknown;
    try {
      next = listeners[index]!(execution, decision);
      if (isThenable(next)) next = await next;
    } catch (err) {
      next = { type: 'deny', reason: `pre-execute listener #${index} failed: ${errorText(err)}` };
    }
    if (next === undefined) continue;
    decision = readPreDecision(next) ?? Object.freeze({ type: 'deny', reason: `pre-execute listener #${index} returned an invalid decision` });
    source = { kind: 'listener', index };
    if (decision.additionalContext) additionalContexts.push(decision.additionalContext);
  }

  for (let index = 0; index < guards.length; index++) {
    let reason: unknown;
    try {
      reason = guards[index]!(execution);
    } catch (err) {
      reason = `guard #${index} failed: ${errorText(err)}`;
    }
    if (reason === undefined) continue;
    if (typeof reason !== 'string') {
      // An async guard returns a Promise: refuse rather than ignore it.
      const promise = isThenable(reason);
      if (promise) Promise.resolve(reason).catch(() => {});
      reason = `guard #${index} returned ${promise ? 'a Promise (guards must be synchronous)' : 'a non-string'}`;
    }
    return { decision: Object.freeze({ type: 'deny', reason: reason as string }), source: { kind: 'guard', index }, additionalContexts };
  }
  return { decision, source, additionalContexts };
}

/** `value instanceof Promise`, without letting a hostile value's traps throw out of the check. */
function isThenable(value: unknown): boolean {
  try {
    return value instanceof Promise;
  } catch {
    return false;
  }
}
