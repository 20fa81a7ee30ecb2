/** Errors of background jobs, named and structured like every host-side error. */
import { PtcError } from '../errors.js';

/**
 * No job with this id is visible to the caller. Raised alike for an id that never existed, one
 * that was forgotten, and another owner's job, so ownership never leaks through the message.
 */
export class UnknownJobError extends PtcError {
  override readonly name = 'UnknownJobError';
  constructor(readonly jobId: string) {
    super(`Unknown job "${jobId}". Call job_list to see your jobs.`);
  }
}

/** A job could not start: a bad field of `jobs.start`, a limit reached, or the host is closed. */
export class JobStartError extends PtcError {
  override readonly name = 'JobStartError';
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`Cannot start job: ${field} ${problem}`);
  }
}

/** A synchronous `host.jobs` method called on a host whose jobs are shared: it would see one replica only. */
export class JobsNeedAsyncError extends PtcError {
  override readonly name = 'JobsNeedAsyncError';
  constructor(readonly method: string) {
    super(`host.jobs.${method} is synchronous and sees this replica only, but this host's jobs are shared through a job store: call host.jobs.${method}Async.`);
  }
}

/** A shared job store failed (its server unreachable, a script error): says what it was doing. */
export class JobStoreError extends PtcError {
  override readonly name = 'JobStoreError';
  constructor(
    readonly operation: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Job store failed to ${operation}: ${detail.replace(/\.+$/, '')}.`, options);
  }
}
