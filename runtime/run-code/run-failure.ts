/**
 * How a run that ended without a result is told: one failure shape from the runner's outcome and
 * what the bridge knows (the bridge set the limit a runner only saw as an abort), and the error
 * message the model reads: what happened, the line in its own code, the limit and its value,
 * then a short summary of calls and the last logs, all clipped.
 */
import { limitMessage, limitText, RunLimitError, RunStoppedError, type LimitName, type RunAbortedError, type RunEnd, type RunReport } from '../../bridge/index.js';
import type { RunLimits, RunOutcome } from '../program-runner.js';
import type { RunCodeCall } from './call-list.js';
import { RunCodeError } from './errors.js';
import { logLines, oneLine } from './render.js';

const MAX_ERROR_CHARS = 4_000;

/** Why a run failed, with what the model needs to know. */
export type Failure =
  | { kind: 'thrown'; message: string; line?: number; column?: number }
  | { kind: 'limit'; limit: LimitName; value: number; message: string }
  | { kind: 'crash'; message: string }
  | { kind: 'aborted'; message: string }
  /** A durable run's replay did not match its journal; nothing after the difference ran. */
  | { kind: 'replay-diverged'; message: string }
  /** A durable run's journal could not be written (its store failed, or it passed its cap). */
  | { kind: 'journal'; message: string }
  /** A durable run suspended to wait for a person (not a failure of the program: run_code reports it as a value). */
  | { kind: 'suspended'; message: string };

/** Cuts `text` to `max` characters, saying so (the text may itself be a cut of something longer). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (cut at ${max} characters)`;
}
/** The run's failure, preferring what the bridge knows (it set the limit the runner saw as an abort). */
export function failureOf(outcome: RunOutcome, stop: RunLimitError | RunAbortedError | RunStoppedError | undefined, limits: RunLimits): Failure | undefined {
  // The head of the model's message names the limit and its value: the detail says what happened.
  if (stop && RunLimitError.isInstance(stop)) return { kind: 'limit', limit: stop.limit, value: stop.value, message: stop.detail };
  if (stop && RunStoppedError.isInstance(stop)) return { kind: stop.kind, message: stop.detail };
  if (stop) return { kind: 'aborted', message: stop.message };
  if (!outcome.ok) {
    const f = outcome.failure;
    if (f.kind === 'limit') return { kind: 'limit', limit: f.limit, value: f.value, message: f.message };
    return f;
  }
  const bytes = Buffer.byteLength(outcome.resultJson, 'utf8');
  if (bytes > limits.maxResultBytes) {
    return { kind: 'limit', limit: 'maxResultBytes', value: limits.maxResultBytes, message: limitMessage('maxResultBytes', limits.maxResultBytes, { by: 'program', measured: `${bytes} bytes` }) };
  }
  return undefined;
}

/** The `ptc/run-end` outcome of a failure. */
export function endOf(failure: Failure): RunEnd {
  if (failure.kind === 'limit') return { outcome: 'limit', limit: { name: failure.limit, value: failure.value } };
  if (failure.kind === 'replay-diverged') return { outcome: 'diverged' };
  if (failure.kind === 'journal') return { outcome: 'crash' };
  return { outcome: failure.kind };
}

/** What {@link programError} tells. */
export interface ProgramErrorInput {
  readonly failure: Failure;
  /** The model's line for a line of the transpiled program. */
  readonly modelLine: (jsLine: number | undefined) => number | undefined;
  readonly report: RunReport;
  /** The short list of calls (call-list.ts), and how many there were in all. */
  readonly calls: RunCodeCall[];
  readonly total: number;
}

/** The error run_code throws for a failure (the model reads its message). */
export function programError({ failure, modelLine, report, calls, total }: ProgramErrorInput): RunCodeError {
  let head: string;
  let details: ConstructorParameters<typeof RunCodeError>[2] = {};
  if (failure.kind === 'thrown') {
    const line = modelLine(failure.line);
    // The program wrote this message (and a compromised sandbox process can write any of the
    // others): each is kept on one line, so it cannot forge a line of the report below it.
    head = `The program threw${line !== undefined ? ` at line ${line}` : ''}: ${clip(oneLine(failure.message), MAX_ERROR_CHARS)}`;
    // Only the line maps back (esbuild reprints the code, so columns are of the output).
    details = line !== undefined ? { line } : {};
  } else if (failure.kind === 'limit') {
    head = `The run was stopped by the limit ${limitText(failure.limit, failure.value)}: ${clip(oneLine(failure.message), MAX_ERROR_CHARS)}`;
    details = { limit: failure.limit, value: failure.value };
  } else if (failure.kind === 'replay-diverged') {
    head = `The resumed run was stopped: it did not do what its journal recorded, so nothing after that point ran (${clip(oneLine(failure.message), MAX_ERROR_CHARS)}).`;
  } else if (failure.kind === 'journal') {
    head = `The run was stopped: its journal could not be kept (${clip(oneLine(failure.message), MAX_ERROR_CHARS)}).`;
  } else if (failure.kind === 'suspended') {
    head = `The run suspended: ${clip(oneLine(failure.message), MAX_ERROR_CHARS)}`;
  } else if (failure.kind === 'crash') head = `The sandbox running the program failed: ${clip(oneLine(failure.message), MAX_ERROR_CHARS)}`;
  else head = failure.message.startsWith('The run was aborted') ? clip(oneLine(failure.message), MAX_ERROR_CHARS) : `The run was aborted: ${clip(oneLine(failure.message), MAX_ERROR_CHARS)}`;
  const lines = [head];
  if (calls.length > 0) {
    const summary = calls.slice(0, 20).map((c) => `${c.tool}: ${c.status}${c.settlement !== 'completed' ? ` (${c.settlement})` : ''}`);
    lines.push(`Tool calls (${total}): ${summary.join('; ')}${total > 20 ? '; …' : ''}`);
  }
  if (report.logs.length > 0) {
    // Framed like the report's logs (render.ts): a log cannot forge a line of this message.
    const tail = logLines(report.logs.slice(-10)).join('\n');
    lines.push(`Last logs:\n${clip(tail, 2_000)}`);
  }
  return new RunCodeError(failure.kind, lines.join('\n'), details);
}


