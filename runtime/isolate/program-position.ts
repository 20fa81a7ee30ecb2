/**
 * Where in the program an error happened. The program runs as the body of an `AsyncFunction`,
 * whose source has two header lines (`(async function anonymous(\n) {\n`); lines are reported
 * as lines of `RunRequest.js` minus `lineOffset` (1-based), columns as V8 gives them (1-based).
 */
import type { Isolate } from 'isolated-vm';
import { PROGRAM_HEADER_LINES, PROGRAM_URL } from './guest/protocol.js';

/** A position in the program, when one is known. */
export interface ProgramPosition {
  line?: number;
  column?: number;
}

/** Maps a line and column of the compiled function to the program's own line and column. */
export function programPosition(line: number, column: number, lineOffset: number): ProgramPosition {
  if (!Number.isSafeInteger(line) || line < 1) return {};
  const mapped = line - PROGRAM_HEADER_LINES - lineOffset;
  if (mapped < 1) return {};
  return Number.isSafeInteger(column) && column >= 1 ? { line: mapped, column } : { line: mapped };
}

const SYNTAX_AT = new RegExp(`\\[${PROGRAM_URL.replace('.', '\\.')}:(\\d+):(\\d+)\\]\\s*$`);

/**
 * The AsyncFunction constructor reports a syntax error without a position; compiling (never
 * running) the same text as a script in the same isolate gives one.
 */
export async function locateSyntaxError(isolate: Isolate, js: string, lineOffset: number): Promise<ProgramPosition> {
  try {
    await isolate.compileScript(`(async function anonymous(\n) {\n${js}\n})`, { filename: PROGRAM_URL });
  } catch (err) {
    const m = SYNTAX_AT.exec(err instanceof Error ? err.message : '');
    if (m) return programPosition(Number(m[1]), Number(m[2]), lineOffset);
  }
  return {};
}
