/**
 * `ptc check <script> --tools <module>`: type-checks a program (an async function body, or a
 * fenced / wrapped form run_code accepts) against the tools a module exports, the same check
 * run_code does before running it. Prints one line per diagnostic (`file:line:column - error
 * TS2322: message`); exits 1 when there is an error.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CodeDiagnostic } from '../../codegen/index.js';
import { visibleText } from '../../tools/index.js';
import { CliError, EXIT } from '../errors.js';
import { withReservedStdout } from '../stdout-guard.js';
import { declarationsFor, DEFAULT_EXCLUDED_TOOLS, toolSourceHost, type ToolSourceFlags } from './codegen.js';

function readScript(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(code === 'ENOENT' ? `cannot find script ${path}` : `cannot read script ${path}: ${(err as Error).message}`);
  }
}

/** One diagnostic in the usual compiler format; continuation lines indented. */
export function formatDiagnostic(file: string, d: CodeDiagnostic): string {
  const code = d.code > 0 ? ` TS${d.code}` : '';
  return `${file}:${d.line}:${d.column} - ${d.category}${code}: ${visibleText(d.message, { newlines: 'keep' }).replace(/\n/g, '\n    ')}`;
}

/** Registers `ptc check`. */
export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('Type-check a program against the tools a module exports, as run_code does before running it.')
    .argument('<script>', 'the program: an async function body (a markdown fence or an async () => { ... } wrapper is accepted)')
    .option('--tools <module>', 'module exporting the tools (a tools array, a host, or tools made with defineTool)')
    .option('--mcp <command line|url>', 'also the tools of an MCP server (a command to run, or an http(s) url); repeatable', (v: string, p: string[] = []) => [...p, v])
    .option('--mcp-config <mcp.json>', 'also the servers of an mcp.json; repeatable', (v: string, p: string[] = []) => [...p, v])
    .option('--json', 'print the result as JSON ({ ok, diagnostics })')
    .addHelpText('after', '\nExit codes: 0 no errors, 1 the program has type errors, 2 usage or input error.')
    .action((script: string, opts: ToolSourceFlags & { json?: boolean }) =>
      // The diagnostics (or the JSON) are the only thing on stdout, whatever the tools module prints.
      withReservedStdout(async (stdout) => {
        const code = readScript(script);
        const source = await toolSourceHost(opts);
        const generated = await declarationsFor(source.host, DEFAULT_EXCLUDED_TOOLS, source.label).finally(() => source.close());
        const { checkCode } = await import('../../codegen/index.js');
        const result = checkCode(code, generated);
        if (opts.json) {
          stdout.write(visibleText(JSON.stringify(result, null, 2), { newlines: 'keep' }) + '\n');
        } else {
          for (const d of result.diagnostics) stdout.write(formatDiagnostic(script, d) + '\n');
          const errors = result.diagnostics.filter((d) => d.category === 'error').length;
          process.stderr.write(result.ok ? `ok: ${script} type-checks against ${generated.tools.length} tools\n` : `${errors} error${errors === 1 ? '' : 's'} in ${script}\n`);
        }
        if (!result.ok) process.exitCode = EXIT.failed;
      }),
    );
}
