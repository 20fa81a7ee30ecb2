/**
 * The durable runs of one run_code tool (docs/run-life.md, docs/run-code.md "Durable runs"):
 * starting a program with a journal, suspending it when a person must decide, and resuming it
 * (`runCode.resume`) on any host that shares the store.
 *
 * - A run is journaled from its start (journal.ts); nothing reaches the store unless it suspends.
 * - A suspension persists the journal, releases the run in the store with its pending approvals
 *   and expiry, emits `ptc/run-suspended` (never the token) and returns the suspension value with
 *   a resume token bound to the run, its agent, its program and its tool set.
 * - `resume` verifies the token (any refusal: one {@link RunResumeError} with one message),
 *   requires a decision for every pending approval, checks the tool set and the runtime, claims
 *   the run (single use; a lease, renewed while it runs, so a resumer that dies does not strand
 *   it), and calls run_code through the host's pipeline with the plan, so policy, events and the
 *   trace see the resumed call like any other. run_code then replays the journal (durable-relay.ts)
 *   and goes on live. The outcome ends the run in the store (`end` entry: `runResult` reads it),
 *   or suspends it again.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { newRunId } from './run-id.js';
import { DURABLE_CALL, errorText, PtcError, type AgentRef, type DurableDecision, type JsonValue, type ToolExecContext, type ToolHost, type ToolResult } from '../../tools/index.js';
import type { ProgramRunner, RunLimits } from '../program-runner.js';
import type { RunClaim, RunMeta, StoredRun } from '../stores/index.js';
import { run as runPhase, type FinishedRun, type Transpiled } from '../run-code/run-phases.js';
import { RunCodeError } from '../run-code/errors.js';
import { DEFAULT_RUN_LIMITS } from '../run-code/limits.js';
import { DurableRelay } from './durable-relay.js';
import type { ResolvedDurable } from './durable-options.js';
import { programFingerprint, runtimeFingerprint, toolsetFingerprint } from './fingerprints.js';
import { EntryCodec, type JournalEntry } from './journal-entry.js';
import { Journal } from './journal.js';
import { replayPlanOf, type ReplayPlan } from './replay-plan.js';
import { signResumeToken, verifyResumeToken } from './resume-token.js';

/** A call a suspended run waits on, as the app shows it to a person. */
export interface PendingCall {
  /** Name it in `resume({ decisions: [{ approvalId, decision }] })`. */
  readonly approvalId: string;
  readonly toolName: string;
  readonly args: JsonValue;
  readonly reason: string;
}

/** run_code's value when a durable run suspended: a person must decide; the program must not be run again. */
export interface RunCodeSuspended {
  readonly suspended: {
    readonly runId: string;
    readonly pending: readonly PendingCall[];
    /** When the run stops being resumable (ms since the epoch). */
    readonly expiresAt: number;
    /** For `runCode.resume`: a secret of the app's, never shown to the model. */
    readonly resumeToken: string;
  };
}

/** What `runCode.resume` takes. */
export interface ResumeOptions {
  /** `value.suspended.resumeToken` of the suspension. */
  readonly token: string;
  /** One decision for every pending approval. */
  readonly decisions: readonly DurableDecision[];
  /** The agent the run was for (the token is bound to it). */
  readonly agent?: AgentRef;
  readonly signal?: AbortSignal;
}

/**
 * A durable run as its agent (or an operator) may see it: `runResult` / the `run_result` tool.
 * `unknown` also for another agent's run, so an agent learns nothing of runs not its own.
 */
export type DurableRunResult =
  | { readonly status: 'completed'; readonly value: JsonValue }
  | { readonly status: 'failed'; readonly message: string }
  | { readonly status: 'suspended'; readonly pending: readonly Omit<PendingCall, 'args'>[]; readonly expiresAt: number }
  | { readonly status: 'running' }
  | { readonly status: 'expired' }
  | { readonly status: 'unknown' };

/** Why a resume was refused: the token (bad, expired, used, another agent's, unknown run: one message), the decisions, or a change of tools or runtime. */
export class RunResumeError extends PtcError {
  override readonly name = 'RunResumeError';
  constructor(
    readonly reason: 'refused' | 'decisions' | 'changed' | 'store',
    detail?: string,
  ) {
    super(reason === 'refused' ? 'The run cannot be resumed: the token is invalid, expired or already used, or the run is not this agent\'s.' : `The run cannot be resumed: ${detail}`);
  }
}

/** What run_code passes on a fresh durable run. */
export interface DurableStart {
  readonly runner: ProgramRunner;
  readonly program: Transpiled;
  readonly code: string;
  readonly body: string;
  readonly lineOffset: number;
  readonly diagnostics: readonly { readonly line: number; readonly column: number; readonly message: string }[] | undefined;
  readonly exec: ToolExecContext;
  readonly limits: RunLimits;
  readonly toolNames: ReadonlyMap<string, string>;
  readonly declarations: string;
}

/** A resume plan, made only by {@link DurableRuns.resume} and handed to run_code's execute. */
export interface ResumePlan {
  readonly runId: string;
  readonly claim: RunClaim;
  readonly stored: StoredRun;
  readonly entries: readonly JournalEntry[];
  readonly plan: ReplayPlan;
  readonly decisions: ReadonlyMap<string, DurableDecision>;
  /** Set once run_code took it (a resume whose run_code call never ran releases its claim). */
  taken: boolean;
}

/** How a durable run ended for run_code: finished (report it as usual) or suspended (its value). */
export type DurableOutcome = { readonly kind: 'finished'; readonly finished: FinishedRun; readonly program: Transpiled; readonly limits: RunLimits } | { readonly kind: 'suspended'; readonly value: RunCodeSuspended };

const issuedPlans = new WeakSet<object>();

/** See the file note. */
export class DurableRuns {
  private readonly codec: EntryCodec;

  constructor(
    private readonly options: ResolvedDurable,
    private readonly tool: {
      readonly name: string;
      readonly host: () => ToolHost | undefined;
      readonly transpile: (body: string) => Promise<Transpiled | undefined>;
      /** The run's group (run-phases.ts runGroup); absent: the run shares with none. */
      readonly group?: (exec: ToolExecContext) => string | undefined;
    },
  ) {
    this.codec = new EntryCodec(options.encryptionKey);
  }

  /** A fresh durable run. */
  async start(input: DurableStart): Promise<DurableOutcome> {
    const { exec, program, limits, toolNames } = input;
    const runId = newRunId();
    const seed = randomBytes(16).toString('hex');
    const clockMs = this.options.now();
    const journal = new Journal(this.codec, this.options.maxJournalBytes);
    journal.append({
      k: 'run',
      v: 1,
      runId,
      parentCallId: exec.callId,
      agentId: exec.agent?.id ?? null,
      code: input.code,
      body: input.body,
      lineOffset: input.lineOffset,
      js: program.js,
      toolNames: [...toolNames],
      seed,
      clockMs,
      limits,
      ...(input.diagnostics ? { diagnostics: input.diagnostics } : {}),
    });
    const fingerprints = {
      program: programFingerprint(program.js),
      toolset: toolsetFingerprint(input.declarations, toolNames),
      runtime: runtimeFingerprint(),
      signer: signerOf(runId, this.options.keys[0]!),
    };
    return this.drive({ runner: input.runner, program, exec, limits, toolNames, journal, runId, seed, clockMs, fingerprints, segment: 0 });
  }

  /** run_code's execute for a resumed call: replays the journal, then runs on live. */
  async continue(plan: ResumePlan, exec: ToolExecContext, runner: ProgramRunner): Promise<DurableOutcome> {
    if (!issuedPlans.has(plan) || plan.taken) throw new RunResumeError('refused');
    plan.taken = true;
    const { run } = plan.plan;
    const program = await this.tool.transpile(run.body);
    if (program === undefined || program.js !== run.js) {
      await this.release(plan.claim);
      throw new RunResumeError('changed', 'the program no longer compiles to the text that ran (the transpiler changed)');
    }
    const journal = new Journal(this.codec, this.options.maxJournalBytes);
    journal.adopt(plan.entries, plan.stored.entries, { store: this.options.store, claim: plan.claim });
    const segment = plan.plan.segments;
    const decisions = [...plan.decisions.values()].filter((d) => !plan.plan.decisions.has(d.approvalId));
    journal.append({ k: 'resume', at: this.options.now(), segment, decisions });
    await journal.flush();
    const spent = plan.plan.wallMs;
    // (A run journaled before a limit existed, approvalWaitMs say, gets that limit's default.)
    const limits: RunLimits = { ...DEFAULT_RUN_LIMITS, ...run.limits, wallMs: Math.max(1, run.limits.wallMs - spent) };
    const toolNames = new Map(run.toolNames.map(([c, t]) => [c, t] as [string, string]));
    const renew = setInterval(() => {
      void this.options.store.renew(plan.claim, { leaseMs: this.options.leaseMs, now: this.options.now() }).catch(() => false);
    }, Math.max(250, Math.floor(this.options.leaseMs / 3)));
    renew.unref?.();
    try {
      return await this.drive({
        runner,
        program,
        exec,
        limits,
        toolNames,
        journal,
        runId: plan.runId,
        seed: run.seed,
        clockMs: run.clockMs,
        fingerprints: plan.stored.meta.fingerprints as DriveInput['fingerprints'],
        segment,
        replay: { plan: plan.plan, decisions: plan.decisions, meta: plan.stored.meta },
      });
    } finally {
      clearInterval(renew);
    }
  }

  /** `runCode.resume`: see the file note. */
  async resume(options: ResumeOptions): Promise<ToolResult> {
    const host = this.tool.host();
    if (host === undefined) throw new RunResumeError('store', 'run_code is not registered in a host yet (give createRunCodeTool its host)');
    const { store, now } = this.options;
    const claims = verifyResumeToken(options?.token, this.options.keys);
    const agentId = options?.agent?.id ?? null;
    if (claims === undefined || claims.agentId !== agentId || claims.exp <= now()) throw new RunResumeError('refused');
    void store.sweep({ now: now(), limit: 50 }).catch(() => undefined);
    let stored: StoredRun | undefined;
    try {
      stored = await store.load(claims.runId);
    } catch (err) {
      throw new RunResumeError('store', `the run store failed (${errorText(err)})`);
    }
    if (stored === undefined || stored.meta.agentId !== agentId || stored.meta.fingerprints.program !== claims.programHash || stored.meta.fingerprints.toolset !== claims.toolsetHash) throw new RunResumeError('refused');
    const resumable = stored.status === 'suspended' || (stored.status === 'active' && (stored.leaseUntil ?? 0) < now());
    if (!resumable || stored.meta.expiresAt <= now()) throw new RunResumeError('refused');
    let entries: JournalEntry[];
    try {
      entries = stored.entries.map((e) => this.codec.decode(e));
    } catch (err) {
      throw new RunResumeError('store', `its journal cannot be read (${errorText(err)})`);
    }
    const plan = replayPlanOf(entries);
    // The decisions: exactly the pending approvals, each once.
    const decisions = new Map(plan.decisions);
    const pendingIds = new Set(plan.pending.map((p) => p.approvalId));
    const given = Array.isArray(options.decisions) ? options.decisions : [];
    for (const d of given) {
      if (typeof d !== 'object' || d === null || typeof d.approvalId !== 'string' || (d.decision !== 'allow-once' && d.decision !== 'deny') || (d.by !== undefined && typeof d.by !== 'string')) {
        throw new RunResumeError('decisions', "each decision must be { approvalId, decision: 'allow-once' | 'deny', by?: string }");
      }
      // Decided at an earlier resume (one whose host stopped): that decision stands.
      if (plan.decisions.has(d.approvalId)) continue;
      if (!pendingIds.has(d.approvalId)) throw new RunResumeError('decisions', `"${d.approvalId.slice(0, 100)}" is not an approval this run waits for (it waits for: ${[...pendingIds].join(', ') || 'none'})`);
      if (decisions.has(d.approvalId) && !plan.decisions.has(d.approvalId)) throw new RunResumeError('decisions', `"${d.approvalId}" is decided twice`);
      decisions.set(d.approvalId, Object.freeze({ approvalId: d.approvalId, decision: d.decision, ...(d.by !== undefined ? { by: d.by.slice(0, 200) } : {}) }));
    }
    const missing = [...pendingIds].filter((id) => !decisions.has(id));
    if (missing.length > 0) throw new RunResumeError('decisions', `a decision is needed for every pending approval; missing: ${missing.join(', ')}`);
    // The tools and the runtime must be the ones the program ran with.
    const runCode = host.get(this.tool.name);
    const currentToolset = (runCode as { toolsetFingerprint?: () => string } | undefined)?.toolsetFingerprint?.();
    if (currentToolset !== undefined && currentToolset !== stored.meta.fingerprints.toolset) {
      throw new RunResumeError('changed', 'the tools the program can call changed since it suspended (their declarations differ); nothing ran');
    }
    if (this.options.onRuntimeChange === 'refuse' && stored.meta.fingerprints.runtime !== runtimeFingerprint()) {
      throw new RunResumeError('changed', 'this host runs another ptc-runtime, Node, V8 or isolated-vm than the one the run suspended on (durable.onRuntimeChange: "allow" accepts it)');
    }
    const claim = await store.claim(claims.runId, { leaseMs: this.options.leaseMs, now: now() }).catch((err: unknown) => {
      throw new RunResumeError('store', `the run store failed (${errorText(err)})`);
    });
    if (claim === undefined) throw new RunResumeError('refused');
    const resumePlan: ResumePlan = { runId: claims.runId, claim, stored, entries, plan, decisions, taken: false };
    issuedPlans.add(resumePlan);
    try {
      const result = await host.call(
        { id: plan.run.parentCallId, name: this.tool.name, args: { code: plan.run.code } },
        { ...(options.agent ? { agent: options.agent } : {}), ...(options.signal ? { signal: options.signal } : {}), [DURABLE_CALL]: { resume: resumePlan } } as Parameters<ToolHost['call']>[1],
      );
      return result;
    } finally {
      // Refused before run_code ran (a policy denied the call): the run waits again.
      if (!resumePlan.taken) await this.release(claim);
    }
  }

  /**
   * Where a run stands, for its own agent: its final value once a resume finished it, its
   * pending approvals while suspended. Another agent's run and an unknown id both answer
   * `unknown`; a store that cannot be read throws (it must not read as "no such run").
   */
  async result(runId: unknown, agent: AgentRef | undefined): Promise<DurableRunResult> {
    if (typeof runId !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(runId)) return { status: 'unknown' };
    const stored = await this.options.store.load(runId);
    if (stored === undefined || stored.meta.agentId !== (agent?.id ?? null)) return { status: 'unknown' };
    if (stored.status === 'suspended') {
      if (stored.meta.expiresAt <= this.options.now()) return { status: 'expired' };
      return { status: 'suspended', pending: stored.meta.pending.map(({ approvalId, toolName, reason }) => ({ approvalId, toolName, reason })), expiresAt: stored.meta.expiresAt };
    }
    if (stored.status === 'active') return { status: 'running' };
    if (stored.status === 'expired') return { status: 'expired' };
    for (let i = stored.entries.length - 1; i >= 0; i--) {
      const entry = this.codec.decode(stored.entries[i]!);
      if (entry.k !== 'end') continue;
      return entry.isError ? { status: 'failed', message: entry.message ?? 'the program failed' } : { status: 'completed', value: entry.value ?? null };
    }
    return stored.status === 'completed' ? { status: 'completed', value: null } : { status: 'failed', message: 'the run ended without a recorded outcome' };
  }

  /**
   * A fresh resume token for a suspended run, signed with the current key: what an operator who
   * holds the key (`ptc runs approve`) resumes with when the app's token is not at hand. Throws
   * {@link RunResumeError} when the run is unknown, not suspended or expired.
   */
  async issueResumeToken(runId: string): Promise<string> {
    const stored = await this.options.store.load(runId).catch((err: unknown) => {
      throw new RunResumeError('store', `the run store failed (${errorText(err)})`);
    });
    const now = this.options.now();
    if (stored === undefined || stored.status !== 'suspended' || stored.meta.expiresAt <= now) throw new RunResumeError('refused');
    const { meta } = stored;
    // Only a holder of a key the run was started under may mint: the store alone is not enough.
    const signer = meta.fingerprints.signer;
    if (signer === undefined || !this.options.keys.some((key) => safeEqual(signerOf(runId, key), signer))) throw new RunResumeError('refused');
    const programHash = meta.fingerprints.program;
    const toolsetHash = meta.fingerprints.toolset;
    if (programHash === undefined || toolsetHash === undefined) throw new RunResumeError('refused');
    return signResumeToken({ runId, agentId: meta.agentId, programHash, toolsetHash, iat: now, exp: meta.expiresAt }, this.options.keys[0]!);
  }

  /** Runs a segment and settles what it left in the store. */
  private async drive(input: DriveInput): Promise<DurableOutcome> {
    const { runner, program, exec, limits, toolNames, journal, runId, seed, clockMs, segment, replay } = input;
    const host = exec.host;
    let relay: DurableRelay | undefined;
    let tokenId = '';
    const group = this.tool.group?.(exec);
    const finished = await runPhase({
      runner,
      program,
      exec,
      limits,
      toolNames,
      ...(group !== undefined ? { group } : {}),
      durable: {
        idTag: runId.slice(0, 10),
        determinism: { seed, clockMs },
        relay: (bridge) => {
          tokenId = bridge.tokenId;
          relay = new DurableRelay({
            bridge,
            journal,
            runId,
            toolNames,
            idempotent: (tool) => host.get(tool)?.idempotent === true,
            now: this.options.now,
            holdLiveMs: this.options.holdLiveMs,
            ...(replay ? { replay: { plan: replay.plan, decisions: replay.decisions } } : {}),
          });
          if (replay) {
            host.emit({
              type: 'ptc/run-resumed',
              callId: exec.callId,
              tokenId: bridge.tokenId,
              runId,
              segment,
              replayedCalls: replay.plan.calls.size,
              decisions: [...replay.decisions.values()],
              ...(replay.plan.traceHead ? { prevTraceHead: replay.plan.traceHead } : {}),
            });
          }
          return relay;
        },
      },
    });
    relay?.close();
    const wallMs = Math.max(0, finished.ms - finished.report.approvalWaitMs - finished.report.queuedMs);
    if (!finished.ok && finished.failure.kind === 'suspended' && relay !== undefined) {
      return { kind: 'suspended', value: await this.suspend({ input, relay, wallMs, tokenId }) };
    }
    let result = finished;
    // A replay that ended before its journal did is a divergence too.
    if (replay && relay !== undefined && !relay.reachedFrontier && !(result.ok === false && result.failure.kind === 'replay-diverged')) {
      result = { ...finished, ok: false, failure: { kind: 'replay-diverged', message: 'the program ended where the journal records more of it' } } as FinishedRun;
    }
    if (journal.persisted) await this.end(journal, result);
    return { kind: 'finished', finished: result, program, limits };
  }

  private async suspend({ input, relay, wallMs, tokenId }: { input: DriveInput; relay: DurableRelay; wallMs: number; tokenId: string }): Promise<RunCodeSuspended> {
    const { journal, runId, exec, segment, fingerprints } = input;
    const { store, now, ttlMs, leaseMs } = this.options;
    const at = now();
    const expiresAt = at + ttlMs;
    const deferred = [...relay.deferred.values()];
    const pending = deferred.map((d) => ({ approvalId: d.approvalId, toolName: d.toolName, argsJson: d.argsJson, reason: d.reason }));
    try {
      journal.append({ k: 'suspend', at, segment: segment + 1, wallMs });
      let claim = journal.claim;
      if (claim === undefined) {
        const meta: RunMeta = { runId, agentId: exec.agent?.id ?? null, parentCallId: exec.callId, createdAt: at, expiresAt, pending, fingerprints };
        claim = await journal.persist(store, meta, { leaseMs, now: at });
      } else {
        await journal.flush();
      }
      // Recorded once the journal holds the suspension, and anchored (the trace's head right
      // after this event) before the run is released: a resume links its chain to this line.
      exec.host.emit({ type: 'ptc/run-suspended', callId: exec.callId, tokenId, runId, pending: pending.map(({ approvalId, toolName, reason }) => ({ approvalId, toolName, reason })), expiresAt });
      const traceHead = this.options.traceHead?.();
      if (traceHead !== undefined) {
        journal.append({ k: 'anchor', traceHead: { traceId: traceHead.traceId, seq: traceHead.seq, hash: traceHead.hash } });
        await journal.flush();
      }
      await store.settle(claim, { status: 'suspended', meta: { pending, expiresAt } });
    } catch (err) {
      throw new RunCodeError('journal', `The run could not suspend: its journal could not be written to the run store (${errorText(err)}). The calls waiting for a person did not run.`);
    }
    void store.sweep({ now: at, limit: 50 }).catch(() => undefined);
    const resumeToken = signResumeToken({ runId, agentId: exec.agent?.id ?? null, programHash: fingerprints.program, toolsetHash: fingerprints.toolset, iat: at, exp: expiresAt }, this.options.keys[0]!);
    return {
      suspended: {
        runId,
        pending: deferred.map((d) => ({ approvalId: d.approvalId, toolName: d.toolName, args: parseArgs(d.argsJson), reason: d.reason })),
        expiresAt,
        resumeToken,
      },
    };
  }

  /** Records a resumed run's outcome and ends it in the store. */
  private async end(journal: Journal, finished: FinishedRun): Promise<void> {
    const at = this.options.now();
    try {
      try {
        if (finished.ok) journal.append({ k: 'end', at, isError: false, value: JSON.parse(finished.resultJson) as JsonValue });
        else journal.append({ k: 'end', at, isError: true, message: finished.failure.message.slice(0, 4000) });
      } catch {
        journal.append({ k: 'end', at, isError: !finished.ok, message: 'the outcome did not fit in the journal' });
      }
      await journal.flush();
      await this.options.store.settle(journal.claim!, { status: finished.ok ? 'completed' : 'failed', meta: { pending: [] } });
    } catch {
      // The outcome still reaches the caller. The store keeps the run active until its lease
      // ends: resumed again, it replays to its end without running any settled call again.
    }
  }

  private async release(claim: RunClaim): Promise<void> {
    await this.options.store.settle(claim, { status: 'suspended' }).catch(() => undefined);
  }
}

interface DriveInput {
  readonly runner: ProgramRunner;
  readonly program: Transpiled;
  readonly exec: ToolExecContext;
  readonly limits: RunLimits;
  readonly toolNames: ReadonlyMap<string, string>;
  readonly journal: Journal;
  readonly runId: string;
  readonly seed: string;
  readonly clockMs: number;
  readonly fingerprints: { readonly program: string; readonly toolset: string; readonly runtime: string; readonly signer: string };
  readonly segment: number;
  readonly replay?: { readonly plan: ReplayPlan; readonly decisions: ReadonlyMap<string, DurableDecision>; readonly meta: RunMeta };
}

/** Which key a run was started under, without revealing it: a MAC of its id. */
function signerOf(runId: string, key: Uint8Array): string {
  return createHmac('sha256', key).update(`ptc-durable-run-signer\0${runId}`).digest('hex').slice(0, 32);
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function parseArgs(json: string): JsonValue {
  try {
    return JSON.parse(json) as JsonValue;
  } catch {
    return json;
  }
}

/** The resume plan run_code's execute was given, if any. */
export function resumePlanOf(exec: ToolExecContext): ResumePlan | undefined {
  const plan = (exec as { [DURABLE_CALL]?: unknown })[DURABLE_CALL];
  return typeof plan === 'object' && plan !== null && issuedPlans.has(plan) ? (plan as ResumePlan) : undefined;
}
