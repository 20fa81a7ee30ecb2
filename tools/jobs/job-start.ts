/** What both job managers (memory, shared) check and make the same way: ids, owners, options, limits. */
import { randomBytes } from 'node:crypto';
import type { JobProgressInfo } from '../events.js';
import { errorText, InvalidOptionError } from '../errors.js';
import { materializeJson, type JsonValue } from '../json.js';
import type { AgentRef } from '../types.js';
import { JobStartError } from './errors.js';
import { DEFAULT_JOB_OUTPUT_BYTES } from './output-ring.js';
import { DEFAULT_JOB_READ_BYTES, type JobManagerOptions, type JobRunContext, type JobStartOptions } from './job-types.js';

const KIND = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
const NO_OWNER = '\u0000no-agent';

/** The shape of a job id: `job_` and 128 random bits in hex. */
export const JOB_ID = /^job_[0-9a-f]{32}$/;

/**
 * A new job id: 128 random bits, so no program or agent can guess another job's id from its own
 * (ownership is still checked on every lookup; an unguessable id keeps a leaked list of one
 * replica's ids or a counter from saying anything about the next).
 */
export function newJobId(): string {
  return `job_${randomBytes(16).toString('hex')}`;
}

/** The key a job's owner is kept under: the agent id, or a fixed key for calls without an agent. */
export function ownerKeyOf(owner: AgentRef | string | undefined): string {
  if (typeof owner === 'string') return owner;
  return typeof owner?.id === 'string' ? owner.id : NO_OWNER;
}

export function cleanProgress(info: unknown): JobProgressInfo | undefined {
  if (typeof info !== 'object' || info === null) return undefined;
  const raw = info as Record<string, unknown>;
  const out: { message?: string; done?: number; total?: number } = {};
  if (typeof raw.message === 'string') out.message = raw.message.slice(0, 1000);
  if (typeof raw.done === 'number' && Number.isFinite(raw.done)) out.done = raw.done;
  if (typeof raw.total === 'number' && Number.isFinite(raw.total)) out.total = raw.total;
  return Object.freeze(out);
}

function positiveInt(value: number | undefined, fallback: number, what: string): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new InvalidOptionError({ where: 'createToolHost', option: `jobs.${what}`, value, expected: 'a positive integer' });
  return n;
}

/** The limits of a manager, checked. */
export function jobLimits(options: JobManagerOptions) {
  const progressIntervalMs = options.progressIntervalMs ?? 250;
  if (!(progressIntervalMs >= 0)) throw new InvalidOptionError({ where: 'createToolHost', option: 'jobs.progressIntervalMs', value: progressIntervalMs, expected: 'a number of ms >= 0' });
  return {
    outputBytes: positiveInt(options.outputBytes, DEFAULT_JOB_OUTPUT_BYTES, 'outputBytes'),
    maxRunning: positiveInt(options.maxRunningPerOwner, 16, 'maxRunningPerOwner'),
    maxRetained: positiveInt(options.maxRetainedPerOwner, 64, 'maxRetainedPerOwner'),
    progressIntervalMs,
  };
}

/** `jobs.start`'s options, checked (a {@link JobStartError} naming the bad field). */
export function checkStart(options: JobStartOptions): { kind: string; label: string; owner: AgentRef | undefined; ownerKey: string; run: (context: JobRunContext) => unknown } {
  if (typeof options !== 'object' || options === null) throw new JobStartError('options', 'must be an object { kind, label, owner, run }');
  const { kind, label, owner, run } = options;
  if (typeof kind !== 'string' || !KIND.test(kind)) throw new JobStartError('kind', `must match ${KIND.source}, got ${JSON.stringify(kind) ?? String(kind)}`);
  if (typeof label !== 'string' || label.trim() === '') throw new JobStartError('label', 'must be a non-empty string');
  if (typeof run !== 'function') throw new JobStartError('run', 'must be a function ({ signal, append, progress }) => value');
  if (owner !== undefined && (typeof owner !== 'object' || owner === null || typeof owner.id !== 'string')) {
    throw new JobStartError('owner', 'must be an agent ref { id } or undefined');
  }
  return { kind, label: label.length > 200 ? `${label.slice(0, 199)}…` : label, owner, ownerKey: ownerKeyOf(owner), run: run.bind(options) };
}

/** The refusal when an owner has too many running jobs. */
export const tooManyRunning = (running: number, maxRunning: number) =>
  new JobStartError('owner', `already has ${running} running jobs (maxRunningPerOwner is ${maxRunning}); kill or wait for one first`);

/** A read's page, with the defaults. */
export function pageOf(page: { readonly offset?: number; readonly limit?: number } = {}): { offset: number; limit: number } {
  return {
    offset: Number.isInteger(page.offset) && page.offset! >= 0 ? page.offset! : 0,
    limit: Number.isInteger(page.limit) && page.limit! > 0 ? page.limit! : DEFAULT_JOB_READ_BYTES,
  };
}

/** The `owner` of a `job/start` event: id and name only. */
export const ownerOfEvent = (owner: AgentRef | undefined) => (owner ? { owner: owner.name !== undefined ? { id: owner.id, name: owner.name } : { id: owner.id } } : {});

/** Resolves with `promise`, or rejects with the signal's reason once it aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

/**
 * Runs a job's body on the next tick and hands on how it ended: its value as JSON, or a failure
 * (a throw, or a value that is not JSON). Nothing is handed on once the job ended otherwise (a
 * kill): `running` is asked first.
 */
export function launchJob(
  jobId: string,
  run: (context: JobRunContext) => unknown,
  context: JobRunContext,
  outcome: { readonly running: () => boolean; readonly succeeded: (value: JsonValue) => void; readonly failed: (error: string) => void },
): void {
  Promise.resolve()
    .then(() => run(context))
    .then(
      (value) => {
        if (!outcome.running()) return;
        let json: JsonValue;
        try {
          json = materializeJson(value === undefined ? null : value, 'value');
        } catch (err) {
          outcome.failed(`job ${jobId} returned a value that is not JSON: ${errorText(err)}`);
          return;
        }
        outcome.succeeded(json);
      },
      (err: unknown) => outcome.failed(errorText(err)),
    );
}
