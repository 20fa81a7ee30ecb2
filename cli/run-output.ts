/**
 * What `ptc run` prints for its run_code call, in each form. stdout carries the data of the form
 * asked for, whatever happened; stderr what a person reads; the exit code tells failure (1) from
 * a program that ran and returned (0).
 *
 * - Default: the program's result as JSON on stdout; its logs (`│ ` lines) on stderr and, when
 *   it did not return, one `ptc:` line saying why, as the CLI's other errors do. A program that
 *   was not run is told in the compiler's form, one line per problem: `file:line:col: syntax
 *   error: …` or `…: type error: …`.
 * - `--json`: {@link RunJsonOutput} on stdout in every case (a value, a rejection, a failure);
 *   stderr as by default.
 * - `--model-view`: exactly what a model reads of this call (`modelText`: run_code's rendered
 *   report or error, then any `additionalContexts`), spill notices and all; with `--json`, the
 *   content blocks themselves (`modelContent`). Nothing but the CLI's own notes on stderr: the
 *   view already holds the logs and the failure.
 *
 * Over maxOutputBytes a model reads a spill notice; the default and `--json` forms print the
 * whole output instead, with a note on stderr. Text from the program, its tools or the type
 * check is shown with {@link visibleText}, so it cannot drive the terminal; inside JSON its
 * escapes keep the same JSON, so `--model-view --json` is exact.
 */
import type { PtcRunEndEvent, ToolErrorKind, ToolResult } from '../tools/index.js';
import type { RunCodeRejected, RunCodeValue, SpillStore } from '../runtime/index.js';
import { modelContent, modelText, visibleText } from '../tools/index.js';
import { EXIT } from './errors.js';

/** A finished run_code call, as `ptc run` made it. */
export interface FinishedRunCall {
  /** The program's path as given: diagnostics are `script:line:col`. */
  readonly script: string;
  /** run_code's result, as `host.call` returned it. */
  readonly result: ToolResult;
  /** run_code's spill store, to print a spilled output whole. */
  readonly spills: SpillStore;
  /** The run's `ptc/run-end` event, when the program started. */
  readonly end?: PtcRunEndEvent;
}

/** Which form to print (`--json`, `--model-view`). */
export interface RunOutputForm {
  readonly json?: boolean;
  readonly modelView?: boolean;
}

/** What to print: stdout's text (empty for none), stderr's lines, and the exit code. */
export interface PrintedRun {
  readonly stdout: string;
  readonly stderr: readonly string[];
  readonly exitCode: number;
}

/**
 * What `ptc run --json` prints on stdout, in every case:
 * - the program ran and returned (exit 0): run_code's value `{ result, logs, calls, stats,
 *   diagnostics? }`, a spilled result or logs printed whole;
 * - it was not run (exit 1): run_code's value `{ rejected, reason, diagnostics }`;
 * - the call failed (exit 1): {@link RunJsonFailure}.
 */
export type RunJsonOutput = RunCodeValue | RunCodeRejected | RunJsonFailure;

/** `--json` for a run_code call that failed: the program threw or hit a limit, its sandbox failed, or the call itself was refused. */
export interface RunJsonFailure {
  /** The host's error: its kind (`'execution'` when the program failed, `'denied'`, `'blocked'`, …) and the message the model reads. */
  readonly error: { readonly kind: ToolErrorKind; readonly message: string };
  /** How the run ended, when the program started (as the trace's `ptc/run-end` says): `'limit'` names the limit and its value. */
  readonly run?: { readonly outcome: PtcRunEndEvent['outcome']; readonly limit?: { readonly name: string; readonly value: number } };
  /** Set when run_code itself was refused before it ran (a listener, a guard, the approval channel). */
  readonly denied?: NonNullable<ToolResult['denied']>;
  /** Set when a post-execute listener withheld run_code's value. */
  readonly blocked?: NonNullable<ToolResult['blocked']>;
}

const shown = (text: string) => visibleText(text, { newlines: 'keep' });
/** JSON as printed: indented, escapes that keep it the same JSON (a bidi override is shown as \u202E). */
const jsonText = (value: unknown) => `${shown(JSON.stringify(value, null, 2))}\n`;

/** What to print for `call` in `form`. */
export function printRun(call: FinishedRunCall, form: RunOutputForm = {}): PrintedRun {
  const { result } = call;
  const value = result.isError ? undefined : (result.value as unknown as RunCodeValue | RunCodeRejected);
  const exitCode = value === undefined || 'rejected' in value ? EXIT.failed : EXIT.ok;
  if (form.modelView) return { stdout: form.json ? jsonText(modelContent(result)) : `${shown(modelText(result))}\n`, stderr: [], exitCode };
  if (value === undefined) return { stdout: form.json ? jsonText(failureJson(call)) : '', stderr: [`ptc: ${shown(contentText(result))}`], exitCode };
  if ('rejected' in value) return { stdout: form.json ? jsonText(value) : '', stderr: rejectionLines(call.script, value), exitCode };
  const stderr = (value.diagnostics ?? []).map((d) => `${call.script}:${d.line}:${d.column}: warning: ${shown(d.message)}`);
  const whole = wholeValue(value, call.spills);
  if (whole.result !== value.result || whole.logs !== value.logs) stderr.push('ptc: output was over maxOutputBytes (a model would see a spill handle); printed whole');
  if (Array.isArray(whole.logs)) for (const line of whole.logs) stderr.push(`│ ${visibleText(String(line))}`);
  return { stdout: jsonText(form.json ? whole : whole.result), stderr, exitCode };
}

/** {@link RunJsonFailure} of a failed call. */
function failureJson({ result, end }: FinishedRunCall): RunJsonFailure {
  return {
    error: result.error ? { kind: result.error.kind, message: result.error.message } : { kind: 'execution', message: contentText(result) },
    ...(end ? { run: { outcome: end.outcome, ...(end.limit ? { limit: { name: end.limit.name, value: end.limit.value } } : {}) } } : {}),
    ...(result.denied ? { denied: result.denied } : {}),
    ...(result.blocked ? { blocked: result.blocked } : {}),
  };
}

/**
 * A program that was not run: a syntax or type error per line in the compiler's form
 * (`file:line:col: syntax error: message`, continuation lines indented); any other refusal
 * (too long, a type check that could not finish) as its sentence, then where.
 */
function rejectionLines(script: string, value: RunCodeRejected): string[] {
  const what = value.reason === 'syntax' ? 'syntax error' : value.reason === 'types' ? 'type error' : undefined;
  if (what) return value.diagnostics.map((d) => `ptc: ${script}:${d.line}:${d.column}: ${what}: ${shown(d.message).replace(/\n/g, '\n    ')}`);
  return [`ptc: ${shown(value.rejected)}`, ...value.diagnostics.map((d) => `${script}:${d.line}:${d.column}: ${shown(d.message)}`)];
}

/** A result's content as one text (an image named, not dropped). */
function contentText(result: ToolResult): string {
  return result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

/** The value with a spilled result or logs replaced by the whole output the spill store kept. */
export function wholeValue(value: RunCodeValue, spills: SpillStore): RunCodeValue {
  return { ...value, result: unspill(value.result, spills), logs: unspill(value.logs, spills) } as RunCodeValue;
}

/** The whole value behind a spill handle, when `part` is one this run's tool spilled. */
function unspill(part: unknown, spills: SpillStore): unknown {
  const handle = (part as { spilled?: { id?: unknown } } | null)?.spilled;
  if (typeof part !== 'object' || part === null || typeof handle?.id !== 'string' || !('head' in part) || !('tail' in part)) return part;
  const text = spills.read(handle.id);
  if (text === undefined) return part;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
