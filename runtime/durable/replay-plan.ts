/**
 * A journal read for a resume: what the program did (calls, starts, settlements, deferrals),
 * what it saw together (batches with clocks) and at each slice's end (calls so far, a digest of
 * its logs), the decisions of earlier resumes, and what is still waiting for a person.
 */
import type { DurableDecision } from '../../tools/index.js';
import type { JournalEntry } from './journal-entry.js';

type Of<K extends JournalEntry['k']> = Extract<JournalEntry, { k: K }>;

/** See the file note. */
export interface ReplayPlan {
  readonly run: Of<'run'>;
  readonly calls: ReadonlyMap<number, { readonly name: string; readonly args: string }>;
  readonly starts: ReadonlySet<number>;
  /** The last settlement of each call. */
  readonly settles: ReadonlyMap<number, Of<'settle'>>;
  readonly defers: ReadonlyMap<number, Of<'defer'>>;
  readonly batches: readonly Of<'batch'>[];
  readonly slices: readonly Of<'slice'>[];
  /** The highest call number journaled. */
  readonly lastSeq: number;
  /** Segments so far (each suspension ends one). */
  readonly segments: number;
  /** Wall time the program spent running over all segments, ms. */
  readonly wallMs: number;
  /** Decisions given to earlier resumes, by approval id. */
  readonly decisions: ReadonlyMap<string, DurableDecision>;
  /** Deferred calls never decided (no settlement and no start since): each needs a decision now. */
  readonly pending: readonly Of<'defer'>[];
  /** The final outcome, once the run ended after a resume. */
  readonly end: Of<'end'> | undefined;
  /** The trace head recorded at the last suspension. */
  readonly traceHead: { readonly traceId: string; readonly seq: number; readonly hash: string } | undefined;
}

/** Reads entries into a plan; throws when the journal has no `run` entry first. */
export function replayPlanOf(entries: readonly JournalEntry[]): ReplayPlan {
  const first = entries[0];
  if (first?.k !== 'run' || first.v !== 1) throw new Error('the journal does not start with a run entry of version 1');
  const calls = new Map<number, { name: string; args: string }>();
  const starts = new Set<number>();
  const settles = new Map<number, Of<'settle'>>();
  const defers = new Map<number, Of<'defer'>>();
  const batches: Of<'batch'>[] = [];
  const slices: Of<'slice'>[] = [];
  const decisions = new Map<string, DurableDecision>();
  let lastSeq = 0;
  let segments = 0;
  let wallMs = 0;
  let end: Of<'end'> | undefined;
  let traceHead: ReplayPlan['traceHead'];
  for (const entry of entries.slice(1)) {
    switch (entry.k) {
      case 'call':
        calls.set(entry.seq, { name: entry.name, args: entry.args });
        lastSeq = Math.max(lastSeq, entry.seq);
        break;
      case 'start':
        starts.add(entry.seq);
        break;
      case 'settle':
        settles.set(entry.seq, entry);
        break;
      case 'defer':
        defers.set(entry.seq, entry);
        starts.delete(entry.seq);
        break;
      case 'batch':
        batches.push(entry);
        break;
      case 'slice':
        slices.push(entry);
        break;
      case 'suspend':
        segments++;
        wallMs += entry.wallMs;
        traceHead = undefined;
        break;
      case 'anchor':
        traceHead = entry.traceHead;
        break;
      case 'resume':
        for (const d of entry.decisions) decisions.set(d.approvalId, d);
        break;
      case 'end':
        end = entry;
        break;
      case 'run':
        throw new Error('the journal has a second run entry');
    }
  }
  const pending = [...defers.values()].filter((d) => !settles.has(d.seq) && !starts.has(d.seq) && !decisions.has(d.approvalId));
  return { run: first, calls, starts, settles, defers, batches, slices, lastSeq, segments, wallMs, decisions, pending, end, traceHead };
}
