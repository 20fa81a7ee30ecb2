/**
 * `ptc codegen --tools <module> [--out file]`: writes the TypeScript declarations programs are
 * checked against (`ToolArgsMap`, `ToolOutputMap`, `tools`) for the tools a module exports.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { GeneratedToolTypes } from '../../codegen/index.js';
import { visibleText, type ToolHost } from '../../tools/index.js';
import { CliError } from '../errors.js';
import { loadToolsModule } from '../load-tools.js';
import { withReservedStdout } from '../stdout-guard.js';

/** The flags that say where the tools come from: a module, MCP servers, or both. */
export interface ToolSourceFlags {
  readonly tools?: string;
  readonly mcp?: string[];
  readonly mcpConfig?: string[];
}

/**
 * The tools of a module and of MCP servers (imported as `ptc mcp serve --mcp` and `ptc run
 * --mcp` import them), in a host; `close` stops the servers. Throws CliError without a source.
 */
export async function toolSourceHost(flags: ToolSourceFlags): Promise<{ host: ToolHost; label: string; close(): Promise<void> }> {
  const { mcpSpecs } = await import('../session-host.js');
  let specs;
  try {
    specs = await mcpSpecs(flags);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  if (!flags.tools && specs.length === 0) throw new CliError('give --tools <module>, --mcp <server> or --mcp-config <mcp.json>');
  const host = flags.tools ? await loadToolsModule(flags.tools) : (await import('../../tools/index.js')).createToolHost();
  if (specs.length === 0) return { host, label: flags.tools!, close: async () => {} };
  const { importMcpServers } = await import('../../mcp/index.js');
  let imported;
  try {
    imported = await importMcpServers(specs);
    imported.register(host);
  } catch (err) {
    await imported?.close();
    throw new CliError((err as Error).message);
  }
  for (const s of imported.skipped) process.stderr.write(`warning: MCP tool ${visibleText(`${s.server}.${s.tool}`)} not imported: ${visibleText(s.reason)}\n`);
  return { host, label: flags.tools ?? specs.map((s) => s.name).join(', '), close: () => imported.close() };
}

/** Tools left out unless `--include-run-code`: a program cannot call run_code itself, nor its companion spill_read. */
export const DEFAULT_EXCLUDED_TOOLS: readonly string[] = ['run_code', 'spill_read'];

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Generates declarations for a loaded host, turning codegen errors into one-line CLI errors. (The
 * codegen, which loads the TypeScript compiler, is imported here, not when the CLI starts.)
 */
export async function declarationsFor(host: ToolHost, exclude: readonly string[], toolsPath: string): Promise<GeneratedToolTypes> {
  const { CallableNameCollisionError, generateToolTypes } = await import('../../codegen/index.js');
  try {
    return generateToolTypes(host, { exclude });
  } catch (err) {
    if (CallableNameCollisionError.isInstance(err)) throw new CliError(`${toolsPath}: ${err.message}`);
    throw err;
  }
}

/** Registers `ptc codegen`. */
export function registerCodegen(program: Command): void {
  program
    .command('codegen')
    .description('Write the TypeScript declarations (ToolArgsMap, ToolOutputMap, tools) that programs are written and checked against.')
    .option('--tools <module>', 'module exporting the tools (a tools array, a host, or tools made with defineTool)')
    .option('--mcp <command line|url>', "also the tools of an MCP server (a command to run, or an http(s) url; \"name=...\" to name it); repeatable", collect)
    .option('--mcp-config <mcp.json>', 'also the servers of an mcp.json; repeatable', collect)
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .option('--exclude <tool>', 'leave a tool out (repeatable)', collect)
    .option('--include-run-code', 'keep run_code in the declarations (left out by default)')
    .addHelpText('after', '\nWarnings (parts typed as unknown) go to stderr. Exit codes: 0 ok, 2 usage or input error.')
    .action((opts: ToolSourceFlags & { out?: string; exclude?: string[]; includeRunCode?: boolean }) =>
      // The declarations are the only thing on stdout, whatever the tools module prints.
      withReservedStdout(async (stdout) => {
        const source = await toolSourceHost(opts);
        const exclude = [...(opts.includeRunCode ? [] : DEFAULT_EXCLUDED_TOOLS), ...(opts.exclude ?? [])];
        const generated = await declarationsFor(source.host, exclude, source.label).finally(() => source.close());
        for (const warning of generated.warnings) process.stderr.write(`warning: ${visibleText(warning)}\n`);
        if (opts.out === undefined) {
          stdout.write(generated.declarations);
          return;
        }
        try {
          writeFileSync(opts.out, generated.declarations);
        } catch (err) {
          throw new CliError(`cannot write ${opts.out}: ${(err as Error).message}`);
        }
        process.stderr.write(`wrote ${opts.out} (${generated.tools.length} tools)\n`);
      }),
    );
}
