#!/usr/bin/env -S node --no-node-snapshot
/**
 * The `ptc` command. Thin: parses flags with commander and calls the library. Data goes to
 * stdout, diagnostics to stderr. Exit codes: 0 ok, 1 the program or check failed, 2 usage or
 * input error.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { commands } from './commands/index.js';
import { visibleText } from '../tools/index.js';
import { CliError, EXIT, withoutSecrets } from './errors.js';
import { errorText } from '../tools/index.js';

function packageVersion(): string {
  // cli/main.ts sits one level below the package root, dist/cli/main.js two.
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'ptc-runtime' && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return 'unknown';
}

/** Builds the program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command('ptc')
    .description('Programmatic tool calling: run model-written TypeScript against your tools, in V8 isolates.')
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError()
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

/** Runs the CLI with `argv` (user arguments only); resolves to the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    if (CliError.isInstance(err)) {
      process.stderr.write(`ptc: ${visibleText(err.message, { newlines: 'keep' })}\n`);
      return (err as CliError).exitCode;
    }
    // Not one of ours: a tools module's code may have thrown it, so its text may quote a secret.
    process.stderr.write(`ptc: ${visibleText(withoutSecrets(err instanceof Error && typeof err.stack === 'string' ? err.stack : errorText(err)), { newlines: 'keep' })}\n`);
    return EXIT.failed;
  }
}

function invokedDirectly(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return pathToFileURL(realpathSync(entry)).href === import.meta.url;
  } catch {
    return false;
  }
}

const isMain = invokedDirectly();
if (isMain) {
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
