/**
 * The guest is type-checked (its own tsconfig.json: ECMAScript only) and held to its key
 * invariant, every builtin captured before the program exists, by reading it with the
 * TypeScript checker. Outside intrinsics.js a guest file may not:
 * - name a global builtin (`JSON`, `Object`, `Promise`, `globalThis`, ...): the program can
 *   replace those bindings' properties before the guest uses them;
 * - call a method TypeScript does not place in the guest's own code (`s.slice(1)`,
 *   `x.toJSON()`): that looks the method up on a prototype the program can patch;
 * and inside a function (code that can run once the program exists) it may not use the
 * iteration protocol (`for...of`, spread, array destructuring: `Array.prototype[Symbol.iterator]`
 * is patchable) or `instanceof` with anything but a class of its own (`Error[Symbol.hasInstance]`
 * is definable). Top-level code runs at load, before any program, and may iterate.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const CAPTURE_FILE = 'intrinsics.js';

/** Type-checks the guest (plus `extra` files, name -> text) and lists what breaks the rules. */
function lintGuest(extra: Record<string, string> = {}): { diagnostics: string[]; violations: string[] } {
  const configPath = join(here, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!parsed) throw new Error('could not read the guest tsconfig.json');
  const extraPaths = Object.keys(extra).map((name) => join(here, name));
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (f) => extra[f.slice(here.length + 1)] ?? readFile(f);
  host.fileExists = (f) => extraPaths.includes(f) || fileExists(f);
  const program = ts.createProgram({ rootNames: [...parsed.fileNames, ...extraPaths], options: parsed.options, host });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.formatDiagnostic(d, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => here, getNewLine: () => '\n' }));
  const checker = program.getTypeChecker();
  const isLib = (decl: ts.Declaration) => program.isSourceFileDefaultLibrary(decl.getSourceFile());
  const violations: string[] = [];
  for (const sf of program.getSourceFiles()) {
    if (!sf.fileName.startsWith(here) || !sf.fileName.endsWith('.js') || sf.fileName.endsWith(`/${CAPTURE_FILE}`)) continue;
    const where = (node: ts.Node) => {
      const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
      return `${sf.fileName.slice(here.length + 1)}:${line + 1} ${node.getText(sf).slice(0, 60)}`;
    };
    const declarationsOf = (node: ts.Node) => checker.getSymbolAtLocation(node)?.declarations ?? [];
    const insideFunction = (node: ts.Node) => {
      for (let n = node.parent; n !== undefined; n = n.parent) if (ts.isFunctionLike(n)) return true;
      return false;
    };
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && isValueReference(node)) {
        const decls = ts.isShorthandPropertyAssignment(node.parent) ? (checker.getShorthandAssignmentValueSymbol(node.parent)?.declarations ?? []) : declarationsOf(node);
        if (decls.length > 0 && decls.every(isLib)) violations.push(`names the global ${node.text}: ${where(node)}`);
      }
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const callee = skipParentheses(node.expression);
        if (ts.isPropertyAccessExpression(callee)) {
          const decls = declarationsOf(callee.name);
          if (decls.length === 0 || decls.some(isLib)) violations.push(`calls a method through a prototype: ${where(node)}`);
        } else if (ts.isElementAccessExpression(callee)) violations.push(`calls a computed member: ${where(node)}`);
      }
      if (insideFunction(node)) {
        if (ts.isForOfStatement(node)) violations.push(`iterates with for...of: ${where(node)}`);
        if (ts.isSpreadElement(node)) violations.push(`spreads an iterable: ${where(node)}`);
        if (ts.isArrayBindingPattern(node)) violations.push(`destructures an array: ${where(node)}`);
        if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isArrayLiteralExpression(node.left)) violations.push(`destructures an array: ${where(node)}`);
        if (ts.isYieldExpression(node) && node.asteriskToken) violations.push(`delegates with yield*: ${where(node)}`);
        if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword) {
          const decls = declarationsOf(node.right);
          if (!(decls.length > 0 && decls.every((d) => ts.isClassDeclaration(d) && !isLib(d)))) violations.push(`uses instanceof with a builtin: ${where(node)}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { diagnostics, violations };
}

function skipParentheses(node: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(node)) node = node.expression;
  return node;
}

/** An identifier that reads a binding (not a property name, a declaration's name or a label). */
function isValueReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isShorthandPropertyAssignment(parent)) return true; // `{ x }` reads x
  // A declaration's or a property's own name (`const x`, `function f`, `a.b`, `{ b: 1 }`).
  if ('name' in parent && (parent as { name?: ts.Node }).name === node) return false;
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return false;
  return true;
}

describe('the guest source', () => {
  const { diagnostics, violations } = lintGuest();

  it('type-checks against ECMAScript alone and the host protocol', () => {
    expect(diagnostics).toEqual([]);
  });

  it('uses builtins only as intrinsics.js captured them before any program existed', () => {
    expect(violations).toEqual([]);
  });

  it('the check sees each kind of violation', () => {
    const bad = lintGuest({
      'bad.js': [
        '// @ts-check',
        '/** @param {any} x @param {string} s */',
        'function bad(x, s) {',
        '  JSON.stringify(x);',
        '  s.slice(1);',
        '  for (const y of x) ObjectKeys(y);',
        '  const [a] = x;',
        '  ObjectKeys([...x, a]);',
        '  ObjectKeys({ Math });',
        '  return x instanceof ErrorCtor;',
        '}',
      ].join('\n'),
    }).violations;
    expect(bad.map((v) => v.split(':')[0]).sort()).toEqual([
      'calls a method through a prototype',
      'calls a method through a prototype',
      'destructures an array',
      'iterates with for...of',
      'names the global JSON',
      'names the global Math',
      'spreads an iterable',
      'uses instanceof with a builtin',
    ]);
  });
});
