#!/usr/bin/env node
// The official MCP conformance suite, installed on first use beside the project, never as a
// dependency: its CLI needs Node 22 and the npm package `node@22` would put a `node` bin ahead of
// the project's Node 20 in every npm script. So both go into node_modules/.cache/ptc-conformance/
// and the suite's CLI is always started with that directory's node binary, by path.
//
//   import { ensureConformanceSuite } from './scripts/conformance.mjs';
//   const { nodeBin, cliPath } = await ensureConformanceSuite();   // stable interface
//   node scripts/conformance.mjs server --url http://127.0.0.1:3000/mcp   // CLI: the suite's own args
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const CONFORMANCE_VERSION = '0.1.16';
export const NODE_PACKAGE = 'node@22';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the suite lives; PTC_CONFORMANCE_DIR overrides (e.g. a CI cache). */
export const CONFORMANCE_DIR = process.env.PTC_CONFORMANCE_DIR ?? join(ROOT, 'node_modules', '.cache', 'ptc-conformance');

function paths(dir) {
  return {
    nodeBin: join(dir, 'node_modules', 'node', 'bin', 'node'),
    cliPath: join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
    marker: join(dir, 'ready.json'),
  };
}

function installed(dir) {
  const p = paths(dir);
  if (!existsSync(p.marker) || !existsSync(p.nodeBin) || !existsSync(p.cliPath)) return undefined;
  try {
    const m = JSON.parse(readFileSync(p.marker, 'utf8'));
    if (m.conformance !== CONFORMANCE_VERSION) return undefined;
  } catch {
    return undefined;
  }
  return { nodeBin: p.nodeBin, cliPath: p.cliPath, dir };
}

/**
 * Installs (once) and returns the suite: `nodeBin`, a Node 22 binary, and `cliPath`, the suite's
 * CLI entry, to be run as `spawn(nodeBin, [cliPath, ...args])`. Concurrent callers (two test
 * files) each install into their own staging directory and the first rename wins.
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<{ nodeBin: string, cliPath: string, dir: string }>}
 */
export async function ensureConformanceSuite(options = {}) {
  const ready = installed(CONFORMANCE_DIR);
  if (ready) return ready;
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const staging = `${CONFORMANCE_DIR}.staging-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'ptc-conformance-cache', private: true }));
  log(`ptc conformance: installing ${NODE_PACKAGE} and @modelcontextprotocol/conformance@${CONFORMANCE_VERSION} into ${CONFORMANCE_DIR} (first use only)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  try {
    await run(npm, ['install', '--prefix', staging, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', NODE_PACKAGE, `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`], {
      cwd: staging,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 10 * 60_000,
    });
    const p = paths(staging);
    const { stdout } = await run(p.nodeBin, ['--version']);
    if (!/^v22\./.test(stdout.trim())) throw new Error(`ptc conformance: ${p.nodeBin} is ${stdout.trim()}, not Node 22`);
    if (!existsSync(p.cliPath)) throw new Error(`ptc conformance: the suite's CLI is missing at ${p.cliPath}`);
    writeFileSync(p.marker, JSON.stringify({ conformance: CONFORMANCE_VERSION, node: stdout.trim() }));
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  try {
    if (existsSync(CONFORMANCE_DIR) && !installed(CONFORMANCE_DIR)) rmSync(CONFORMANCE_DIR, { recursive: true, force: true });
    renameSync(staging, CONFORMANCE_DIR);
  } catch {
    // Another process got there first; use its copy.
    rmSync(staging, { recursive: true, force: true });
  }
  const done = installed(CONFORMANCE_DIR);
  if (!done) throw new Error(`ptc conformance: install into ${CONFORMANCE_DIR} did not complete`);
  return done;
}

// CLI: `node scripts/conformance.mjs <suite args>` installs if needed and runs the suite's CLI.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { nodeBin, cliPath } = await ensureConformanceSuite();
  const args = process.argv.slice(2);
  if (args.length === 0) {
    process.stdout.write(`${JSON.stringify({ nodeBin, cliPath })}\n`);
  } else {
    const child = spawn(nodeBin, [cliPath, ...args], { stdio: 'inherit' });
    child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
  }
}
