/**
 * `ptc trace verify|show|html <file>`: audit a run. `verify` checks the hash chain (exit 1 when
 * broken, naming the line); `show` prints the call tree; `html` writes a self-contained report.
 */
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { verifyTrace } from '../../tools/index.js';
import { CliError, EXIT } from '../errors.js';
import { buildCallTree } from '../trace/call-tree.js';
import { loadTrace, readTraceText } from '../trace/read-trace.js';
import { renderHtml } from '../trace/render-html.js';
import { printable, renderTree } from '../trace/render-tree.js';

/** Registers `ptc trace`. */
export function registerTrace(program: Command): void {
  const trace = program
    .command('trace')
    .description('Audit a run: verify, show or render a trace written by `ptc run --trace` (or any JSONL session log).')
    .addHelpText('after', '\nExit codes: 0 ok, 1 the trace failed verification, 2 usage or input error.');

  trace
    .command('verify')
    .description('Check the hash chain; name the first edited, deleted, inserted or reordered line.')
    .argument('<file>', 'trace file (.jsonl)')
    .option('--json', 'print the verification as JSON')
    .action((file: string, opts: { json?: boolean }) => {
      const v = verifyTrace(readTraceText(file));
      if (opts.json) {
        process.stdout.write(JSON.stringify({ ok: v.ok, lines: v.lines, events: v.events.length, headHash: v.headHash, problems: v.problems }, null, 2) + '\n');
      } else if (v.ok) {
        process.stdout.write(`ok: ${v.lines} lines, ${v.events.length} events, chain intact; head ${v.headHash}\n`);
      } else {
        process.stdout.write(`BROKEN: ${printable(file)}\n` + v.problems.map((p) => `  line ${p.line}: ${p.kind}: ${printable(p.message)}\n`).join(''));
      }
      if (!v.ok) process.exitCode = EXIT.failed;
    });

  trace
    .command('show')
    .description('Print the call tree: each run_code call, its children in order with decision, duration and outcome.')
    .argument('<file>', 'trace file (.jsonl)')
    .option('--no-color', 'never colour the output')
    .option('--args-width <n>', 'longest argument preview', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 10) throw new CliError(`--args-width must be an integer >= 10, got ${v}`);
      return n;
    })
    .action((file: string, opts: { color?: boolean; argsWidth?: number }) => {
      const loaded = loadTrace(file);
      const v = loaded.verification;
      const head = !v
        ? 'plain session log (no hash chain: not verifiable)'
        : v.ok
          ? `chain intact (${v.lines} lines, head ${v.headHash.slice(0, 16)}…)`
          : `CHAIN BROKEN: ${v.problems.map((p) => `line ${p.line} ${p.kind}`).join('; ')}`;
      process.stderr.write(`${printable(basename(file))}: ${printable(head)}\n`);
      for (const u of loaded.unreadable) process.stderr.write(`  line ${u.line}: ${printable(u.problem)}\n`);
      const tree = buildCallTree(loaded.events);
      const text = renderTree(tree, { color: opts.color !== false && process.stdout.isTTY === true, ...(opts.argsWidth ? { argsWidth: opts.argsWidth } : {}) });
      process.stdout.write(text ? text + '\n' : '(no calls)\n');
      if (v && !v.ok) process.exitCode = EXIT.failed;
    });

  trace
    .command('html')
    .description('Write a self-contained HTML report: timeline (one lane per concurrent call, exclusive barriers, denials) and call tree.')
    .argument('<file>', 'trace file (.jsonl)')
    .requiredOption('-o, --output <report.html>', 'where to write the page')
    .action((file: string, opts: { output: string }) => {
      const loaded = loadTrace(file);
      const html = renderHtml(buildCallTree(loaded.events), { title: basename(file), ...(loaded.verification ? { verification: loaded.verification } : {}) });
      try {
        writeFileSync(opts.output, html);
      } catch (err) {
        throw new CliError(`cannot write ${opts.output}: ${(err as Error).message}`);
      }
      process.stderr.write(`wrote ${opts.output}\n`);
      if (loaded.verification && !loaded.verification.ok) process.exitCode = EXIT.failed;
    });
}
