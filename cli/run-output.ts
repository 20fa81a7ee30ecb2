/**
 * What `ptc run` prints for its run_code call. stdout carries data only: the program's result
 * as JSON. stderr carries everything a person reads: the program's logs (`│ ` lines), and, when
 * it did not return, one `ptc:` line saying why, as the CLI's other errors do. A program that
 * was not run is told in the compiler's form, one line per problem, `file:line:col: syntax
 * error: …` or `…: type error: …`. Text from the program, its tools or the type check is shown
 * with {@link visibleText}, so it cannot drive the terminal.
 *
 * Over maxOutputBytes a model reads a spill handle; a person at a terminal gets the whole
 * output, with a note on stderr saying so.
 */
import type { RunCodeRejected, RunCodeValue, SpillStore } from '../runtime/index.js';
import { visibleText, type ToolResult } from '../tools/index.js';
import { EXIT } from './errors.js';

/** A finished run_code call, as `ptc run` made it. */
export interface FinishedRunCall {
  /** The program's path as given: diagnostics are `script:line:col`. */
  readonly script: string;
  /** run_code's result, as `host.call` returned it. */
  readonly result: ToolResult;
  /** run_code's spill store, to print a spilled output whole. */
  readonly spills: SpillStore;
}

/** What to print: stdout's text (empty for none), stderr's lines, and the exit code. */
export interface PrintedRun {
  readonly stdout: string;
  readonly stderr: readonly string[];
  readonly exitCode: number;
}

const shown = (text: string) => visibleText(text, { newlines: 'keep' });

/** The default form: the result on stdout, logs and failures on stderr. */
export function printRun(call: FinishedRunCall): PrintedRun {
  const { result } = call;
  if (result.isError) return { stdout: '', stderr: [`ptc: ${shown(contentText(result))}`], exitCode: EXIT.failed };
  const value = result.value as unknown as RunCodeValue | RunCodeRejected;
  if ('rejected' in value) return { stdout: '', stderr: rejectionLines(call.script, value), exitCode: EXIT.failed };
  const stderr = (value.diagnostics ?? []).map((d) => `${call.script}:${d.line}:${d.column}: warning: ${shown(d.message)}`);
  const whole = wholeValue(value, call.spills);
  if (whole.result !== value.result || whole.logs !== value.logs) stderr.push('ptc: output was over maxOutputBytes (a model would see a spill handle); printed whole');
  if (Array.isArray(whole.logs)) for (const line of whole.logs) stderr.push(`│ ${visibleText(String(line))}`);
  // Escapes that keep the JSON the same JSON: a bidi override in a value is shown as \u202E.
  return { stdout: `${shown(JSON.stringify(whole.result, null, 2))}\n`, stderr, exitCode: EXIT.ok };
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
