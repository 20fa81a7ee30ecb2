/**
 * The call tree of a trace: every call with its decisions, outcome and timing, PTC children
 * under their run_code call (linked by `origin.parentCallId`), late or revoked calls marked.
 * Built from parsed lines only; every field read is checked, because a trace is a file anyone
 * could have written (a hostile trace yields odd nodes, never a throw).
 */

/** One decision on a call: the pre-execute outcome or the approver's answer. */
export interface CallDecision {
  readonly stage: string;
  readonly decision: string;
  /** `default`, `listener #0`, `guard #1`, `approval`. */
  readonly by: string;
  readonly reason?: string;
}

/** How a call ended. */
export type CallOutcome = 'ok' | 'error' | 'denied' | 'blocked' | 'pending';

/** One call in the tree. */
export interface CallNode {
  readonly callId: string;
  readonly toolName: string;
  readonly args: unknown;
  readonly parentCallId?: string;
  readonly tokenId?: string;
  /** For a call made by a program in a provider's sandbox: `anthropic code execution <callerId>`. */
  readonly via?: string;
  /** `parallel` or `exclusive` when the trace recorded it. */
  readonly mode?: string;
  /** Event time of the call (ms). */
  readonly start: number;
  /** Event time of the result (ms); absent while pending. */
  end?: number;
  /** Positions of the call and result events in the trace: in flight between the two. */
  readonly startIndex: number;
  endIndex?: number;
  durationMs?: number;
  readonly decisions: CallDecision[];
  outcome: CallOutcome;
  /** Denial, block or error text. */
  detail?: string;
  /** Who denied: listener, guard or approval. */
  deniedBy?: string;
  /** For a run_code call: how the run ended. */
  run?: { outcome: string; calls: number; durationMs: number; limit?: string; end: number };
  /** Started after its run had ended, or aborted because the run ended. */
  late: boolean;
  readonly children: CallNode[];
  /** Calls refused after the run's token was revoked (`ptc/call-refused`); `count` > 1 on a run's summary of many. */
  readonly refused: { toolName: string; reason: string; time: number; count: number }[];
}

/** The whole tree plus calls whose parent is missing from the trace. */
export interface CallTree {
  readonly roots: CallNode[];
  /** Every call by id. */
  readonly byId: ReadonlyMap<string, CallNode>;
  /** Earliest and latest event times. */
  readonly t0: number;
  readonly t1: number;
}

/** Deepest nesting of calls shown under their parent; deeper (or cyclic) ones are shown as roots. */
const MAX_DEPTH = 16;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

function byText(v: unknown): string {
  const by = obj(v);
  const kind = str(by?.kind) ?? 'unknown';
  if (kind === 'approval' && by?.via === 'framework') {
    const id = str(by.approvalId);
    const note = str(by.note);
    return `framework ${str(by.framework) ?? '?'}${id !== undefined ? ` ${id}` : ''}${note !== undefined ? ` (${note})` : ''}`;
  }
  const index = num(by?.index);
  return index === undefined ? kind : `${kind} #${index}`;
}

/** Builds the tree from event objects in file order. */
export function buildCallTree(events: readonly Record<string, unknown>[]): CallTree {
  const byId = new Map<string, CallNode>();
  const order: CallNode[] = [];
  const runEnds = new Map<string, Record<string, unknown>>();
  const refusals: Record<string, unknown>[] = [];
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const [index, e] of events.entries()) {
    const time = num(e.time);
    if (time !== undefined) (t0 = Math.min(t0, time)), (t1 = Math.max(t1, time));
    const type = str(e.type);
    const callId = str(e.callId);
    if (type === 'tool/call' && callId !== undefined && !byId.has(callId)) {
      const origin = obj(e.origin);
      const node: CallNode = {
        callId,
        toolName: str(e.toolName) ?? '?',
        args: e.args,
        ...(origin?.kind === 'ptc' && str(origin.parentCallId) !== undefined ? { parentCallId: str(origin.parentCallId)! } : {}),
        ...(origin?.kind === 'ptc' && str(origin.tokenId) !== undefined ? { tokenId: str(origin.tokenId)! } : {}),
        ...(origin?.kind === 'provider-program' ? { via: providerVia(origin) } : {}),
        ...(str(e.mode) !== undefined ? { mode: str(e.mode)! } : {}),
        start: time ?? 0,
        startIndex: index,
        decisions: [],
        outcome: 'pending',
        late: false,
        children: [],
        refused: [],
      };
      byId.set(callId, node);
      order.push(node);
    } else if (type === 'tool/decision' && callId !== undefined) {
      byId.get(callId)?.decisions.push({
        stage: str(e.stage) ?? '?',
        decision: str(e.decision) ?? '?',
        by: byText(e.by),
        ...(str(e.reason) !== undefined ? { reason: str(e.reason)! } : {}),
      });
    } else if (type === 'tool/result' && callId !== undefined) {
      const node = byId.get(callId);
      if (!node) continue;
      node.end = time ?? node.start;
      node.endIndex = index;
      node.durationMs = Math.round(num(e.durationMs) ?? node.end - node.start);
      const denied = obj(e.denied);
      const blocked = obj(e.blocked);
      const error = obj(e.error);
      if (denied) {
        node.outcome = 'denied';
        node.deniedBy = str(denied.by) ?? '?';
        node.detail = str(denied.reason) ?? '';
      } else if (blocked) {
        node.outcome = 'blocked';
        node.detail = str(blocked.reason) ?? '';
      } else if (e.isError === true) {
        node.outcome = 'error';
        node.detail = str(error?.message) ?? '';
        // A child aborted with its run is revoked; an aborted run_code itself (a client's cancel) is not.
        if (str(error?.kind) === 'aborted' && node.parentCallId !== undefined) node.late = true;
      } else if (rejectedProgram(e.value) !== undefined) {
        // run_code's value for a program it did not run (type or syntax errors): not a success.
        node.outcome = 'error';
        node.detail = rejectedProgram(e.value)!;
      } else node.outcome = 'ok';
    } else if (type === 'ptc/run-end' && callId !== undefined) {
      runEnds.set(callId, e);
    } else if (type === 'ptc/call-refused') {
      refusals.push(e);
    }
  }

  // Attach children to parents, but only along chains that end at a root within MAX_DEPTH:
  // a hostile trace can make parent links cycle or nest deeper than any renderer recurses.
  const roots: CallNode[] = [];
  const depthOf = new Map<CallNode, number>();
  const depth = (node: CallNode): number => {
    const chain: CallNode[] = [];
    const seen = new Set<CallNode>();
    let cur: CallNode | undefined = node;
    let base = 0;
    while (cur) {
      const known = depthOf.get(cur);
      if (known !== undefined) {
        base = known;
        break;
      }
      if (seen.has(cur) || chain.length > MAX_DEPTH) {
        base = Infinity;
        break;
      }
      seen.add(cur);
      chain.push(cur);
      const parent: CallNode | undefined = cur.parentCallId !== undefined ? byId.get(cur.parentCallId) : undefined;
      cur = parent && parent !== cur ? parent : undefined;
      if (!cur) base = -1;
    }
    for (let i = chain.length - 1; i >= 0; i--) depthOf.set(chain[i]!, (base = base + 1));
    return depthOf.get(node)!;
  };
  for (const node of order) {
    const parent = node.parentCallId !== undefined ? byId.get(node.parentCallId) : undefined;
    if (parent && parent !== node && depth(node) <= MAX_DEPTH) parent.children.push(node);
    else roots.push(node);
  }
  for (const [callId, e] of runEnds) {
    const node = byId.get(callId);
    if (!node) continue;
    const limit = obj(e.limit);
    node.run = {
      outcome: str(e.outcome) ?? '?',
      calls: num(e.calls) ?? node.children.length,
      durationMs: Math.round(num(e.durationMs) ?? 0),
      end: num(e.time) ?? node.start,
      ...(limit ? { limit: `${str(limit.name) ?? '?'}=${String(num(limit.value) ?? '?')}` } : {}),
    };
    for (const child of node.children) if (child.start > node.run.end) child.late = true;
  }
  for (const e of refusals) {
    const parent = byId.get(str(e.parentCallId) ?? '');
    const count = num(e.count);
    const entry = { toolName: str(e.toolName) ?? '?', reason: str(e.reason) ?? '', time: num(e.time) ?? 0, count: count !== undefined && Number.isSafeInteger(count) && count > 0 ? count : 1 };
    if (parent) parent.refused.push(entry);
  }
  return { roots, byId, t0: Number.isFinite(t0) ? t0 : 0, t1: Number.isFinite(t1) ? t1 : 0 };
}

/** How a provider's own sandbox is named in a trace. */
const PROVIDER_SANDBOX: Readonly<Record<string, string>> = { anthropic: 'anthropic code execution', openai: 'openai hosted program' };

function providerVia(origin: Record<string, unknown>): string {
  const provider = str(origin.provider);
  const sandbox = provider !== undefined && Object.hasOwn(PROVIDER_SANDBOX, provider) ? PROVIDER_SANDBOX[provider]! : `${provider ?? 'unknown'} program`;
  return `${sandbox} ${str(origin.callerId) ?? '?'}`;
}

/** Calls in a subtree, depth first. */
export function* walkCalls(nodes: readonly CallNode[]): Generator<CallNode> {
  for (const n of nodes) {
    yield n;
    yield* walkCalls(n.children);
  }
}

/** The reason in run_code's value for a program that was not run (`{ rejected, diagnostics }`). */
function rejectedProgram(value: unknown): string | undefined {
  const v = obj(value);
  return v && typeof v.rejected === 'string' && Array.isArray(v.diagnostics) ? v.rejected : undefined;
}
