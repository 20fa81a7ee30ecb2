/**
 * Trace heads: the latest head (`writer.head`: trace id, sequence number, hash) of each replica's
 * trace chain, where other replicas can read it. A resumed run on another replica links its chain
 * to the head the suspending replica left (durable runs record `durable.traceHead()` in the
 * journal); this store lets an operator, or a replica, find a chain's latest head without its file.
 * A head only moves forward: a `put` with a lower sequence number of the same trace is ignored.
 */
import type { TraceHead } from '../../tools/index.js';

/** Latest trace head per chain (one chain per replica). */
export interface TraceHeadStore {
  /** Records `head` for `chain` unless the stored head of the same trace is further along; true when it was recorded. */
  put(chain: string, head: TraceHead): Promise<boolean>;
  /** The latest head of `chain`, or undefined. */
  get(chain: string): Promise<TraceHead | undefined>;
  /** Every chain with its latest head. */
  list(): Promise<{ readonly chain: string; readonly head: TraceHead }[]>;
}

/** A trace head store in this process's memory (one replica, tests). */
export function createMemoryTraceHeadStore(): TraceHeadStore {
  const heads = new Map<string, TraceHead>();
  return {
    async put(chain, head) {
      const held = heads.get(chain);
      if (held !== undefined && held.traceId === head.traceId && held.seq >= head.seq) return false;
      heads.set(chain, { traceId: head.traceId, seq: head.seq, hash: head.hash });
      return true;
    },
    async get(chain) {
      return heads.get(chain);
    },
    async list() {
      return [...heads].map(([chain, head]) => ({ chain, head }));
    },
  };
}
