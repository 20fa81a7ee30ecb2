/** Host-side errors of a PTC run. They travel to the host and the trace, never into a program. */
import { PtcError } from '../tools/index.js';
import { limitText, type LimitName } from './limit-failure.js';

/**
 * A run hit one of its limits. Used as the abort reason of the run's signal, so the runner and
 * every in-flight child learn which limit ended the run, and as the run's error text.
 */
export class RunLimitError extends PtcError {
  override readonly name = 'RunLimitError';
  constructor(
    /** The limit's name as in `RunLimits` (`wallMs`, `maxCalls`, …). */
    readonly limit: LimitName,
    /** The limit's configured value. */
    readonly value: number,
    /** What happened, as a sentence (`limitMessage`). */
    readonly detail: string,
  ) {
    super(`run_code limit ${limitText(limit, value)} exceeded. ${detail}`);
  }
}

/** The run was cancelled from outside (the run_code call's own signal). */
export class RunAbortedError extends PtcError {
  override readonly name = 'RunAbortedError';
  constructor(readonly detail: string) {
    super(`run_code was aborted: ${detail}`);
  }
}

/**
 * A durable run was stopped by its own journal (docs/run-life.md): `suspended` (it waits for a
 * person and freed its process), `replay-diverged` (a replay saw the program do something the
 * journal does not have; nothing after it ran) or `journal` (its journal could not be written,
 * or passed its cap).
 */
export class RunStoppedError extends PtcError {
  override readonly name = 'RunStoppedError';
  constructor(
    readonly kind: 'suspended' | 'replay-diverged' | 'journal',
    readonly detail: string,
  ) {
    super(kind === 'suspended' ? `run_code suspended: ${detail}` : kind === 'replay-diverged' ? `The resumed run diverged from its journal: ${detail}` : `The durable run's journal failed: ${detail}`);
  }
}
