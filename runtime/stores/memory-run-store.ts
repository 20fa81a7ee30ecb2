/**
 * `createMemoryRunStore`: a {@link RunStore} in this process's memory, for tests and for hosts
 * that want durable runs' suspension (the process is freed while a person decides) without
 * surviving a restart. It follows the same contract as the file and Redis stores.
 */
import { RunStoreConflictError, RunStoreFencedError, TERMINAL_RUN_STATUSES, type RunClaim, type RunMeta, type RunSettlement, type RunStatus, type RunStore, type RunSummary, type StoredRun } from './run-store.js';

interface Held {
  meta: RunMeta;
  status: RunStatus;
  fence: number;
  leaseUntil: number | undefined;
  readonly entries: string[];
}

/** Runs created in one millisecond: by id, in code-unit order (as Redis orders the members of a score). */
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Creates an in-memory run store. */
export function createMemoryRunStore(): RunStore {
  const runs = new Map<string, Held>();

  const holding = (claim: RunClaim): Held => {
    const run = runs.get(claim.runId);
    if (run === undefined) throw new RunStoreFencedError(claim.runId, 'the run is unknown');
    if (run.fence !== claim.fence) throw new RunStoreFencedError(claim.runId, `another claim holds it (fence ${run.fence}, this claim's ${claim.fence})`);
    if (TERMINAL_RUN_STATUSES.includes(run.status)) throw new RunStoreFencedError(claim.runId, `it has ended (${run.status})`);
    return run;
  };

  const copy = (run: Held): StoredRun => ({ meta: run.meta, status: run.status, fence: run.fence, leaseUntil: run.status === 'active' ? run.leaseUntil : undefined, entries: [...run.entries] });

  return {
    async create({ meta, entries, leaseMs, now }) {
      if (runs.has(meta.runId)) throw new RunStoreConflictError(meta.runId);
      runs.set(meta.runId, { meta: structuredClone(meta), status: 'active', fence: 1, leaseUntil: now + leaseMs, entries: [...entries] });
      return { runId: meta.runId, fence: 1 };
    },
    async append(claim, entries) {
      const run = holding(claim);
      run.entries.push(...entries);
    },
    async load(runId) {
      const run = runs.get(runId);
      return run === undefined ? undefined : copy(run);
    },
    async claim(runId, { leaseMs, now }) {
      const run = runs.get(runId);
      if (run === undefined) return undefined;
      const free = run.status === 'suspended' || (run.status === 'active' && (run.leaseUntil ?? 0) < now);
      if (!free) return undefined;
      run.status = 'active';
      run.fence++;
      run.leaseUntil = now + leaseMs;
      return { runId, fence: run.fence };
    },
    async renew(claim, { leaseMs, now }) {
      const run = runs.get(claim.runId);
      if (run === undefined || run.fence !== claim.fence || run.status !== 'active') return false;
      run.leaseUntil = now + leaseMs;
      return true;
    },
    async settle(claim, settlement: RunSettlement) {
      const run = holding(claim);
      run.status = settlement.status;
      run.leaseUntil = undefined;
      if (settlement.meta !== undefined) run.meta = { ...run.meta, ...structuredClone(settlement.meta) };
    },
    async list(options = {}) {
      const limit = options.limit ?? 100;
      const out: RunSummary[] = [];
      for (const run of [...runs.values()].sort((a, b) => a.meta.createdAt - b.meta.createdAt || byId(a.meta.runId, b.meta.runId))) {
        if (options.status !== undefined && run.status !== options.status) continue;
        out.push({ meta: run.meta, status: run.status });
        if (out.length >= limit) break;
      }
      return out;
    },
    async sweep({ now, limit = 100 }) {
      const expired: string[] = [];
      for (const run of runs.values()) {
        if (expired.length >= limit) break;
        const unheld = run.status === 'suspended' || (run.status === 'active' && (run.leaseUntil ?? 0) < now);
        if (unheld && run.meta.expiresAt <= now) {
          run.status = 'expired';
          run.leaseUntil = undefined;
          expired.push(run.meta.runId);
        }
      }
      return expired;
    },
  };
}
