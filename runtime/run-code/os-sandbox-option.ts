/**
 * run_code's `osSandbox` option, checked when the tool is created: an invalid value, or
 * `'require'` where it cannot hold, is an error then, not at the first run. `'require'` with the
 * default runner probes bubblewrap at once (runtime/os-sandbox; ~0.1 s, once per process).
 */
import type { ProgramRunner } from '../program-runner.js';
import { OsSandboxOptionError, OsSandboxUnavailableError, parseOsSandboxMode, resolveOsSandbox, type OsSandboxMode } from '../os-sandbox/index.js';

/** The mode to give the process runner. Throws `OsSandboxOptionError` or `OsSandboxUnavailableError`. */
export function checkOsSandboxOption(options: { osSandbox: unknown; isolation: 'process' | 'isolate'; runner: ProgramRunner | undefined }): OsSandboxMode {
  const mode = parseOsSandboxMode(options.osSandbox);
  if (mode !== 'require') return mode;
  if (options.runner !== undefined) {
    if (options.runner.osSandbox !== 'bubblewrap') throw new OsSandboxUnavailableError('the runner given to createRunCodeTool does not report running its programs under it (runner.osSandbox)');
    return mode;
  }
  if (options.isolation === 'isolate') {
    throw new OsSandboxOptionError('osSandbox', '"require" does not apply to isolation "isolate": its programs run in this process, outside any OS sandbox');
  }
  resolveOsSandbox({ mode });
  return mode;
}
