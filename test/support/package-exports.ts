/** The subpaths of package.json "exports" and the source file each one's build comes from. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './import-graph.js';

/** One subpath: its import name (`ptc-runtime/runtime`), its key (`./runtime`) and its source (`runtime/index.ts`). */
export interface Subpath {
  readonly key: string;
  readonly name: string;
  readonly source: string;
}

/** Every subpath with code behind it (not `./package.json`), in package.json order. */
export function packageSubpaths(): Subpath[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, string | { default: string }> };
  return Object.entries(pkg.exports).flatMap(([key, target]) =>
    typeof target === 'object'
      ? [{ key, name: key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`, source: target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts') }]
      : [],
  );
}
