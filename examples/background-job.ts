/**
 * Example: a `bash`-style tool that can run in the background.
 *
 * With `background: true` it starts a job on the host (`exec.host.jobs.start`) and returns the
 * canonical handle `{ kind: 'background', jobId }` at once; the model (or a program) then reads
 * the job with `job_read` and stops it with `job_kill`. The job's output is the command's stdout
 * and stderr, kept in the job's bounded ring; killing the job (or disposing its agent) kills the
 * process. Without `background` it waits and returns `{ exitCode, stdout, stderr }`.
 *
 * Illustrative only: it runs whatever command it is given. A real deployment puts a policy
 * guard in front of it (see examples/policy.ts) and a sandbox around it.
 *
 * Run it: `npm run build && node dist/examples/background-job.js`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { backgroundHandleSchema, createJobTools, createToolHost, defineTool, type JobRunContext, type Tool } from '../tools/index.js';

const finishedSchema = z.object({
  exitCode: z.number().int().nullable().describe('null when the process was killed by a signal'),
  stdout: z.string(),
  stderr: z.string(),
});

/**
 * Runs `command` with /bin/sh in its own process group; resolves when it exits. Output goes to
 * `onOutput`. On abort or timeout the whole group is killed, so `sleep` and friends started by
 * the shell do not outlive it. (A host process that dies without `host.close()` leaves the
 * group running: a real deployment also kills it from an exit handler or a supervisor.)
 */
function runShell(command: string, options: { signal: AbortSignal; timeoutMs: number; onOutput: (text: string, stream: 'stdout' | 'stderr') => void }) {
  return new Promise<{ exitCode: number | null }>((resolve, reject) => {
    if (options.signal.aborted) return resolve({ exitCode: null });
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(killGroup, options.timeoutMs);
    options.signal.addEventListener('abort', killGroup, { once: true });
    const done = () => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', killGroup);
    };
    child.stdout.setEncoding('utf8').on('data', (text: string) => options.onOutput(text, 'stdout'));
    child.stderr.setEncoding('utf8').on('data', (text: string) => options.onOutput(text, 'stderr'));
    child.on('error', (err) => (done(), reject(err)));
    child.on('close', (code) => (done(), resolve({ exitCode: code })));
  });
}

/** The example tool. */
export const bashTool = defineTool({
  name: 'bash',
  description: 'Run a shell command. With background: true it returns { kind: "background", jobId } at once; read it with job_read.',
  parameters: z.object({
    command: z.string().min(1).max(10_000).describe('The command, run with /bin/sh -c.'),
    background: z.boolean().default(false).describe('Return a job handle at once instead of waiting.'),
    timeoutMs: z.number().int().min(1).max(3_600_000).default(60_000).describe('Kill the command after this long.'),
  }),
  output: { schema: z.union([finishedSchema, backgroundHandleSchema]) },
  execute: async (args, exec) => {
    if (args.background) {
      return exec.host.jobs.start({
        kind: 'bash',
        label: args.command.length > 80 ? `${args.command.slice(0, 79)}…` : args.command,
        owner: exec.agent,
        run: async ({ signal, append }: JobRunContext) => {
          const { exitCode } = await runShell(args.command, { signal, timeoutMs: args.timeoutMs, onOutput: (text) => append(text) });
          return { exitCode };
        },
      });
    }
    // In the foreground, keep the last 256 KiB of each stream (a background job has its own ring).
    const tail = (text: string) => (text.length > 262_144 ? text.slice(-262_144) : text);
    let stdout = '';
    let stderr = '';
    const { exitCode } = await runShell(args.command, {
      signal: exec.signal,
      timeoutMs: args.timeoutMs,
      onOutput: (text, stream) => (stream === 'stdout' ? (stdout = tail(stdout + text)) : (stderr = tail(stderr + text))),
    });
    return { exitCode, stdout, stderr };
  },
  presentCall: (args) => ({ card: 'command', phase: 'pending', command: args.command, background: args.background }),
  presentResult: (args, value) =>
    'jobId' in value
      ? { card: 'command', phase: 'result', command: args.command, background: true, exitCode: null, jobId: value.jobId }
      : { card: 'command', phase: 'result', command: args.command, exitCode: value.exitCode, output: (value.stdout + value.stderr).slice(-2000) },
});

/** The example's tools: bash and the three job tools. */
export const tools: Tool[] = [bashTool, ...createJobTools()];

async function main() {
  const host = createToolHost();
  host.register(tools);
  const agent = { id: 'demo-agent' };
  const started = await host.call({ id: 'c1', name: 'bash', args: { command: 'for i in 1 2 3; do echo tick $i; sleep 0.2; done', background: true } }, { agent });
  console.log('bash returned:', started.value);
  const { jobId } = started.value as { jobId: string };
  await host.jobs.wait(agent, jobId);
  const read = await host.call({ id: 'c2', name: 'job_read', args: { jobId } }, { agent });
  console.log(read.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n'));
  host.close();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
