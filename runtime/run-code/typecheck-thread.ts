/**
 * Type checks of model programs on a worker thread, under a time and a heap limit. A program's
 * types are model input, and five lines of recursive conditional types can keep TypeScript busy
 * for minutes and take gigabytes (a 2^14-member union of nested tuples: 9 s and 865 MB here). On
 * the host's thread that would stall every other call and could end the process. Here a check
 * over its time is abandoned (the thread is terminated, and a new one starts for the next
 * check), and one over the heap limit ends only the thread.
 *
 * One thread per heap limit serves every run_code tool of the process, one check at a time. It
 * keeps its compiler state warm between checks (typecheck-worker.ts) and does not keep the
 * process alive while idle.
 */
import { Worker } from 'node:worker_threads';
import type { CheckableTypes, CheckResult, NormalizedProgram } from '../../codegen/index.js';
import { resolveWorkerScript } from '../worker-script.js';
import { errorText, InvalidOptionError } from '../../tools/index.js';
import { limitText } from '../../bridge/index.js';
import { FairQueue } from './fair-queue.js';

/** Limits of one type check; host policy, like the run's limits. */
export interface TypecheckLimits {
  /** Wall time of one check, warm-up of the thread excluded. Default 5 000 ms. */
  readonly timeMs: number;
  /** Heap of the type-check thread (its old generation). Default 512 MB. */
  readonly memoryMb: number;
  /**
   * Checks of one agent waiting in the queue at once (the one being checked not counted);
   * one more is refused (`RunCodeError` of kind `'typecheck-busy'`). Default 64: a burst of one
   * agent's runs (64 at once in the many-runs bench) is served, a flood of thousands is not.
   */
  readonly maxQueuedPerAgent: number;
}

export const DEFAULT_TYPECHECK_LIMITS: TypecheckLimits = Object.freeze({ timeMs: 5_000, memoryMb: 512, maxQueuedPerAgent: 64 });

const LIMIT_KEYS = Object.keys(DEFAULT_TYPECHECK_LIMITS) as (keyof TypecheckLimits)[];

/** A `typecheckLimits` option is unknown or out of range; names it. */
export class TypecheckLimitsError extends InvalidOptionError {
  override readonly name = 'TypecheckLimitsError';
  constructor(
    readonly limit: string,
    given: unknown,
    expected: string,
  ) {
    super({ where: 'createRunCodeTool', option: `typecheckLimits.${limit}`, value: given, expected });
  }
}

/** Fills defaults and checks the values (positive integers; memoryMb at least 64). */
export function resolveTypecheckLimits(overrides: Partial<TypecheckLimits> = {}): TypecheckLimits {
  const limits = { ...DEFAULT_TYPECHECK_LIMITS };
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (!(LIMIT_KEYS as string[]).includes(key)) throw new TypecheckLimitsError(key, value, `a known limit name (known: ${LIMIT_KEYS.join(', ')})`);
    if (value === undefined) continue;
    const min = key === 'memoryMb' ? 64 : 1;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 2_147_483_647) {
      throw new TypecheckLimitsError(key, value, `an integer from ${min} to 2147483647`);
    }
    limits[key as keyof TypecheckLimits] = value;
  }
  return Object.freeze(limits);
}

/** A message to the thread: check `code`, or normalize `normalize`, or (without either) only build the checker. */
export interface TypecheckRequest {
  readonly id: number;
  readonly declarations: string;
  readonly toolNames: readonly (readonly [string, string])[];
  readonly code?: string;
  /** A long program to unwrap (`normalizeProgram`) here rather than on the host's thread. */
  readonly normalize?: string;
}

/** The thread's answer to one request. */
export type TypecheckReply =
  | { readonly id: number; readonly result: CheckResult }
  | { readonly id: number; readonly warmed: true }
  | { readonly id: number; readonly normalized: NormalizedProgram }
  | { readonly id: number; readonly error: string };

/** How a check waits in the queue: whose it is, how many of theirs may wait, how long it may wait to start. */
export interface TypecheckQueueOptions {
  /** The agent the check is for (its queue); absent: the one queue shared by runs without an agent. */
  readonly agent?: string;
  /** Most checks of this agent queued at once (the one being checked not counted); more are refused. */
  readonly maxQueued?: number;
  /** Longest wait to start, ms (what is left of the run's `wallMs`); past it the check leaves the queue. */
  readonly waitLimitMs?: number;
}

/** A check's outcome: the diagnostics, or why there are none (a limit, a failure of the thread, a refusal by the queue); and its time in the queue. */
export type TypecheckOutcome = (
  | { readonly ok: true; readonly result: CheckResult }
  | { readonly ok: false; readonly limit?: 'timeMs' | 'memoryMb'; readonly reason: string }
  /** Not checked: `'busy'` its agent already had `maxQueued` checks waiting; `'wallMs'` it waited `waitLimitMs` without starting. */
  | { readonly ok: false; readonly refused: 'busy' | 'wallMs'; readonly reason: string }
) & { readonly queuedMs: number };

type CheckOutcome = TypecheckOutcome extends infer O ? (O extends unknown ? Omit<O, 'queuedMs'> : never) : never;

/** What a job ends with: a check's outcome, or (for a normalize request) the body it found. */
type JobOutcome = CheckOutcome | { readonly ok: true; readonly normalized: NormalizedProgram };

interface Job {
  readonly request: TypecheckRequest;
  readonly timeMs: number;
  readonly resolve: (outcome: JobOutcome) => void;
  /** The queue it waits in (an agent's; undefined for the thread's own warm-ups, which go first). */
  readonly group?: string;
  readonly enqueuedAt: number;
  /** When it left the queue. */
  pickedAt?: number;
  /** Handed out by the fair queue: its group counts it as served until it settles. */
  served?: boolean;
  /** Takes it out of the queue at its wait limit. */
  expiry?: NodeJS.Timeout;
}

/** Checkers the codegen keeps warm per thread (`checkerFor`'s cache). */
const WARM_CHECKERS = 4;

/** Time allowed for the first check of a new thread: loading TypeScript and parsing its lib. */
const WARMUP_TIME_MS = 60_000;

const EMPTY_TYPES: CheckableTypes = { declarations: '', toolNames: new Map() };

/** The queue of runs without an agent, and the one of the tools' own warm-ups (never capped). */
const NO_AGENT = 'no-agent';
const WARMUPS = 'warm-up';

/** The queue key of an agent id (apart from the two above). */
function groupOf(agent: string | undefined): string {
  return agent === undefined ? NO_AGENT : `agent:${agent}`;
}

export class TypecheckThread {
  private worker: Worker | undefined;
  private starting: Promise<void> | undefined;
  /** Jobs that go before any queued one: a new thread's warm-up, a checker a picked check needs. */
  private readonly front: Job[] = [];
  private readonly queue = new FairQueue<Job>();
  private current: { readonly job: Job; readonly worker: Worker; readonly timer: NodeJS.Timeout } | undefined;
  private nextId = 1;
  private started = 0;
  /** The declarations of the last check sent, re-warmed on a spare thread. */
  private lastTypes: { readonly declarations: string; readonly toolNames: readonly (readonly [string, string])[] } | undefined;

  constructor(private readonly memoryMb: number) {}

  /** Threads started so far (a spare included): a check that finds a warm thread starts none. */
  get threadsStarted(): number {
    return this.started;
  }

  /**
   * Checks `code` against `types` within `timeMs`. Never rejects. Building the checker for new
   * declarations (host input, not the program's) happens first, outside that time. The check
   * waits in its agent's queue (`queue`), served round-robin with other agents' checks.
   */
  check(code: string, types: CheckableTypes, timeMs: number, queue: TypecheckQueueOptions = {}): Promise<TypecheckOutcome> {
    return new Promise((resolve) => {
      const job: Job = {
        request: this.request(types, code),
        timeMs,
        group: groupOf(queue.agent),
        enqueuedAt: performance.now(),
        resolve: (outcome) => resolve({ ...(outcome as CheckOutcome), queuedMs: (job.pickedAt ?? performance.now()) - job.enqueuedAt }),
      };
      this.enqueue(job, queue);
    });
  }

  /**
   * `normalizeProgram(code)` on the thread, within `timeMs`: parsing a long program takes about
   * 1 ms per KB, which on the host's thread would stall every other call. Never rejects; a
   * failure, a timeout or a refusal by the queue gives undefined.
   */
  normalize(code: string, timeMs: number, queue: TypecheckQueueOptions = {}): Promise<NormalizedProgram | undefined> {
    return new Promise((resolve) => {
      const request: TypecheckRequest = { id: this.nextId++, declarations: '', toolNames: [], normalize: code };
      this.enqueue({ request, timeMs, group: groupOf(queue.agent), enqueuedAt: performance.now(), resolve: (outcome) => resolve(outcome.ok && 'normalized' in outcome ? outcome.normalized : undefined) }, queue);
    });
  }

  /** Builds the checker for `types` ahead of the first check (its outcome is not reported). */
  warmup(types: CheckableTypes): void {
    this.queue.push(WARMUPS, { ...this.warmupJob(this.request(types, undefined)), group: WARMUPS });
    this.pump();
  }

  private warmupJob(request: TypecheckRequest): Job {
    const { declarations } = request;
    this.markWarmed(declarations);
    const resolve = (outcome: JobOutcome) => {
      if (outcome.ok) return;
      // The checks waiting on these declarations would only fail the same way (and start thread
      // after thread): they fail now, with the reason.
      this.warmed.delete(declarations);
      const reason = `could not be prepared for these tools: the type checker ${outcome.reason}`;
      const same = (waiting: Job) => waiting.request.code !== undefined && waiting.request.declarations === declarations;
      for (const waiting of [...this.takeFront(same), ...this.queue.take(same)]) this.settle(waiting, { ok: false, reason });
    };
    return { request, timeMs: WARMUP_TIME_MS, resolve, enqueuedAt: performance.now() };
  }

  /** Declaration texts the thread has a checker for (as many as it keeps: the codegen's LRU of four). */
  private readonly warmed = new Set<string>();

  private markWarmed(declarations: string): void {
    this.warmed.delete(declarations);
    this.warmed.add(declarations);
    if (this.warmed.size > WARM_CHECKERS) this.warmed.delete(this.warmed.values().next().value!);
  }

  private request(types: CheckableTypes, code: string | undefined): TypecheckRequest {
    return { id: this.nextId++, declarations: types.declarations, toolNames: [...types.toolNames], ...(code !== undefined ? { code } : {}) };
  }

  /** Queues a run's job in its agent's queue, or refuses it (the agent's cap); arms its wait limit. */
  private enqueue(job: Job, queue: TypecheckQueueOptions): void {
    const cap = queue.maxQueued ?? DEFAULT_TYPECHECK_LIMITS.maxQueuedPerAgent;
    if (!this.queue.push(job.group!, job, cap)) {
      job.pickedAt = job.enqueuedAt;
      const whose = queue.agent === undefined ? 'runs without an agent' : `agent "${queue.agent}"`;
      job.resolve({ ok: false, refused: 'busy', reason: `${cap} type checks of ${whose} are already waiting (${limitText('typecheckLimits.maxQueuedPerAgent', cap)})` });
      return;
    }
    const waitLimitMs = queue.waitLimitMs;
    if (waitLimitMs !== undefined && Number.isFinite(waitLimitMs)) {
      job.expiry = setTimeout(() => {
        if (this.queue.remove(job)) job.resolve({ ok: false, refused: 'wallMs', reason: `did not start within ${Math.round(waitLimitMs)} ms` });
      }, Math.max(0, waitLimitMs));
      job.expiry.unref?.();
    }
    this.pump();
  }

  /** Removes and returns the front jobs `test` accepts. */
  private takeFront(test: (job: Job) => boolean): Job[] {
    const out: Job[] = [];
    for (let i = 0; i < this.front.length; ) {
      if (test(this.front[i]!)) out.push(this.front.splice(i, 1)[0]!);
      else i++;
    }
    return out;
  }

  /** Ends a job that did not reach the thread (or did, through {@link finish}). */
  private settle(job: Job, outcome: JobOutcome): void {
    clearTimeout(job.expiry);
    if (job.served) this.queue.done(job.group!);
    job.resolve(outcome);
  }

  /** Fails every waiting job with `reason`. */
  private failAll(reason: string): void {
    for (const waiting of [...this.front.splice(0), ...this.queue.take()]) this.settle(waiting, { ok: false, reason });
  }

  /** Sends the next job once the thread is free; its time starts now. */
  private pump(): void {
    if (this.current !== undefined || this.starting !== undefined) return;
    if (this.worker === undefined) {
      if (this.front.length > 0 || !this.queue.empty) this.startThread(false);
      return;
    }
    let job = this.front.shift();
    if (job === undefined) {
      const next = this.queue.shift();
      if (next === undefined) return;
      job = next.item;
      job.served = true;
      job.pickedAt = performance.now();
      clearTimeout(job.expiry);
    }
    if (job.request.code !== undefined && !this.warmed.has(job.request.declarations)) {
      // Build this thread's checker for these declarations first, outside the check's time.
      this.front.unshift(job);
      job = this.warmupJob({ id: this.nextId++, declarations: job.request.declarations, toolNames: job.request.toolNames });
    }
    if (job.request.code !== undefined) this.lastTypes = { declarations: job.request.declarations, toolNames: job.request.toolNames };
    const worker = this.worker;
    const timeMs = job.timeMs;
    const timer = setTimeout(() => this.abandon(worker, 'timeMs', `did not finish within ${timeMs} ms`), timeMs);
    this.current = { job, worker, timer };
    worker.ref();
    worker.postMessage(job.request);
  }

  /**
   * Starts a thread. A new thread loads TypeScript and parses its lib first, outside any check's
   * time; a spare (replacing a thread killed for a timeout) does so at once, in the background,
   * and builds the checker of the last declarations, so the next check finds it warm.
   */
  private startThread(spare: boolean): void {
    this.started++;
    const starting = this.start().then(
      (worker) => {
        if (this.starting === starting) this.starting = undefined;
        this.worker = worker;
        // If the warm-up fails (a heap limit too small for TypeScript itself), the waiting
        // checks fail with the reason instead of starting thread after thread.
        const failWaiting = (outcome: JobOutcome) => {
          if (!outcome.ok) this.failAll(`could not start: the type checker ${outcome.reason}`);
        };
        // (Not for a thread started to unwrap a long program: that needs no lib, only the parser.)
        const isCheck = (j: Job) => j.request.normalize === undefined;
        const needsLib = spare || this.front.some(isCheck) || this.queue.some(isCheck);
        if (needsLib) this.front.unshift({ request: this.request(EMPTY_TYPES, undefined), timeMs: WARMUP_TIME_MS, resolve: failWaiting, enqueuedAt: performance.now() });
        const last = this.lastTypes;
        if (spare && last !== undefined && last.declarations !== '') this.front.splice(1, 0, this.warmupJob({ id: this.nextId++, ...last }));
        this.pump();
      },
      (err: unknown) => {
        if (this.starting === starting) this.starting = undefined;
        this.failAll(`could not start (${errorText(err)})`);
      },
    );
    this.starting = starting;
  }

  private async start(): Promise<Worker> {
    const path = await resolveWorkerScript({ besideUrl: import.meta.url, name: 'typecheck-worker', external: ['typescript', 'zod-to-ts', 'zod'] });
    const worker = new Worker(path, { resourceLimits: { maxOldGenerationSizeMb: this.memoryMb } });
    worker.unref();
    worker.on('message', (reply: TypecheckReply) => this.onReply(worker, reply));
    worker.on('error', (err: Error & { code?: string }) => {
      const overMemory = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.onGone(worker, overMemory ? 'memoryMb' : undefined, overMemory ? `needed more than ${this.memoryMb} MB of memory` : `failed (${err.message})`);
    });
    worker.on('exit', (code) => this.onGone(worker, undefined, `stopped (exit code ${code})`));
    return worker;
  }

  private onReply(worker: Worker, reply: TypecheckReply): void {
    const current = this.current;
    if (current === undefined || current.worker !== worker || reply?.id !== current.job.request.id) return;
    this.finish(
      current,
      'result' in reply
        ? { ok: true, result: reply.result }
        : 'normalized' in reply
          ? { ok: true, normalized: reply.normalized }
          : 'error' in reply
            ? { ok: false, reason: `failed (${reply.error})` }
            : { ok: true, result: { ok: true, diagnostics: [] } },
    );
  }

  /** The thread ended (a heap over the limit, a crash): the check it was on fails; the next starts a new thread. */
  private onGone(worker: Worker, limit: 'timeMs' | 'memoryMb' | undefined, reason: string): void {
    if (this.worker === worker) this.dropWorker();
    const current = this.current;
    if (current !== undefined && current.worker === worker) this.finish(current, { ok: false, ...(limit ? { limit } : {}), reason });
  }

  /** A check ran over its time: the thread is terminated and a warm spare started in its place at once. */
  private abandon(worker: Worker, limit: 'timeMs' | 'memoryMb', reason: string): void {
    if (this.worker === worker) {
      this.dropWorker();
      if (this.starting === undefined) this.startThread(true);
    }
    const current = this.current;
    if (current !== undefined && current.worker === worker) this.finish(current, { ok: false, limit, reason });
    void worker.terminate();
  }

  /** The thread is gone: its checkers with it. */
  private dropWorker(): void {
    this.worker = undefined;
    this.warmed.clear();
  }

  private finish(current: NonNullable<TypecheckThread['current']>, outcome: JobOutcome): void {
    clearTimeout(current.timer);
    this.current = undefined;
    current.worker.unref();
    this.settle(current.job, outcome);
    this.pump();
  }
}

const threads = new Map<number, TypecheckThread>();

/** The process's type-check thread for this heap limit. */
export function typecheckThread(memoryMb: number): TypecheckThread {
  let thread = threads.get(memoryMb);
  if (thread === undefined) {
    thread = new TypecheckThread(memoryMb);
    threads.set(memoryMb, thread);
  }
  return thread;
}
