/** The host side of a PTC run: token, dispatch into the pipeline, revocation, per-run limits. */
export { openRunBridge } from './run-bridge.js';
export type { BridgeLimits, ChildCallMeta, LogLevel, ReplayedCall, RunBridge, RunBridgeOptions, RunEnd, RunReport } from './run-bridge.js';
export type { ChildCallRecord, ChildSettlement } from './child-calls.js';
export type { ChildOutcome, ChildStatus } from './guest-outcome.js';
export { DENIAL_MESSAGE_PREFIX, guestOutcomeOf } from './guest-outcome.js';
export { jsonDepth, parseGuestArgs } from './guest-args.js';
export type { ArgCaps, GuestArgs } from './guest-args.js';
export { PausableDeadline } from './pausable-deadline.js';
export type { DeadlineClock } from './pausable-deadline.js';
export { createRunToken } from './run-token.js';
export { RunAbortedError, RunLimitError, RunStoppedError } from './errors.js';
export { isLimitName, LIMIT_NAMES, limitFailure, limitMessage, limitText } from './limit-failure.js';
export type { LimitEvent, LimitFailure, LimitName } from './limit-failure.js';
export { LateCallLog, MAX_RECORDED_LATE_CALLS, MORE_LATE_CALLS } from './late-calls.js';
export type { LateCallSink } from './late-calls.js';
