/**
 * `npm run eval:programs -- <dir> [--json]`: runs and judges the model-written programs in
 * `<dir>` (`NN-<id>.ts`, one per task of tasks.ts) through run_code on the bundled example
 * tools, as `ptc run` would, and prints a table and "k of 15 first attempt" (docs/model-programs.md).
 * `--json` prints the report as JSON instead. Exit code 0 whatever the score (it is a
 * measurement), 2 when the directory cannot be read.
 */
import { EvalHarnessError } from './errors.js';
import { formatReport, runPrograms } from './run-programs.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const dirs = args.filter((a) => a !== '--json');
if (dirs.length !== 1 || dirs[0]!.startsWith('-')) {
  process.stderr.write('usage: npm run eval:programs -- <dir-of-programs> [--json]\n');
  process.exit(2);
}
try {
  const report = await runPrograms({ dir: dirs[0]!, onRecord: (r) => process.stderr.write(`eval: ${r.file}: ${r.outcome}\n`) });
  process.stdout.write(`${json ? JSON.stringify(report, null, 2) : formatReport(report)}\n`);
} catch (err) {
  if (!EvalHarnessError.isInstance(err)) throw err;
  process.stderr.write(`eval: ${(err as Error).message}\n`);
  process.exitCode = 2;
}
