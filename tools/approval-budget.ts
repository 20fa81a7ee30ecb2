/**
 * A run's budget of time waiting for people (`limits.approvalWaitMs`), as its bridge hands it to
 * each child call under a symbol key of `CallOptions`: internal, set only by this package's bridge
 * and read by the pipeline only on calls from a PTC program. When the budget is spent the signal
 * aborts: an ask then waiting is denied with `reason` (`unavailable: ...`), and a later ask is
 * denied without asking the channel. Only a denial can come of it, so a forged one cannot
 * approve anything.
 */
export const APPROVAL_BUDGET: unique symbol = Symbol('ptc-runtime.approval-budget');

/** See the file note. */
export interface ApprovalBudget {
  /** Aborted once the run's approval waits reach its budget. */
  readonly signal: AbortSignal;
  /** Why asks are denied then (starts with `unavailable:` and names the limit). */
  readonly reason: string;
  /**
   * Asked before each ask waits for a person: undefined to let it, or why not (starts with
   * `unavailable:`): the ask is then denied (deferred, for a durable run's call) without asking
   * the channel. The runner's fairness between agents (docs/run-life.md "Waiting for a person").
   */
  readonly admit?: () => string | undefined;
}

/** `CallOptions` with the internal approval budget. */
export interface ApprovalBudgetOptions {
  readonly [APPROVAL_BUDGET]?: ApprovalBudget;
}

/** The approval budget of call options, or undefined (never throws). */
export function approvalBudgetOf(options: unknown): ApprovalBudget | undefined {
  try {
    const part = (options as ApprovalBudgetOptions | undefined)?.[APPROVAL_BUDGET];
    if (typeof part !== 'object' || part === null) return undefined;
    const { signal, reason, admit } = part;
    if (!(signal instanceof AbortSignal) || typeof reason !== 'string') return undefined;
    return typeof admit === 'function' ? { signal, reason, admit } : { signal, reason };
  } catch {
    return undefined;
  }
}
