/**
 * The call tree of a trace: every call with its decisions, outcome and timing, PTC children
 * under their run_code call (linked by `origin.parentCallId`), late or revoked calls marked, and
 * a run that was suspended and resumed (in another trace, perhaps) shown as one run in segments.
 *
 * Calls are keyed by their position in the trace, not their id: ids repeat without anyone meaning
 * harm (local OpenAI-compatible servers number each turn's calls `call_0`, `call_1`), so every
 * `tool/call` line is a call of its own, and a decision or result belongs to the earliest call
 * with that id, in the same file, that has no result yet (a host only settles its own calls; a
 * suspension closes the run's calls still in flight, and a resumption reopens only the run
 * itself, for its final result). When two calls with one id were in flight at once, which
 * result is whose cannot be known from the trace: both are flagged `ambiguous`. A child's parent
 * is the run that owns its `tokenId` (from `ptc/run-start` or `ptc/run-resumed`), else the latest
 * earlier call with its `parentCallId`: a parent always comes before its children, so links
 * cannot form a cycle.
 *
 * Built from parsed lines only; every field read is checked, because a trace is a file anyone
 * could have written (a hostile trace yields odd nodes, never a throw).
 */
import type { TraceHead } from '../../tools/index.js';
import type { CallNode, CallTree, EventSource } from './call-node.js';

export type { CallDecision, CallNode, CallOutcome, CallTree, EventSource, RunMark } from './call-node.js';

/** Options of {@link buildCallTree}. */
export interface BuildCallTreeOptions {
  /** Where each event was read, parallel to the events (several files are shown as one tree). */
  readonly sources?: readonly EventSource[];
}

/** A node while it is built. */
type Draft = { -readonly [K in keyof CallNode]: CallNode[K] };

/** Deepest nesting of calls shown under their parent; deeper ones are shown as roots. */
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

/** Builds the tree from event objects in trace order. */
export function buildCallTree(events: readonly Record<string, unknown>[], options: BuildCallTreeOptions = {}): CallTree {
  const calls: CallNode[] = [];
  const byId = new Map<string, CallNode[]>();
  const open = new Map<string, CallNode[]>();
  const runOfToken = new Map<string, CallNode>();
  const depthOf = new Map<CallNode, number>();
  // Per run: the positions of its ends and resumptions, to tell a late child from a resumed one.
  const runSteps = new Map<CallNode, { index: number; step: 'end' | 'resume' }[]>();
  let orphanResults = 0;
  let t0 = Infinity;
  let t1 = -Infinity;

  const latest = (callId: string | undefined, before = Infinity, file?: string): CallNode | undefined => {
    const list = callId !== undefined ? byId.get(callId) : undefined;
    for (let i = (list?.length ?? 0) - 1; i >= 0; i--) {
      const n = list![i]!;
      if (file === undefined || (n.source?.file === file && n.source.line < before)) return n;
    }
    return undefined;
  };
  /** The run an event names: the owner of its token when that run has this call id, else the latest call with the id. */
  const runOf = (callId: string | undefined, tokenId: string | undefined): CallNode | undefined => {
    const owner = tokenId !== undefined ? runOfToken.get(tokenId) : undefined;
    return owner && owner.callId === callId ? owner : latest(callId);
  };
  // Calls in flight by file and id: a host settles only its own calls.
  const openKey = (callId: string, source: EventSource | undefined) => `${source?.file ?? ''}\n${callId}`;
  const openFirst = (callId: string | undefined, source: EventSource | undefined) => (callId !== undefined ? open.get(openKey(callId, source))?.[0] : undefined);
  const step = (run: CallNode, index: number, kind: 'end' | 'resume') => {
    const steps = runSteps.get(run) ?? [];
    steps.push({ index, step: kind });
    runSteps.set(run, steps);
  };
  const addCall = (node: CallNode, parent: CallNode | undefined) => {
    const key = openKey(node.callId, node.source);
    const list = open.get(key) ?? [];
    if (list.length > 0) {
      node.ambiguous = true;
      for (const other of list) other.ambiguous = true;
    }
    list.push(node);
    open.set(key, list);
    const all = byId.get(node.callId) ?? [];
    all.push(node);
    byId.set(node.callId, all);
    calls.push(node);
    const depth = parent ? depthOf.get(parent)! + 1 : 0;
    if (parent && depth <= MAX_DEPTH) {
      depthOf.set(node, depth);
      parent.children.push(node);
    } else depthOf.set(node, 0);
  };

  for (const [index, e] of events.entries()) {
    const time = num(e.time);
    if (time !== undefined) (t0 = Math.min(t0, time)), (t1 = Math.max(t1, time));
    const source = options.sources?.[index];
    const type = str(e.type);
    const callId = str(e.callId);
    if (type === 'tool/call' && callId !== undefined) {
      const origin = obj(e.origin);
      const ptc = origin?.kind === 'ptc';
      const parentCallId = ptc ? str(origin.parentCallId) : undefined;
      const tokenId = ptc ? str(origin.tokenId) : undefined;
      // Optional fields assigned after (not spread in): one object shape, a third less time on 3,000 calls.
      const node: Draft = { callId, toolName: str(e.toolName) ?? '?', args: e.args, start: time ?? 0, startIndex: index, lines: source ? [source] : [], decisions: [], outcome: 'pending', late: false, ambiguous: false, placeholder: false, children: [], marks: [], refused: [] };
      if (parentCallId !== undefined) node.parentCallId = parentCallId;
      if (tokenId !== undefined) node.tokenId = tokenId;
      if (origin?.kind === 'provider-program') node.via = providerVia(origin);
      const mode = str(e.mode);
      if (mode !== undefined) node.mode = mode;
      if (source) node.source = source;
      addCall(node, parentCallId !== undefined ? runOf(parentCallId, tokenId) : undefined);
    } else if (type === 'tool/decision') {
      const node = openFirst(callId, source);
      if (node && source) node.lines.push(source);
      node?.decisions.push({
        stage: str(e.stage) ?? '?',
        decision: str(e.decision) ?? '?',
        by: byText(e.by),
        ...(str(e.reason) !== undefined ? { reason: str(e.reason)! } : {}),
      });
    } else if (type === 'tool/result') {
      const node = openFirst(callId, source);
      if (!node) {
        orphanResults++;
        continue;
      }
      open.get(openKey(node.callId, source))!.shift();
      if (source) node.lines.push(source);
      settle(node, e, time, index);
    } else if (type === 'ptc/run-start') {
      const run = openFirst(callId, source) ?? latest(callId);
      const tokenId = str(e.tokenId);
      if (run && tokenId !== undefined) runOfToken.set(tokenId, run);
    } else if (type === 'ptc/run-end') {
      const run = runOf(callId, str(e.tokenId));
      if (!run) continue;
      const limit = obj(e.limit);
      run.run = {
        outcome: str(e.outcome) ?? '?',
        calls: num(e.calls) ?? run.children.length,
        durationMs: Math.round(num(e.durationMs) ?? 0),
        end: time ?? run.start,
        ...(limit ? { limit: `${str(limit.name) ?? '?'}=${String(num(limit.value) ?? '?')}` } : {}),
      };
      step(run, index, 'end');
    } else if (type === 'ptc/call-refused') {
      const parent = runOf(str(e.parentCallId), str(e.tokenId));
      const count = num(e.count);
      parent?.refused.push({ toolName: str(e.toolName) ?? '?', reason: str(e.reason) ?? '', time: time ?? 0, count: count !== undefined && Number.isSafeInteger(count) && count > 0 ? count : 1, index });
    } else if (type === 'ptc/run-suspended') {
      const run = runOf(callId, str(e.tokenId));
      if (!run) continue;
      run.marks.push({ kind: 'suspended', index, time: time ?? run.start, ...(source ? { source } : {}), pending: pendingOf(e.pending) });
      // Its calls still in flight here wait for a person; the run settles them wherever it resumes.
      for (const child of run.children) {
        const list = open.get(openKey(child.callId, child.source));
        if (child.outcome === 'pending' && list?.includes(child)) {
          list.splice(list.indexOf(child), 1);
          child.outcome = 'deferred';
        }
      }
    } else if (type === 'ptc/run-resumed' && callId !== undefined) {
      // The run the link names (the latest call with this id before the linked line), else the latest with this id, else one known only from here.
      const target = source?.link?.status === 'verified' ? source.link.target : undefined;
      let run = (target ? latest(callId, target.line, target.file) : undefined) ?? latest(callId);
      if (!run) {
        run = { callId, toolName: 'run_code', args: undefined, start: time ?? 0, startIndex: index, ...(source ? { source } : {}), lines: source ? [source] : [], decisions: [], outcome: 'pending', late: false, ambiguous: false, placeholder: true, children: [], marks: [], refused: [] };
        addCall(run, undefined);
      } else if (!open.get(openKey(callId, source))?.includes(run)) {
        // Reopened here: the resumed run's own result, when this trace has one, is its final outcome.
        open.set(openKey(callId, source), [...(open.get(openKey(callId, source)) ?? []), run]);
      }
      const from = headOf(e.prevTraceHead);
      run.marks.push({ kind: 'resumed', index, time: time ?? run.start, ...(source ? { source } : {}), pending: [], ...(from ? { from } : {}) });
      const tokenId = str(e.tokenId);
      if (tokenId !== undefined) runOfToken.set(tokenId, run);
      step(run, index, 'resume');
    }
  }

  for (const [run, steps] of runSteps) {
    for (const child of run.children) {
      const before = steps.filter((s) => s.index < child.startIndex).at(-1);
      if (before?.step === 'end') child.late = true;
    }
  }
  return { roots: calls.filter((n) => depthOf.get(n) === 0), calls, orphanResults, t0: Number.isFinite(t0) ? t0 : 0, t1: Number.isFinite(t1) ? t1 : 0 };
}

/** Records a call's result on its node. */
function settle(node: CallNode, e: Record<string, unknown>, time: number | undefined, index: number): void {
  node.end = time ?? node.start;
  node.endIndex = index;
  node.durationMs = Math.round(num(e.durationMs) ?? node.end - node.start);
  const denied = obj(e.denied);
  const blocked = obj(e.blocked);
  const error = obj(e.error);
  const value = obj(e.value);
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
  } else if (rejectedProgram(value) !== undefined) {
    // run_code's value for a program it did not run (type or syntax errors): not a success.
    node.outcome = 'error';
    node.detail = rejectedProgram(value)!;
  } else if (obj(value?.suspended)) {
    const pending = pendingOf(obj(value!.suspended)!.pending);
    node.outcome = 'suspended';
    node.detail = `${pending.length} call(s) wait for a person`;
  } else node.outcome = 'ok';
}

/** How a provider's own sandbox is named in a trace. */
const PROVIDER_SANDBOX: Readonly<Record<string, string>> = { anthropic: 'anthropic code execution', openai: 'openai hosted program' };

function providerVia(origin: Record<string, unknown>): string {
  const provider = str(origin.provider);
  const sandbox = provider !== undefined && Object.hasOwn(PROVIDER_SANDBOX, provider) ? PROVIDER_SANDBOX[provider]! : `${provider ?? 'unknown'} program`;
  return `${sandbox} ${str(origin.callerId) ?? '?'}`;
}

/** The pending calls of a suspension (`[{ toolName, reason }]`), read defensively and capped. */
function pendingOf(value: unknown): { toolName: string; reason: string }[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, 100).map((p) => ({ toolName: str(obj(p)?.toolName) ?? '?', reason: str(obj(p)?.reason) ?? '' }));
}

function headOf(value: unknown): TraceHead | undefined {
  const v = obj(value);
  const traceId = str(v?.traceId);
  const seq = num(v?.seq);
  const hash = str(v?.hash);
  return traceId !== undefined && seq !== undefined && hash !== undefined ? { traceId, seq, hash } : undefined;
}

/** Calls in a subtree, depth first. */
export function* walkCalls(nodes: readonly CallNode[]): Generator<CallNode> {
  for (const n of nodes) {
    yield n;
    yield* walkCalls(n.children);
  }
}

/** The reason in run_code's value for a program that was not run (`{ rejected, diagnostics }`). */
function rejectedProgram(value: Record<string, unknown> | undefined): string | undefined {
  return value && typeof value.rejected === 'string' && Array.isArray(value.diagnostics) ? value.rejected : undefined;
}
