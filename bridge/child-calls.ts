/**
 * The record of a run's child calls, as the model sees it in `calls`: which tool, how it ended,
 * how long it took, and, when the run was cut short, whether each call completed, was cancelled
 * before its body ran, or may have completed (its body had started when the abort came, and a
 * body is not obliged to stop).
 */
import type { ToolResult } from '../tools/index.js';
import type { ChildStatus } from './guest-outcome.js';

/** How a child call ended relative to the run's end. */
export type ChildSettlement = 'completed' | 'cancelled' | 'may-have-completed';

/** One child call as reported in run_code's `calls`. */
export interface ChildCallRecord {
  /** The pair id: the child's call id, also in its `tool/ptc-dispatch` and `tool/*` events. */
  readonly id: string;
  readonly tool: string;
  /** `refused`: the bridge refused it before the pipeline (unknown name, argument caps). */
  readonly status: ChildStatus | 'refused' | 'pending';
  readonly ms: number;
  readonly settlement: ChildSettlement;
}

/** One call's bookkeeping; {@link ChildCalls.add} hands it to the caller, which passes it back. */
export interface ChildCallEntry {
  id: string;
  tool: string;
  startedAt: number;
  phase: 'queued' | 'running' | 'settled';
  status: ChildCallRecord['status'];
  ms: number;
  settlement: ChildSettlement;
  /** Set when it settled after the run was revoked. */
  late: boolean;
}

/** Mutable bookkeeping behind `calls`. */
export class ChildCalls {
  private readonly entries: ChildCallEntry[] = [];
  private revoked = false;
  private open = 0;
  /** Resolves the promise of {@link allSettled} once nothing is open. */
  private onAllSettled: (() => void) | undefined;

  constructor(private readonly now: () => number) {}

  /** Records a dispatched call (queued until the scheduler starts it), dispatched at `at` (default now). */
  add(id: string, tool: string, at = this.now()): ChildCallEntry {
    const entry: ChildCallEntry = { id, tool, startedAt: at, phase: 'queued', status: 'pending', ms: 0, settlement: 'completed', late: false };
    this.entries.push(entry);
    this.open++;
    return entry;
  }

  /** Records a call the bridge refused itself. */
  refused(id: string, tool: string): void {
    this.settle(this.add(id, tool), 'refused');
  }

  started(e: ChildCallEntry): void {
    if (e.phase === 'queued') e.phase = 'running';
  }

  /**
   * Records how a call ended, at `at` (default now); `result` tells a cancellation from a body
   * that may have run.
   */
  settle(e: ChildCallEntry, status: ChildCallRecord['status'], result?: ToolResult, at?: number): void {
    if (e.phase === 'settled') return;
    const wasRunning = e.phase === 'running';
    e.phase = 'settled';
    if (--this.open === 0 && this.onAllSettled !== undefined) {
      this.onAllSettled();
      this.onAllSettled = undefined;
    }
    e.status = status;
    e.ms = (at ?? this.now()) - e.startedAt;
    if (!this.revoked) return;
    e.late = true;
    if (!wasRunning) e.settlement = 'cancelled';
    else if (result?.error?.kind === 'aborted') e.settlement = /before it started/.test(result.error.message) ? 'cancelled' : 'may-have-completed';
    else if (result?.denied) e.settlement = 'cancelled';
    else e.settlement = 'completed';
  }

  /** Marks the run as ended: from now on a settling call is judged as cut short. */
  revoke(): void {
    this.revoked = true;
  }

  /** Calls still queued or running. */
  get unsettled(): number {
    return this.open;
  }

  /** Resolves once no call is queued or running (at once when none is). */
  allSettled(): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const before = this.onAllSettled;
      this.onAllSettled = () => {
        before?.();
        resolve();
      };
    });
  }

  get count(): number {
    return this.entries.length;
  }

  /** The records; calls still unsettled are reported as cancelled (queued) or may-have-completed (running). */
  snapshot(): ChildCallRecord[] {
    return this.entries.map((e) => ({
      id: e.id,
      tool: e.tool,
      status: e.status,
      ms: e.phase === 'settled' ? e.ms : this.now() - e.startedAt,
      settlement: e.phase === 'settled' ? e.settlement : e.phase === 'queued' ? 'cancelled' : 'may-have-completed',
    }));
  }
}
