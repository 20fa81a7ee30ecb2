/**
 * Approval waits of every run on one host, seen through ONE event sink per host. A run's wall
 * clock pauses while one of its children waits for a person: the child's `policy` decision
 * `ask` starts the wait, its `approval` decision (or its result) ends it. A sink per run would
 * put every event of every call through R sinks with R runs in flight (O(runs) per event, the
 * largest cost with hundreds of runs at once); here the one sink looks the call id up in a
 * `Map` of the children in flight, O(1) per event whatever the number of runs.
 *
 * The sink is registered while at least one run is open on the host and removed when the last
 * closes (a host without runs carries no sink of ours). A run's children stop being watched
 * when the run closes, even one still in flight then, as when each run had its own sink.
 */
import type { ToolEvent, ToolHost } from '../tools/index.js';

/** What a run is told about its children's waits (its `RunClock`). */
export interface ApprovalWaitClock {
  approvalWait(callId: string, waiting: boolean): void;
}

/** One run's view of the host's routing: open it at the run's start, close it at its end. */
export interface RunApprovalWaits {
  /** Watches a child's approval events (before it enters the pipeline). */
  watch(callId: string): void;
  /** Stops watching a settled child. */
  unwatch(callId: string): void;
  /** The run ended: its children are no longer watched, and the host's sink goes with the last run. */
  close(): void;
}

interface Watcher {
  readonly clock: ApprovalWaitClock;
  open: boolean;
}

class HostApprovalWaits {
  private readonly children = new Map<string, Watcher>();
  private runs = 0;
  private sink: { dispose(): void } | undefined;

  constructor(private readonly host: ToolHost) {}

  open(clock: ApprovalWaitClock): RunApprovalWaits {
    if (this.runs++ === 0) this.sink = this.host.onEvent(this.onEvent);
    const watcher: Watcher = { clock, open: true };
    const children = this.children;
    return {
      watch: (callId) => void children.set(callId, watcher),
      unwatch: (callId) => void children.delete(callId),
      close: () => {
        if (!watcher.open) return;
        watcher.open = false;
        if (--this.runs === 0) {
          this.sink?.dispose();
          this.sink = undefined;
        }
      },
    };
  }

  private readonly onEvent = (event: ToolEvent): void => {
    if (event.type === 'tool/decision') {
      const watcher = this.children.get(event.callId);
      if (watcher === undefined || !watcher.open) return;
      if (event.stage === 'policy' && event.decision === 'ask') watcher.clock.approvalWait(event.callId, true);
      else if (event.stage === 'approval') watcher.clock.approvalWait(event.callId, false);
    } else if (event.type === 'tool/result') {
      const watcher = this.children.get(event.callId);
      if (watcher !== undefined && watcher.open) watcher.clock.approvalWait(event.callId, false);
    }
  };
}

const byHost = new WeakMap<ToolHost, HostApprovalWaits>();

/** Opens a run's routing of approval waits on `host`, to `clock`. */
export function openApprovalWaits(host: ToolHost, clock: ApprovalWaitClock): RunApprovalWaits {
  let waits = byHost.get(host);
  if (waits === undefined) {
    waits = new HostApprovalWaits(host);
    byHost.set(host, waits);
  }
  return waits.open(clock);
}
