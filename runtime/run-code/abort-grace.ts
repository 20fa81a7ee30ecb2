import { subscribeAbort } from '../../tools/index.js';
import type { RunOutcome } from '../program-runner.js';

/** How long a runner may take to stop after its signal is aborted before the run is reported as a crash. */
const RUNNER_ABORT_GRACE_MS = 5_000;

/** The runner's outcome, or a crash when it has not stopped {@link RUNNER_ABORT_GRACE_MS} after the abort. */
export function withAbortGrace(run: Promise<RunOutcome>, signal: AbortSignal): Promise<RunOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  let unsubscribe: (() => void) | undefined;
  const stuck = new Promise<RunOutcome>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => {
        resolve({ ok: false, failure: { kind: 'crash', message: `the runner did not stop within ${RUNNER_ABORT_GRACE_MS} ms of the abort` }, cpuMs: 0, wallMs: 0 });
      }, RUNNER_ABORT_GRACE_MS);
      timer.unref?.();
    };
    if (signal.aborted) onAbort();
    else unsubscribe = subscribeAbort(signal, onAbort);
  });
  return Promise.race([run, stuck]).finally(() => {
    clearTimeout(timer);
    unsubscribe?.();
  });
}
