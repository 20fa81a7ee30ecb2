/**
 * What `npm pack` publishes, from `npm pack --dry-run --json` over the built tree: the build of
 * every subpath, the CLI and the sandbox worker, and of the examples only what the CLI loads (its
 * default tools, examples/tools.ts and what that imports). Never a benchmark, a test, a fixture,
 * a test helper, a TypeScript source or an example that only the repository runs (the demo, the
 * framework walk-throughs): package.json "files" takes `dist` and leaves those out by name.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { closure, root } from './support/import-graph.js';
import { packageSubpaths } from './support/package-exports.js';

interface PackResult {
  readonly files: readonly { readonly path: string }[];
}

let published: string[] = [];

beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm ci does, through prepare)');
  // --ignore-scripts: list what the current build would publish, without building it again.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  published = (JSON.parse(out) as PackResult[])[0]!.files.map((f) => f.path).sort();
}, 60_000);

/** The built name of a source file: `examples/tools.ts` -> `dist/examples/tools.js`. */
const builtName = (source: string) => `dist/${source.replace(/\.ts$/, '.js')}`;

describe('the published package', () => {
  it('holds no benchmark, test, fixture, test helper or TypeScript source', () => {
    const unwanted = published.filter(
      (path) =>
        path.startsWith('dist/bench/') ||
        /^(bench|test|examples|tools|runtime|bridge|codegen|cli)\//.test(path) ||
        /\.test(-d)?\.(js|d\.ts)(\.map)?$/.test(path) ||
        /(^|\/)fixtures\//.test(path) ||
        /(^|\/)test-support\.(js|d\.ts)(\.map)?$/.test(path) ||
        (/\.(ts|cts|mts)$/.test(path) && !/\.d\.(ts|cts|mts)$/.test(path)),
    );
    expect(unwanted).toEqual([]);
  });

  it("holds of examples/ exactly what the CLI's default tools load", () => {
    const needed = [...closure('examples/tools.ts', { types: false }).files].filter((f) => f.startsWith('examples/')).map(builtName).sort();
    expect(needed).toContain('dist/examples/tools.js');
    expect(published.filter((path) => path.startsWith('dist/examples/') && path.endsWith('.js'))).toEqual(needed);
  });

  it('holds every subpath, the CLI binary, the sandbox worker and the guest code', () => {
    const required = [
      ...packageSubpaths().flatMap((s) => [builtName(s.source), builtName(s.source).replace(/\.js$/, '.d.ts')]),
      'dist/cli/main.js',
      'dist/runtime/sandbox-process/worker.js',
      ...readdirSync(join(root, 'runtime', 'isolate', 'guest')).filter((name) => name.endsWith('.js')).map((name) => `dist/runtime/isolate/guest/${name}`),
      'package.json',
      'README.md',
    ];
    expect(required.filter((path) => !published.includes(path))).toEqual([]);
  });
});
