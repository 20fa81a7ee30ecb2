/**
 * Picks the runner for an isolation mode, loading it only when first needed: a host that runs
 * programs in sandbox processes never loads isolated-vm itself, and a host that never runs a
 * program starts nothing. The default is the sandbox process (the fault boundary); in-process
 * isolates are an explicit opt-in.
 */
import type { ProgramRunner } from '../program-runner.js';
import { prepareOsSandbox, type OsSandboxMode } from '../os-sandbox/index.js';
import { RunnerUnavailableError } from './errors.js';
import { errorText, InvalidOptionError } from '../../tools/index.js';

/**
 * Where programs run: a supervised sandbox process (default: runs of one agent share its slots
 * and reuse isolates), `{ strict: true }` a sandbox process to itself while it runs, with a
 * fresh isolate, or an isolate in this process.
 */
export type Isolation = 'process' | 'isolate' | StrictIsolation;

/** `isolation: { strict: true }`: sandbox processes, one run in a process at a time, a fresh isolate per run. */
export interface StrictIsolation {
  readonly strict: boolean;
}

/** The runner an `isolation` option names; throws {@link InvalidOptionError} for anything else. */
export function resolveIsolation(value: unknown, where = 'createRunCodeTool'): { readonly mode: 'process' | 'isolate'; readonly strict: boolean } {
  if (value === undefined || value === 'process') return { mode: 'process', strict: false };
  if (value === 'isolate') return { mode: 'isolate', strict: false };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const strict = (value as { strict?: unknown }).strict;
    if (keys.every((k) => k === 'strict') && typeof strict === 'boolean') return { mode: 'process', strict };
  }
  throw new InvalidOptionError({ where, option: 'isolation', value, expected: '"process", "isolate" or { strict: true }' });
}

const MODULES: Record<'process' | 'isolate', { path: string; factory: string }> = {
  process: { path: '../sandbox-process/index.js', factory: 'createProcessRunner' },
  isolate: { path: '../isolate/index.js', factory: 'createIsolateRunner' },
};

/** How many programs can run at once, and how many places to run them are kept warm. */
export interface RunnerCapacity {
  /**
   * Sandbox processes alive at once (`'process'` only; default: half the machine's memory at
   * 256 MB each, 4 to 64): the pool grows on demand up to it and shrinks back when idle; a run
   * that finds all of them busy waits for one, at most its `wallMs`, and that wait does not
   * count against `wallMs`.
   */
  readonly maxProcesses?: number;
  /** Idle sandbox processes (`'process'`, default 1) or prepared isolates (`'isolate'`, default 2) kept ready. */
  readonly poolSize?: number;
  /**
   * Runs of one agent a sandbox process holds at once, each in its own slot (`'process'` only;
   * 1 to 8, default 4; `{ strict: true }` holds one). A process serves one agent for its life.
   */
  readonly runsPerProcess?: number;
}

/** Loads and creates the runner for `isolation`; `osSandbox` and `strict` apply to `'process'` only. */
export async function loadRunner(isolation: 'process' | 'isolate', capacity: RunnerCapacity = {}, osSandbox?: OsSandboxMode, strict = false): Promise<ProgramRunner> {
  const entry = Object.hasOwn(MODULES, isolation) ? MODULES[isolation] : undefined;
  if (!entry) throw new RunnerUnavailableError(String(isolation), 'isolation must be "process" or "isolate"');
  let mod: Record<string, unknown>;
  try {
    mod = (await import(entry.path)) as Record<string, unknown>;
  } catch (err) {
    throw new RunnerUnavailableError(isolation, errorText(err));
  }
  const factory = mod[entry.factory];
  if (typeof factory !== 'function') throw new RunnerUnavailableError(isolation, `${entry.factory} is not exported`);
  // The OS sandbox's probe spawns bubblewrap: run it without blocking the host's loop, so the
  // runner's synchronous resolve below finds it cached.
  if (isolation === 'process') await prepareOsSandbox({ mode: osSandbox });
  const options = isolation === 'process' ? { maxProcesses: capacity.maxProcesses, poolSize: capacity.poolSize, runsPerProcess: capacity.runsPerProcess, osSandbox, strict } : { poolSize: capacity.poolSize, ...(strict ? { isolateRuns: 1 } : {}) };
  return (factory as (options: RunnerCapacity) => ProgramRunner)(withoutUndefined(options));
}

function withoutUndefined<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as T;
}
