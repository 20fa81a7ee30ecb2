/** Errors of the model-program evaluation harness: its own failures, never a program's. */
import { PtcError } from '../../tools/index.js';

/** The harness could not run: an unreadable programs directory, a listing without run_code. */
export class EvalHarnessError extends PtcError {
  override readonly name = 'EvalHarnessError';
}

/** A task's truth could not be computed: the bundled data no longer has what the task is about. */
export class TruthError extends PtcError {
  override readonly name = 'TruthError';
}
