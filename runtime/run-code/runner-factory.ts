/**
 * Picks the runner for an isolation mode, loading it only when first needed: a host that runs
 * programs in sandbox processes never loads isolated-vm itself, and a host that never runs a
 * program starts nothing. The default is the sandbox process (the fault boundary); in-process
 * isolates are an explicit opt-in.
 */
import type { ProgramRunner } from '../program-runner.js';
import { RunnerUnavailableError } from './errors.js';

/** Where programs run: a supervised sandbox process (default) or an isolate in this process. */
export type Isolation = 'process' | 'isolate';

const MODULES: Record<Isolation, { path: string; factory: string }> = {
  process: { path: '../sandbox-process/index.js', factory: 'createProcessRunner' },
  isolate: { path: '../isolate/index.js', factory: 'createIsolateRunner' },
};

/** Loads and creates the runner for `isolation`. */
export async function loadRunner(isolation: Isolation): Promise<ProgramRunner> {
  const entry = Object.hasOwn(MODULES, isolation) ? MODULES[isolation] : undefined;
  if (!entry) throw new RunnerUnavailableError(String(isolation), 'isolation must be "process" or "isolate"');
  let mod: Record<string, unknown>;
  try {
    mod = (await import(entry.path)) as Record<string, unknown>;
  } catch (err) {
    throw new RunnerUnavailableError(isolation, (err as Error)?.message ?? String(err));
  }
  const factory = mod[entry.factory];
  if (typeof factory !== 'function') throw new RunnerUnavailableError(isolation, `${entry.factory} is not exported`);
  return (factory as () => ProgramRunner)();
}
