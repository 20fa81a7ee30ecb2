/**
 * `createFileRunStore({ dir })`: the embedded {@link RunStore}. One host (or several processes on
 * one machine) keeps durable runs in a directory, so a run suspended before a restart resumes
 * after it, with no server to run.
 *
 * Layout: `dir/<runId>/state.json` (the record, status, fence and lease: replaced whole by
 * write-to-temp and rename, so a reader never sees half of one) and `dir/<runId>/journal.jsonl`
 * (one JSON string per line, appended). A change to a run takes the run's lock file
 * (`lock`, created exclusively, naming its owner's host and pid), so two processes claiming one
 * run cannot both win; a lock left by a process of this machine that is no longer alive is broken
 * at once, and any lock older than `staleLockMs` (an owner on another machine sharing the
 * directory) is broken then. With `fsync`
 * (the default) a write is on disk before it resolves: an acknowledged entry survives a crash of
 * the host or the machine. A crash in the middle of an append can leave a partial last line; it
 * was never acknowledged, and the next writer cuts it off before appending.
 *
 * Run ids are file names here, so only `[A-Za-z0-9_-]{1,128}` is accepted (a run's id is random
 * base64url); anything else is an unknown run for `load` and `claim`, and an error for `create`.
 */
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, truncate, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { errorText, InvalidOptionError } from '../../tools/index.js';
import {
  RunStoreConflictError,
  RunStoreError,
  RunStoreFencedError,
  TERMINAL_RUN_STATUSES,
  type RunClaim,
  type RunMeta,
  type RunStatus,
  type RunStore,
  type RunSummary,
  type StoredRun,
} from './run-store.js';

/** Options of {@link createFileRunStore}. */
export interface FileRunStoreOptions {
  /** The directory runs are kept in (created when missing, mode 0700). */
  readonly dir: string;
  /** Flush each write to disk before it resolves (default true). */
  readonly fsync?: boolean;
  /** A run's lock older than this is taken to be left by a dead process and broken, ms (default 10,000). */
  readonly staleLockMs?: number;
  /** How long a change waits for a run's lock before failing, ms (default: `staleLockMs` + 5,000, so a lock left by a dead owner elsewhere is broken in time). */
  readonly lockWaitMs?: number;
}

interface State {
  readonly meta: RunMeta;
  readonly status: RunStatus;
  readonly fence: number;
  readonly leaseUntil: number | null;
}

const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Creates the file run store. */
export function createFileRunStore(options: FileRunStoreOptions): RunStore {
  if (typeof options?.dir !== 'string' || options.dir === '') {
    throw new InvalidOptionError({ where: 'createFileRunStore', option: 'dir', value: options?.dir, expected: 'a directory path' });
  }
  const { dir } = options;
  const fsync = options.fsync ?? true;
  const staleLockMs = options.staleLockMs ?? 10_000;
  const lockWaitMs = options.lockWaitMs ?? staleLockMs + 5_000;
  const owner = `${hostname()} ${process.pid}`;
  let ready: Promise<void> | undefined;
  const ensureDir = () => (ready ??= mkdir(dir, { recursive: true, mode: 0o700 }).then(() => undefined));

  const runDir = (runId: string) => join(dir, runId);
  const statePath = (runId: string) => join(dir, runId, 'state.json');
  const journalPath = (runId: string) => join(dir, runId, 'journal.jsonl');

  const fail = (operation: string, err: unknown): never => {
    if (RunStoreFencedError.isInstance(err) || RunStoreConflictError.isInstance(err) || RunStoreError.isInstance(err)) throw err;
    throw new RunStoreError(operation, errorText(err), { cause: err });
  };

  const readState = async (runId: string): Promise<State | undefined> => {
    let text: string;
    try {
      text = await readFile(statePath(runId), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return JSON.parse(text) as State;
  };

  const writeState = async (runId: string, state: State): Promise<void> => {
    const temp = `${statePath(runId)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    const file = await open(temp, 'w', 0o600);
    try {
      await file.writeFile(JSON.stringify(state));
      if (fsync) await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, statePath(runId));
  };

  /** Appends whole lines; first cuts a partial last line a crash left (never acknowledged). */
  const appendLines = async (runId: string, entries: readonly string[]): Promise<void> => {
    if (entries.length === 0) return;
    const path = journalPath(runId);
    const size = (await stat(path)).size;
    if (size > 0) {
      const file = await open(path, 'r');
      try {
        const last = Buffer.alloc(1);
        await file.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) await truncate(path, await lastLineEnd(file, size));
      } finally {
        await file.close();
      }
    }
    const file = await open(path, constants.O_WRONLY | constants.O_APPEND, 0o600);
    try {
      await file.writeFile(entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
      if (fsync) await file.sync();
    } finally {
      await file.close();
    }
  };

  const readEntries = async (runId: string): Promise<string[]> => {
    let text: string;
    try {
      text = await readFile(journalPath(runId), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const lines = text.split('\n');
    lines.pop(); // after the last newline: empty, or a partial line never acknowledged
    return lines.map((line) => JSON.parse(line) as string);
  };

  /** Runs `work` holding the run's lock file. */
  const locked = async <T>(runId: string, work: () => Promise<T>): Promise<T> => {
    if (typeof runId !== 'string' || !RUN_ID.test(runId)) throw new RunStoreFencedError(String(runId).slice(0, 128), 'the run is unknown');
    const lock = join(runDir(runId), 'lock');
    const until = Date.now() + lockWaitMs;
    let handle: FileHandle | undefined;
    for (let attempt = 0; handle === undefined; attempt++) {
      try {
        const opened = await open(lock, 'wx', 0o600);
        await opened.writeFile(owner).catch(async (err: unknown) => {
          await opened.close();
          await rm(lock, { force: true });
          throw err;
        });
        handle = opened;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') throw new RunStoreFencedError(runId, 'the run is unknown');
        if (code !== 'EEXIST') throw err;
        const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
        if (age > staleLockMs || (await ownerIsDead(lock))) {
          await rm(lock, { force: true });
          continue;
        }
        if (Date.now() > until) throw new RunStoreError(`lock run "${runId}"`, `its lock was held for over ${lockWaitMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt)));
      }
    }
    try {
      return await work();
    } finally {
      await handle.close();
      await rm(lock, { force: true });
    }
  };

  /** Whether the lock's owner is a process of this machine that no longer runs (an empty lock is being written: alive). */
  const ownerIsDead = async (lock: string): Promise<boolean> => {
    const text = await readFile(lock, 'utf8').catch(() => '');
    const match = /^(.*) (\d+)$/.exec(text);
    if (match === null || match[1] !== hostname()) return false;
    const pid = Number(match[2]);
    if (pid === process.pid) return false;
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  };

  /** The state, checked to be held by `claim`. */
  const held = async (claim: RunClaim): Promise<State> => {
    const state = await readState(claim.runId);
    if (state === undefined) throw new RunStoreFencedError(claim.runId, 'the run is unknown');
    if (state.fence !== claim.fence) throw new RunStoreFencedError(claim.runId, `another claim holds it (fence ${state.fence}, this claim's ${claim.fence})`);
    if (TERMINAL_RUN_STATUSES.includes(state.status)) throw new RunStoreFencedError(claim.runId, `it has ended (${state.status})`);
    return state;
  };

  const unheld = (state: State, now: number) => state.status === 'suspended' || (state.status === 'active' && (state.leaseUntil ?? 0) < now);

  const runIds = async (): Promise<string[]> => {
    await ensureDir();
    return (await readdir(dir)).filter((name) => RUN_ID.test(name));
  };

  return {
    async create({ meta, entries, leaseMs, now }) {
      if (typeof meta?.runId !== 'string' || !RUN_ID.test(meta.runId)) throw new RunStoreError('create a run', `the run id must be 1-128 characters of [A-Za-z0-9_-]`);
      try {
        await ensureDir();
        try {
          await mkdir(runDir(meta.runId), { mode: 0o700 });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new RunStoreConflictError(meta.runId);
          throw err;
        }
        return await locked(meta.runId, async () => {
          const file = await open(journalPath(meta.runId), 'wx', 0o600);
          await file.close();
          await appendLines(meta.runId, entries);
          await writeState(meta.runId, { meta, status: 'active', fence: 1, leaseUntil: now + leaseMs });
          return { runId: meta.runId, fence: 1 };
        });
      } catch (err) {
        return fail(`create run "${meta.runId}"`, err);
      }
    },
    async append(claim, entries) {
      try {
        await locked(claim.runId, async () => {
          await held(claim);
          await appendLines(claim.runId, entries);
        });
      } catch (err) {
        fail(`append to run "${claim.runId}"`, err);
      }
    },
    async load(runId) {
      if (typeof runId !== 'string' || !RUN_ID.test(runId)) return undefined;
      try {
        const state = await readState(runId);
        if (state === undefined) return undefined;
        const entries = await readEntries(runId);
        const run: StoredRun = { meta: state.meta, status: state.status, fence: state.fence, leaseUntil: state.status === 'active' ? (state.leaseUntil ?? undefined) : undefined, entries };
        return run;
      } catch (err) {
        return fail(`load run "${runId}"`, err);
      }
    },
    async claim(runId, { leaseMs, now }) {
      if (typeof runId !== 'string' || !RUN_ID.test(runId)) return undefined;
      try {
        if ((await readState(runId)) === undefined) return undefined;
        return await locked(runId, async () => {
          const state = await readState(runId);
          if (state === undefined || !unheld(state, now)) return undefined;
          const fence = state.fence + 1;
          await writeState(runId, { ...state, status: 'active', fence, leaseUntil: now + leaseMs });
          return { runId, fence };
        });
      } catch (err) {
        return fail(`claim run "${runId}"`, err);
      }
    },
    async renew(claim, { leaseMs, now }) {
      if (typeof claim?.runId !== 'string' || !RUN_ID.test(claim.runId)) return false;
      try {
        return await locked(claim.runId, async () => {
          const state = await readState(claim.runId);
          if (state === undefined || state.fence !== claim.fence || state.status !== 'active') return false;
          await writeState(claim.runId, { ...state, leaseUntil: now + leaseMs });
          return true;
        });
      } catch (err) {
        if (RunStoreFencedError.isInstance(err)) return false;
        return fail(`renew the claim on run "${claim.runId}"`, err);
      }
    },
    async settle(claim, settlement) {
      try {
        await locked(claim.runId, async () => {
          const state = await held(claim);
          const meta = settlement.meta === undefined ? state.meta : { ...state.meta, ...settlement.meta };
          await writeState(claim.runId, { meta, status: settlement.status, fence: state.fence, leaseUntil: null });
        });
      } catch (err) {
        fail(`settle run "${claim.runId}"`, err);
      }
    },
    async list(options = {}) {
      try {
        const limit = options.limit ?? 100;
        const states: State[] = [];
        for (const runId of await runIds()) {
          const state = await readState(runId).catch(() => undefined);
          if (state !== undefined && (options.status === undefined || state.status === options.status)) states.push(state);
        }
        states.sort((a, b) => a.meta.createdAt - b.meta.createdAt || (a.meta.runId < b.meta.runId ? -1 : a.meta.runId > b.meta.runId ? 1 : 0));
        return states.slice(0, limit).map((s): RunSummary => ({ meta: s.meta, status: s.status }));
      } catch (err) {
        return fail('list runs', err);
      }
    },
    async sweep({ now, limit = 100 }) {
      try {
        const expired: string[] = [];
        for (const runId of await runIds()) {
          if (expired.length >= limit) break;
          const state = await readState(runId).catch(() => undefined);
          if (state === undefined || !unheld(state, now) || state.meta.expiresAt > now) continue;
          const done = await locked(runId, async () => {
            const fresh = await readState(runId);
            if (fresh === undefined || !unheld(fresh, now) || fresh.meta.expiresAt > now) return false;
            await writeState(runId, { ...fresh, status: 'expired', leaseUntil: null });
            return true;
          });
          if (done) expired.push(runId);
        }
        return expired;
      } catch (err) {
        return fail('sweep expired runs', err);
      }
    },
  };
}

/** The offset just past the last newline of an open file of `size` bytes (0 when there is none). */
async function lastLineEnd(file: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await file.read(chunk, 0, end - start, start);
    const at = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}
