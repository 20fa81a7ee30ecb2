/**
 * `job_list`, `job_read`, `job_kill`: the model-facing controls of background jobs. They are
 * ordinary tools, so they pass the whole pipeline (policy, guards, audit) and programs call them
 * with typed bindings (their output schemas are zod). Each acts for the calling agent only: the
 * owner is always `exec.agent`, never an argument, so a model cannot name someone else's owner.
 */
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../tool-types.js';
import { DEFAULT_JOB_READ_BYTES, type JobInfo, type JobReadResult } from './job-types.js';

/** Largest page `job_read` returns: 64 KiB. */
export const MAX_JOB_READ_BYTES = 64 * 1024;
/** Longest `job_read` may wait for a running job to end: 60 s. */
export const MAX_JOB_WAIT_MS = 60_000;

/** Resolves when the job ended, `ms` passed, or the call was cancelled, whichever is first; the wait is then given up. */
function waitForEnd(wait: (signal: AbortSignal) => Promise<unknown>, ms: number, signal: AbortSignal): Promise<void> {
  const stop = new AbortController();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      stop.abort();
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    wait(stop.signal).then(done, done);
  });
}

const progressSchema = z.object({
  message: z.string().optional(),
  done: z.number().optional(),
  total: z.number().optional(),
});

/** A job as the job tools report it. */
export const jobInfoSchema = z.object({
  jobId: z.string(),
  kind: z.string(),
  label: z.string(),
  status: z.enum(['running', 'succeeded', 'failed', 'killed']),
  startedAt: z.number().describe('Epoch milliseconds.'),
  endedAt: z.number().optional(),
  outputBytes: z.number().describe('Bytes of output over the job\'s life.'),
  droppedBytes: z.number().describe('Oldest bytes no longer kept (the output is a ring buffer).'),
  progress: progressSchema.optional(),
});

const jobReadSchema = jobInfoSchema.extend({
  output: z.string(),
  offset: z.number().describe('Byte offset where `output` starts.'),
  nextOffset: z.number().describe('Pass as `offset` to read on.'),
  skippedBytes: z.number().describe('Bytes asked for that were already dropped.'),
  value: z.json().optional().describe('The final value, once succeeded.'),
  error: z.string().optional().describe('Why it failed or was killed.'),
});

const jobIdParam = z.string().min(1).max(100).describe('The jobId from a background handle or job_list.');

function headline(job: JobInfo): string {
  const dropped = job.droppedBytes > 0 ? `, ${job.droppedBytes} oldest bytes dropped` : '';
  const progress = job.progress?.message ? ` — ${job.progress.message}` : '';
  return `${job.jobId} [${job.status}] ${job.label} (${job.outputBytes} bytes of output${dropped})${progress}`;
}

function renderRead(read: JobReadResult): string {
  const lines = [headline(read)];
  if (read.skippedBytes > 0) lines.push(`(${read.skippedBytes} bytes before offset ${read.offset} were dropped)`);
  if (read.output) lines.push(`--- output ${read.offset}..${read.nextOffset} ---`, read.output);
  if (read.nextOffset < read.outputBytes) lines.push(`(more output: job_read with offset ${read.nextOffset})`);
  if (read.value !== undefined) lines.push(`value: ${JSON.stringify(read.value)}`);
  if (read.error !== undefined) lines.push(`error: ${read.error}`);
  return lines.join('\n');
}

/** The three job tools. Register them with `host.register(createJobTools())`. */
export function createJobTools(): [Tool, Tool, Tool] {
  const jobList = defineTool({
    name: 'job_list',
    description: 'List your background jobs (id, status, label, output size).',
    parameters: z.object({
      status: z.enum(['running', 'succeeded', 'failed', 'killed']).optional().describe('Only jobs with this status.'),
    }),
    output: {
      schema: z.object({ jobs: z.array(jobInfoSchema) }),
      render: (_args, value) => (value.jobs.length === 0 ? 'No background jobs.' : value.jobs.map(headline).join('\n')),
    },
    isConcurrencySafe: true,
    execute: async (args, exec) => ({ jobs: (await exec.host.jobs.listAsync(exec.agent)).filter((job) => !args.status || job.status === args.status) }),
  });

  const jobRead = defineTool({
    name: 'job_read',
    description:
      'Read a background job: its status, a page of its output (offset/limit in bytes), and its final value or error once it ended.',
    parameters: z.object({
      jobId: jobIdParam,
      offset: z.number().int().min(0).optional().describe('Byte offset to read from (default 0; use nextOffset to read on).'),
      limit: z.number().int().min(1).max(MAX_JOB_READ_BYTES).optional().describe(`Bytes to read (default ${DEFAULT_JOB_READ_BYTES}).`),
      waitMs: z
        .number()
        .int()
        .min(0)
        .max(MAX_JOB_WAIT_MS)
        .optional()
        .describe('If the job is running, wait up to this long for it to end before reading (instead of polling).'),
    }),
    output: { schema: jobReadSchema, render: (_args, value) => renderRead(value as JobReadResult) },
    isConcurrencySafe: true,
    execute: async (args, exec) => {
      const jobs = exec.host.jobs;
      const before = await jobs.readAsync(exec.agent, args.jobId, { limit: 1 }); // unknown job: fails before waiting
      if (args.waitMs && before.status === 'running') await waitForEnd((signal) => jobs.wait(exec.agent, args.jobId, { signal }), args.waitMs, exec.signal);
      return jobs.readAsync(exec.agent, args.jobId, { offset: args.offset, limit: args.limit });
    },
    presentResult: (_args, value) => ({
      card: 'job',
      phase: 'result',
      label: value.label,
      jobKind: value.kind,
      jobId: value.jobId,
      status: value.status,
      ...(value.progress?.message !== undefined ? { progress: value.progress.message } : {}),
    }),
  });

  const jobKill = defineTool({
    name: 'job_kill',
    description: 'Kill one of your running background jobs. A job that already ended is left as it is.',
    parameters: z.object({ jobId: jobIdParam }),
    output: {
      schema: z.object({ killed: z.boolean(), job: jobInfoSchema }),
      render: (_args, value) => `${value.killed ? 'Killed' : 'Not running, left as it is:'} ${headline(value.job)}`,
    },
    execute: async (args, exec) => {
      const before = (await exec.host.jobs.readAsync(exec.agent, args.jobId, { limit: 1 })).status;
      const job = await exec.host.jobs.killAsync(exec.agent, args.jobId);
      return { killed: before === 'running' && job.status === 'killed', job };
    },
    presentCall: (args) => ({ card: 'job', phase: 'pending', label: `kill ${args.jobId}` }),
    presentResult: (_args, value) => ({
      card: 'job',
      phase: 'result',
      label: value.job.label,
      jobKind: value.job.kind,
      jobId: value.job.jobId,
      status: value.job.status,
    }),
  });

  return [jobList, jobRead, jobKill] as [Tool, Tool, Tool];
}
