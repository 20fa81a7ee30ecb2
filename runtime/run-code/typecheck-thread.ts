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

/** Limits of one type check; host policy, like the run's limits. */
export interface TypecheckLimits {
  /** Wall time of one check, warm-up of the thread excluded. Default 5 000 ms. */
  readonly timeMs: number;
  /** Heap of the type-check thread (its old generation). Default 512 MB. */
  readonly memoryMb: number;
}

export const DEFAULT_TYPECHECK_LIMITS: TypecheckLimits = Object.freeze({ timeMs: 5_000, memoryMb: 512 });

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
    if (key !== 'timeMs' && key !== 'memoryMb') throw new TypecheckLimitsError(key, value, 'a known limit name (known: timeMs, memoryMb)');
    if (value === undefined) continue;
    const min = key === 'memoryMb' ? 64 : 1;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 2_147_483_647) {
      throw new TypecheckLimitsError(key, value, `an integer from ${min} to 2147483647`);
    }
    limits[key] = value;
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

/** A check's outcome: the diagnostics, or why there are none (a limit, a failure of the thread). */
export type TypecheckOutcome =
  | { readonly ok: true; readonly result: CheckResult }
  | { readonly ok: false; readonly limit?: keyof TypecheckLimits; readonly reason: string };

/** What a job ends with: a check's outcome, or (for a normalize request) the body it found. */
type JobOutcome = TypecheckOutcome | { readonly ok: true; readonly normalized: NormalizedProgram };

interface Job {
  readonly request: TypecheckRequest;
  readonly timeMs: number;
  readonly resolve: (outcome: JobOutcome) => void;
}

/** Checkers the codegen keeps warm per thread (`checkerFor`'s cache). */
const WARM_CHECKERS = 4;

/** Time allowed for the first check of a new thread: loading TypeScript and parsing its lib. */
const WARMUP_TIME_MS = 60_000;

const EMPTY_TYPES: CheckableTypes = { declarations: '', toolNames: new Map() };

export class TypecheckThread {
  private worker: Worker | undefined;
  private starting: Promise<void> | undefined;
  private readonly queue: Job[] = [];
  private current: { readonly job: Job; readonly worker: Worker; readonly timer: NodeJS.Timeout } | undefined;
  private nextId = 1;

  constructor(private readonly memoryMb: number) {}

  /**
   * Checks `code` against `types` within `timeMs`. Never rejects. Building the checker for new
   * declarations (host input, not the program's) happens first, outside that time.
   */
  check(code: string, types: CheckableTypes, timeMs: number): Promise<TypecheckOutcome> {
    return new Promise((resolve) => this.enqueue({ request: this.request(types, code), timeMs, resolve: resolve as (outcome: JobOutcome) => void }));
  }

  /**
   * `normalizeProgram(code)` on the thread, within `timeMs`: parsing a long program takes about
   * 1 ms per KB, which on the host's thread would stall every other call. Never rejects; a
   * failure or a timeout gives undefined.
   */
  normalize(code: string, timeMs: number): Promise<NormalizedProgram | undefined> {
    return new Promise((resolve) => {
      const request: TypecheckRequest = { id: this.nextId++, declarations: '', toolNames: [], normalize: code };
      this.enqueue({ request, timeMs, resolve: (outcome) => resolve(outcome.ok && 'normalized' in outcome ? outcome.normalized : undefined) });
    });
  }

  /** Builds the checker for `types` ahead of the first check (its outcome is not reported). */
  warmup(types: CheckableTypes): void {
    this.enqueue(this.warmupJob(this.request(types, undefined)));
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
      for (let i = this.queue.length - 1; i >= 0; i--) {
        const waiting = this.queue[i]!;
        if (waiting.request.code !== undefined && waiting.request.declarations === declarations) {
          this.queue.splice(i, 1);
          waiting.resolve({ ok: false, reason });
        }
      }
    };
    return { request, timeMs: WARMUP_TIME_MS, resolve };
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

  private enqueue(job: Job): void {
    this.queue.push(job);
    this.pump();
  }

  /** Sends the next job once the thread is free; its time starts now. */
  private pump(): void {
    if (this.current !== undefined || this.starting !== undefined) return;
    let job = this.queue.shift();
    if (job === undefined) return;
    if (this.worker === undefined) {
      this.queue.unshift(job);
      this.starting = this.start().then(
        (worker) => {
          this.starting = undefined;
          this.worker = worker;
          // A new thread loads TypeScript and parses its lib first, outside any check's time. If
          // that fails (a heap limit too small for TypeScript itself), the waiting checks fail
          // with the reason instead of starting thread after thread.
          const failWaiting = (outcome: JobOutcome) => {
            if (outcome.ok) return;
            const reason = `could not start: the type checker ${outcome.reason}`;
            for (const waiting of this.queue.splice(0)) waiting.resolve({ ok: false, reason });
          };
          // (Not for a thread started to unwrap a long program: that needs no lib, only the parser.)
          if (this.queue.some((waiting) => waiting.request.normalize === undefined)) {
            this.queue.unshift({ request: this.request(EMPTY_TYPES, undefined), timeMs: WARMUP_TIME_MS, resolve: failWaiting });
          }
          this.pump();
        },
        (err: unknown) => {
          this.starting = undefined;
          const reason = `could not start (${errorText(err)})`;
          for (const waiting of this.queue.splice(0)) waiting.resolve({ ok: false, reason });
        },
      );
      return;
    }
    if (job.request.code !== undefined && !this.warmed.has(job.request.declarations)) {
      // Build this thread's checker for these declarations first, outside the check's time.
      this.queue.unshift(job);
      job = this.warmupJob({ id: this.nextId++, declarations: job.request.declarations, toolNames: job.request.toolNames });
    }
    const worker = this.worker;
    const timer = setTimeout(() => this.abandon(worker, 'timeMs', `did not finish within ${job.timeMs} ms`), job.timeMs);
    this.current = { job, worker, timer };
    worker.ref();
    worker.postMessage(job.request);
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
  private onGone(worker: Worker, limit: keyof TypecheckLimits | undefined, reason: string): void {
    if (this.worker === worker) this.dropWorker();
    const current = this.current;
    if (current !== undefined && current.worker === worker) this.finish(current, { ok: false, ...(limit ? { limit } : {}), reason });
  }

  private abandon(worker: Worker, limit: keyof TypecheckLimits, reason: string): void {
    if (this.worker === worker) this.dropWorker();
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
    current.job.resolve(outcome);
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
