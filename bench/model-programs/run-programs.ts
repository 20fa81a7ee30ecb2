/**
 * Runs a directory of model-written programs (`NN-<id>.ts`, one per task in tasks.ts) and judges
 * each one's first attempt.
 *
 * Each program runs as a model's run_code call from `ptc run` runs: a host built by the CLI's
 * own `buildSessionHost` with `ptc run`'s defaults (the bundled example tools and policy,
 * approval asks answered "no", sandbox processes, the OS sandbox where it works), one
 * `host.call` of run_code with the program as `code`, the agent `ptc run` names. A fresh host per
 * program, so no program sees another's state. The outcome is one of:
 * - `rejected`: the type check refused the program (it never ran);
 * - `runtime-error`: it ran and threw, or hit a limit (run_code's call is an error);
 * - `wrong-answer`: it returned, and the task's judge refused the value;
 * - `correct`: the judge accepted it;
 * - `missing`: there is no file for the task.
 * Only `correct` counts. A result over `maxOutputBytes` (a model would have seen a spill handle)
 * is judged whole, as `ptc run` prints it, and marked `spilled`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildSessionHost } from '../../cli/session-host.js';
import type { RunCodeRejected, RunCodeTool, RunCodeValue, SpillStore } from '../../runtime/index.js';
import { EvalHarnessError } from './errors.js';
import { show } from './judges.js';
import { programFileName, TASKS, type ModelTask } from './tasks.js';
import { DirectTools } from './truth.js';

/** How one program fared. */
export type ProgramOutcome = 'correct' | 'wrong-answer' | 'runtime-error' | 'rejected' | 'missing';

/** The record of one task's program. */
export interface ProgramRecord {
  readonly task: string;
  readonly file: string;
  readonly outcome: ProgramOutcome;
  /** Why it failed: the verdict, the error text or the diagnostics (empty when correct). */
  readonly detail: string;
  /** The result was over `maxOutputBytes`: a model would have read only its head and tail. */
  readonly spilled: boolean;
  /** Tool calls the program made; null when it did not run or failed (the error text lists them). */
  readonly calls: number | null;
}

/** The evaluation of one directory. */
export interface ProgramsReport {
  readonly dir: string;
  readonly records: readonly ProgramRecord[];
  readonly correct: number;
  readonly total: number;
  /** `.ts` files in the directory that name no task (a misspelt file is otherwise silently missing). */
  readonly unmatched: readonly string[];
}

const MAX_DETAIL = 600;
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const clip = (text: string) => (text.length <= MAX_DETAIL ? text : `${text.slice(0, MAX_DETAIL)}…`);

/** The whole value behind a spill handle of this run (as `ptc run` prints it), and whether it was one. */
function unspill(part: unknown, tool: RunCodeTool): { value: unknown; spilled: boolean } {
  const handle = (part as { spilled?: { id?: unknown } } | null)?.spilled;
  if (typeof part !== 'object' || part === null || typeof handle?.id !== 'string' || !('head' in part) || !('tail' in part)) return { value: part, spilled: false };
  const text = (tool.spills as SpillStore).read(handle.id); // the in-memory store these runs use
  if (text === undefined) return { value: part, spilled: true };
  try {
    return { value: JSON.parse(text) as unknown, spilled: true };
  } catch {
    return { value: text, spilled: true };
  }
}

/** Runs one program as `ptc run` would, and judges its value. */
async function runOne(task: ModelTask, file: string, code: string, truth: DirectTools): Promise<ProgramRecord> {
  // The truth first: a task whose truth cannot be computed is the harness's failure, not the program's.
  const { judge } = await task.expect(truth);
  const session = await buildSessionHost({ approve: 'no', isolation: 'process', osSandbox: 'auto', mcp: [], mcpConfig: [] });
  const base = { task: task.id, file, spilled: false, calls: null };
  try {
    const result = await session.host.call({ id: 'run-1', name: session.runCode.name, args: { code } }, { agent: { id: 'cli', name: 'ptc run' } });
    if (result.isError) {
      const text = result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
      return { ...base, outcome: 'runtime-error', detail: clip(oneLine(text)) };
    }
    const value = result.value as unknown as RunCodeValue | RunCodeRejected;
    if ('rejected' in value) {
      const diagnostics = value.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`).join('; ');
      return { ...base, outcome: 'rejected', detail: clip(oneLine(`${value.rejected}${diagnostics ? `: ${diagnostics}` : ''}`)) };
    }
    // Read back before the session closes: the spill store is the run_code tool's.
    const { value: returned, spilled } = unspill(value.result, session.runCode);
    const calls = value.stats.calls.total;
    const verdict = judge(returned);
    return verdict.ok ? { ...base, spilled, calls, outcome: 'correct', detail: '' } : { ...base, spilled, calls, outcome: 'wrong-answer', detail: clip(oneLine(verdict.reason)) };
  } finally {
    await session.close();
  }
}

/**
 * Runs and judges the program of every task found in `dir`, one at a time (the machine is
 * shared; the figure is a count, not a time). `tasks` narrows the set (tests); the report's
 * `total` is the number of tasks judged.
 */
export async function runPrograms(options: { readonly dir: string; readonly tasks?: readonly ModelTask[]; readonly onRecord?: (r: ProgramRecord) => void }): Promise<ProgramsReport> {
  const { dir } = options;
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new EvalHarnessError(`${dir} is not a directory`);
    names = readdirSync(dir);
  } catch (err) {
    if (EvalHarnessError.isInstance(err)) throw err;
    throw new EvalHarnessError(`cannot read the programs directory ${dir}: ${(err as Error).message}`);
  }
  const tasks = options.tasks ?? TASKS;
  const expected = new Set(TASKS.map(programFileName));
  const truth = new DirectTools();
  const records: ProgramRecord[] = [];
  try {
    for (const task of tasks) {
      const file = programFileName(task);
      const record: ProgramRecord = names.includes(file)
        ? await runOne(task, file, readFileSync(join(dir, file), 'utf8'), truth)
        : { task: task.id, file, outcome: 'missing', detail: `no file ${file} in ${dir}`, spilled: false, calls: null };
      records.push(record);
      options.onRecord?.(record);
    }
  } finally {
    truth.close();
  }
  return {
    dir,
    records,
    correct: records.filter((r) => r.outcome === 'correct').length,
    total: records.length,
    unmatched: names.filter((n) => n.endsWith('.ts') && !expected.has(n)).sort(),
  };
}

const OUTCOME_TEXT: Readonly<Record<ProgramOutcome, string>> = {
  correct: 'correct',
  'wrong-answer': 'wrong answer',
  'runtime-error': 'runtime error',
  rejected: 'type-check rejected',
  missing: 'missing',
};

/** The report as a table and a summary line: "k of 15 first attempt". */
export function formatReport(report: ProgramsReport): string {
  const width = Math.max(...report.records.map((r) => r.file.length), 4);
  const lines = [`${'file'.padEnd(width)}  ${'outcome'.padEnd(19)}  calls  detail`];
  for (const r of report.records) {
    const note = [r.spilled ? '(result spilled: a model would see only its head and tail)' : '', r.detail].filter(Boolean).join(' ');
    lines.push(`${r.file.padEnd(width)}  ${OUTCOME_TEXT[r.outcome].padEnd(19)}  ${String(r.calls ?? '-').padStart(5)}  ${note}`.trimEnd());
  }
  const count = (o: ProgramOutcome) => report.records.filter((r) => r.outcome === o).length;
  lines.push('');
  lines.push(
    `${report.correct} of ${report.total} first attempt (wrong answer ${count('wrong-answer')}, runtime error ${count('runtime-error')}, type-check rejected ${count('rejected')}, missing ${count('missing')})`,
  );
  if (report.unmatched.length > 0) lines.push(`not a task's file name, not run: ${report.unmatched.map((n) => show(n)).join(', ')}`);
  return lines.join('\n');
}
