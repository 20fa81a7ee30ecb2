/**
 * `await sleep(ms)`: the one timer a program has, for waiting before it retries a rate-limited
 * call. Declared here with the program's other globals (generate-tool-types.ts), so the check,
 * the description and the bridge that settles it read the same figures.
 *
 * How it crosses (docs/run-life.md, the runner seam): the guest sends it as a call to the
 * reserved name {@link SLEEP_CALL} with arguments `{"ms":n}`, through the same path as a tool
 * call; the host-side runners pass that name like a visible tool; the bridge settles it with a
 * timer on the run's clock (bridge/run-sleeps.ts). It is not a tool call: no pipeline, not in
 * `calls`, not counted in `maxCalls`; it counts in `wallMs`, not in `cpuMs`, and it ends when the
 * run ends. Its outcome is an ordinary call outcome, so a durable replay can deliver it from a
 * journal without waiting again.
 *
 * Input: `ms` is a number of milliseconds; a negative one waits 0 ms and one over
 * {@link MAX_SLEEP_MS} (Infinity included) waits {@link MAX_SLEEP_MS}, as the declaration says, so
 * a back-off loop that doubles its wait keeps working. NaN or a value that is not a number is
 * refused with a `TypeError` in the program. At most {@link MAX_SLEEPS_AT_ONCE} sleeps of a run
 * wait at once; one more is refused with an `Error` saying so (a program cannot make a million timers).
 */

/** The reserved call name `sleep` crosses as: not an identifier, so no tool can have it. */
export const SLEEP_CALL = '#sleep';

/** The longest one `sleep` waits, ms; a longer `ms` waits this long. */
export const MAX_SLEEP_MS = 10_000;

/** Sleeps of one run that may wait at once; one more is refused. */
export const MAX_SLEEPS_AT_ONCE = 1_000;

/** The declaration of `sleep` programs are checked against (part of the program's globals). */
export const SLEEP_DECLARATION = `/**
 * Waits \`ms\` milliseconds, for instance before retrying a rate-limited call. One wait is at most ${MAX_SLEEP_MS} ms
 * (a longer \`ms\` waits ${MAX_SLEEP_MS}; a negative one, 0). The wait counts against the run's wall time, not its CPU time.
 */
declare function sleep(ms: number): Promise<void>;
`;
