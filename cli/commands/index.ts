/**
 * Every `ptc` subcommand registers itself here; `main.ts` only wires the parser.
 * Each registrar adds one command (with its own `--help`) to the program.
 */
import type { Command } from 'commander';
import { registerTrace } from './trace.js';
import { registerRun } from './run.js';
import { registerMcp } from './mcp.js';
import { registerCodegen } from './codegen.js';
import { registerCheck } from './check.js';
import { registerRuns } from './runs.js';

/** Adds a subcommand to the program. */
export type RegisterCommand = (program: Command) => void;

export const commands: readonly RegisterCommand[] = [
  registerRun,
  registerTrace,
  registerMcp,
  registerCodegen,
  registerCheck,
  registerRuns,
];
