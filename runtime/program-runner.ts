/**
 * The seam between run_code (host side: bridge, token, pipeline) and wherever the isolate lives:
 * in this process (`isolation: 'isolate'`) or in a supervised sandbox process (`'process'`, the
 * default). Both implement {@link ProgramRunner}; run_code does not know which one it has.
 *
 * Only strings cross this seam: the transpiled program, JSON text of args and results, log
 * text. The runner never sees the run token or a tool; it can only ask the host, through
 * {@link GuestBridge}, to dispatch a call by the name the program used. Whatever a runner (or a
 * compromised sandbox process) sends is untrusted input for the bridge.
 */
import type { ResultTextStream } from '../tools/index.js';

/** Resolved limits of one run (host policy; the program cannot raise them). */
export interface RunLimits {
  /** Isolate heap limit (isolated-vm `memoryLimit`). */
  readonly memoryMb: number;
  /** CPU time of the program inside the isolate. */
  readonly cpuMs: number;
  /** Wall-clock deadline of the whole run, approval waits excluded (the bridge pauses it). */
  readonly wallMs: number;
  /** Child calls per run. */
  readonly maxCalls: number;
  /** Child calls in flight at once. */
  readonly maxInFlight: number;
  /** Cap on `logs` + `result` reaching the model; more is spilled, never cut. */
  readonly maxOutputBytes: number;
  /** Cap on captured console bytes. */
  readonly maxLogBytes: number;
  /** Cap on one call's serialized arguments. */
  readonly maxArgBytes: number;
  /** Cap on one call's argument nesting depth. */
  readonly maxArgDepth: number;
  /** Cap on one call's argument node count. */
  readonly maxArgNodes: number;
  /** Cap on the serialized value (or error) the program returns. */
  readonly maxResultBytes: number;
  /** Sandbox process resident memory cap (process isolation only). */
  readonly rssMb: number;
  /**
   * Host work the run's child calls may cost before their tools run (reading and validating
   * arguments, recording events), ms; enforced by the bridge, whatever the isolation.
   */
  readonly hostMs: number;
  /**
   * Wall time the run's children may wait for people's approvals in all (time with at least one
   * waiting), ms; past it, pending and later asks of the run are denied as `unavailable` and the
   * run goes on. Enforced by the bridge.
   */
  readonly approvalWaitMs: number;
}

/** Host callbacks a runner uses while a program runs. */
export interface GuestBridge {
  /**
   * Dispatches one call. `name` is the callable name the program used, `argsJson` the JSON text
   * the guest produced. Resolves (never rejects) with the final JSON value or a readable error.
   */
  call(name: string, argsJson: string, meta?: GuestCallMeta): Promise<GuestCallOutcome>;
  /** One console line from the program. */
  log(level: 'log' | 'info' | 'warn' | 'error' | 'debug', text: string): void;
  /**
   * The runner waits for room to run the program (a sandbox process to become free or to start):
   * `true` as the wait begins, `false` as it ends. That time is not the program's: a bridge may
   * stop the run's wall clock meanwhile (the runner bounds the wait itself). Optional.
   */
  queued?(waiting: boolean): void;
  /**
   * The runner's say over waits for a person (docs/run-life.md "Waiting for a person"), given
   * once the run has its place (a sandbox process's slot): the bridge asks `admit` before a
   * child waits for a person and reports when the run starts and stops waiting. Optional on
   * both sides.
   */
  personWaits?(gate: PersonWaitGate): void;
}

/** See {@link GuestBridge.personWaits}. */
export interface PersonWaitGate {
  /**
   * A child of the run is about to wait for a person: undefined to let it, or why not (the ask
   * is then not put to anyone: denied, or deferred in a durable run, with this reason).
   */
  admit(): string | undefined;
  /** The run has children waiting for a person now (true), or none any more (false). */
  waiting(waiting: boolean): void;
}

/**
 * What a runner may add to a call. `textStream`: the sandbox process runner's stream of a large
 * array result's text, parsed in the program's isolate while the pipeline still walks the value
 * (tools/result-text-stream.ts); the program gets it only if the outcome is that text.
 */
export interface GuestCallMeta {
  readonly textStream?: ResultTextStream;
}

/** What the guest's `await tools.x()` settles with. */
export type GuestCallOutcome =
  | { readonly ok: true; readonly json: string }
  | { readonly ok: false; readonly toolName: string; readonly message: string };

/**
 * What makes a run replayable (durable runs, docs/run-life.md): the guest's `Math.random` is
 * seeded from `seed` and its `Date` reads a recorded clock (`clockMs` at the start, then the
 * clock that comes with each batch of outcomes, plus 1 ms per reading within a slice).
 */
export interface RunDeterminism {
  /** 128 bits as 32 lowercase hex characters. */
  readonly seed: string;
  /** The clock the program reads at its start, ms since the epoch. */
  readonly clockMs: number;
}

/** One program to run. */
export interface RunRequest {
  /** Transpiled JavaScript: the body of an async function (`return` gives the result). */
  readonly js: string;
  /** Callable names for the guest's frozen `tools` object (exactly the visible tools). */
  readonly toolNames: readonly string[];
  readonly limits: RunLimits;
  /** Lines the wrapper adds before the program's first line, to map error lines back. */
  readonly lineOffset?: number;
  /**
   * Set for a durable run: seeded randomness and a recorded clock in the guest, and the end of
   * every slice reported to a relay bridge (`RelayBridge.sliceEnded`).
   */
  readonly determinism?: RunDeterminism;
  /**
   * Who may share with this run (docs/run-life.md "Groups, slots and isolates"): run_code sets
   * its tool instance plus the run's agent (a run without an agent gets a group of its own).
   * Runs of one group may reuse an isolate (each in a fresh context) and share a sandbox
   * process; runs of different groups never do. Absent: the run shares with none.
   */
  readonly group?: string;
}

/** Why a run ended without a result. `limit` names the limit hit, with its value. */
export type RunFailure =
  | { readonly kind: 'thrown'; readonly message: string; readonly line?: number; readonly column?: number }
  | { readonly kind: 'limit'; readonly limit: keyof RunLimits; readonly value: number; readonly message: string }
  | { readonly kind: 'crash'; readonly message: string }
  | { readonly kind: 'aborted'; readonly message: string };

/** How a run ended. */
export type RunOutcome = (
  | { readonly ok: true; /** JSON text of the returned value (`null` for undefined). */ readonly resultJson: string }
  | { readonly ok: false; readonly failure: RunFailure }
) & { readonly cpuMs: number; readonly wallMs: number };

/** Runs programs in isolates. */
export interface ProgramRunner {
  /** Runs one program; `signal` aborts it (the isolate is disposed, not reused). */
  run(request: RunRequest, bridge: GuestBridge, signal: AbortSignal): Promise<RunOutcome>;
  /** Releases isolates and processes. */
  close(): Promise<void>;
  /**
   * What confines the processes programs run in beyond the isolate: `'bubblewrap'` (the OS
   * sandbox, runtime/os-sandbox) or `'none'`. run_code reports it in `stats.osSandbox`; a runner
   * that does not say is reported as `'none'`.
   */
  readonly osSandbox?: 'bubblewrap' | 'none';
}
