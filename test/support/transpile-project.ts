/**
 * A runnable copy of the project's sources for tests that spawn `ptc` as a real process (an MCP
 * client talking stdio to `ptc mcp serve`, exit codes of the binary): every source file
 * transpiled by esbuild, file for file, under node_modules/.cache so bare imports resolve from
 * the project's own node_modules. Much faster than a full `tsc` build.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';

const FOLDERS = ['tools', 'codegen', 'bridge', 'runtime', 'cli', 'mcp', 'examples', 'redis'];

function sources(dir: string, ext = '.ts'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'programs' || e.name === 'fixtures' || e.name === 'node_modules' ? [] : sources(p, ext);
    return e.name.endsWith(ext) && !e.name.endsWith(`.test${ext}`) && !e.name.endsWith('.test-d.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Transpiles the project into a folder named for the caller (one per test file, reused across runs); returns the CLI entry. */
export async function transpileProject(name: string): Promise<{ root: string; cli: string }> {
  const root = resolve('node_modules/.cache/ptc-test-build', name);
  rmSync(root, { recursive: true, force: true });
  await build({
    entryPoints: ['index.ts', ...FOLDERS.flatMap((f) => sources(f))],
    outdir: root,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    logLevel: 'silent',
  });
  // CommonJS sources (.cts, such as the codegen's re-export of TypeScript) stay CommonJS.
  await build({
    entryPoints: FOLDERS.flatMap((f) => sources(f, '.cts')),
    outdir: root,
    outbase: '.',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    bundle: false,
    outExtension: { '.js': '.cjs' },
    logLevel: 'silent',
  });
  // JavaScript sources (the isolate's guest) are loaded as they are: copied, as `npm run build` does.
  for (const file of FOLDERS.flatMap((f) => sources(f, '.js'))) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    copyFileSync(file, join(root, file));
  }
  return { root, cli: join(root, 'cli', 'main.js') };
}
