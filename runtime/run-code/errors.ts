/** Errors of run_code as the host and the model see them (never inside a program). */
import { PtcError } from '../../tools/index.js';

/** Why a run failed (`'typecheck-busy'`: refused before it ran, its agent had `typecheckLimits.maxQueuedPerAgent` checks waiting). */
export type RunCodeFailureKind = 'thrown' | 'limit' | 'crash' | 'aborted' | 'replay-diverged' | 'journal' | 'suspended' | 'typecheck-busy';

/**
 * A run ended without a result. run_code throws it from `execute`, so the call is `isError` and
 * the model reads the message: what happened, the line in its own code when the program threw,
 * the limit and its value when one was hit, and a short summary of logs and calls.
 */
export class RunCodeError extends PtcError {
  override readonly name = 'RunCodeError';
  constructor(
    readonly kind: RunCodeFailureKind,
    message: string,
    readonly details: { readonly line?: number; readonly column?: number; readonly limit?: string; readonly value?: number } = {},
  ) {
    super(message);
  }
}

/** The runner for the requested isolation could not be loaded or started. */
export class RunnerUnavailableError extends PtcError {
  override readonly name = 'RunnerUnavailableError';
  constructor(
    readonly isolation: string,
    readonly detail: string,
  ) {
    super(`run_code: the "${isolation}" runner is not available: ${detail}`);
  }
}
