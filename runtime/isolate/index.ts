/** In-process isolate runner: each program in a fresh isolated-vm isolate of this process. */
export { createIsolateRunner, RunRequestError, validateRunRequest } from './isolate-runner.js';
export type { IsolateRunner, IsolateRunnerOptions, IsolateRunnerStats } from './isolate-runner.js';
export type { OffThreadSlices } from './isolate-run.js';
export type { IsolateRunOutcome, LateCallAwareBridge, LateCallEvent, RelayBridge, RunStartup, SliceReport } from './run-types.js';
export type { OutcomeBatch } from './guest/protocol.js';
