/**
 * The static import graph of the sources, read with the TypeScript parser, so an import written
 * in a comment or a string never counts and `import type` is told apart from an import that
 * loads its module. Used by test/package-surface.test.ts (what each entry loads, the layer rules,
 * import cycles).
 *
 * Under `verbatimModuleSyntax` only `import type …` / `export type … from` are erased:
 * `import { type A } from 'x'` still loads `x`, so it counts as a load here too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One import of a file. `target` (repository-relative, `/`-separated) is set for a relative one. */
export interface ImportEdge {
  readonly spec: string;
  /** Erased from the built code: `import type` or `export type … from`. */
  readonly typeOnly: boolean;
  readonly target?: string;
}

const cache = new Map<string, readonly ImportEdge[]>();

/** A repository-relative path with `/` separators. */
export function repoPath(file: string): string {
  return relative(root, resolve(root, file)).split(sep).join('/');
}

/** Sources import their compiled names: `x.js` is `x.ts` (or a guest `x.js`), `x.cjs` is `x.cts`. */
function resolveSpec(from: string, spec: string): string {
  const base = resolve(root, dirname(from), spec);
  const candidates = spec.endsWith('.cjs') ? [base.replace(/\.cjs$/, '.cts')] : [base.replace(/\.js$/, '.ts'), base];
  return repoPath(candidates.find((c) => existsSync(c)) ?? candidates[0]!);
}

/** Every static and dynamic import (and `require`) of one file. */
export function importsOf(file: string): readonly ImportEdge[] {
  const key = repoPath(file);
  const known = cache.get(key);
  if (known) return known;
  const text = readFileSync(join(root, key), 'utf8');
  const source = ts.createSourceFile(key, text, ts.ScriptTarget.Latest, false, key.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const edges: ImportEdge[] = [];
  const add = (spec: string, typeOnly: boolean) => edges.push({ spec, typeOnly, ...(spec.startsWith('.') ? { target: resolveSpec(key, spec) } : {}) });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.importClause?.isTypeOnly === true);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      add(node.moduleReference.expression.text, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0]!)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0].text, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  cache.set(key, edges);
  return edges;
}

/** True for a test-only file: a test, a type test, a `test-support.ts`, or anything under `fixtures/`. */
export function isTestFile(path: string): boolean {
  return /\.test(-d)?\.ts$/.test(path) || /(^|\/)test-support\.ts$/.test(path) || /(^|\/)fixtures\//.test(path);
}

/** The TypeScript and JavaScript files under a folder (repository-relative), tests included. */
export function filesUnder(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const path = `${dir}/${name}`;
      if (statSync(join(root, path)).isDirectory()) {
        if (name !== 'node_modules') walk(path);
      } else if (/\.(ts|cts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  walk(folder);
  return out;
}

/**
 * The files an entry loads and the packages they import (each with the first file importing
 * it). With `types: false`, type-only imports are skipped: the graph of what runs.
 */
export function closure(entry: string, options: { readonly types: boolean }): { files: Set<string>; bare: Map<string, string> } {
  const files = new Set<string>();
  const bare = new Map<string, string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const edge of importsOf(file)) {
      if (edge.typeOnly && !options.types) continue;
      if (edge.target !== undefined) visit(edge.target);
      else if (!bare.has(edge.spec)) bare.set(edge.spec, file);
    }
  };
  visit(repoPath(entry));
  return { files, bare };
}

/** Every import cycle (a strongly connected component of two or more files, or a self-import) among `files`. */
export function importCycles(files: readonly string[]): string[][] {
  const inSet = new Set(files);
  const next = (file: string) => importsOf(file).flatMap((e) => (e.target !== undefined && inSet.has(e.target) ? [e.target] : []));
  // Tarjan's algorithm.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next(v).includes(v)) cycles.push(component.sort());
    }
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return cycles;
}
