/**
 * `normalizeProgram`: accepts the forms models actually write a program in and returns the async
 * function body that run_code runs and checkCode checks:
 * - a markdown fence (```` ```ts ... ``` ````), alone or with prose around exactly one fence
 *   (a fence inside a comment or a template literal of code that parses is part of that code);
 * - `async () => { ... }`, `async function main() { ... }` (with an optional trailing `main()` /
 *   `await main()` call), `(async () => { ... })()`, `export default async function ...`.
 * Anything else is taken as the body itself.
 *
 * Positions survive: the body keeps the model's lines and columns (the wrapper's text on the
 * body's first line becomes spaces, lines before it are dropped and counted in `lineOffset`), so
 * a diagnostic at body line L, column C is at line L + lineOffset, column C in the model's text.
 */
import ts from './typescript-module.cjs';

/** The body to run and where it starts in the model's text. */
export interface NormalizedProgram {
  /** The async function body. */
  readonly body: string;
  /** Lines of the model's text before the body's first line (body line L = model line L + lineOffset). */
  readonly lineOffset: number;
}

const FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+-]*)[^\n]*$/;

interface Slice {
  readonly text: string;
  readonly lineOffset: number;
}

const IN_TOKEN = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.MultiLineCommentTrivia,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
]);
/** Tokens after which `/` divides; anywhere else it starts a regular expression. */
const ENDS_EXPRESSION = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.BigIntLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
  ts.SyntaxKind.PlusPlusToken,
  ts.SyntaxKind.MinusMinusToken,
]);

/** True when offset `at` of `text` lies inside a comment, string, template or regular expression. */
function insideLiteralOrComment(text: string, at: number): boolean {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  // Open `${` of templates and `{` of blocks, so a `}` that resumes a template is rescanned as one.
  const braces: boolean[] = [];
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (scanner.getTokenStart() >= at) return false;
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !ENDS_EXPRESSION.has(previous)) kind = scanner.reScanSlashToken();
    if (kind === ts.SyntaxKind.CloseBraceToken && braces.at(-1) === true) kind = scanner.reScanTemplateToken(false);
    if (kind === ts.SyntaxKind.TemplateHead) braces.push(true);
    else if (kind === ts.SyntaxKind.OpenBraceToken) braces.push(false);
    else if (kind === ts.SyntaxKind.CloseBraceToken || kind === ts.SyntaxKind.TemplateTail) braces.pop();
    if (IN_TOKEN.has(kind) && scanner.getTokenEnd() > at) return true;
    if (kind !== ts.SyntaxKind.WhitespaceTrivia && kind !== ts.SyntaxKind.NewLineTrivia && kind !== ts.SyntaxKind.SingleLineCommentTrivia && kind !== ts.SyntaxKind.MultiLineCommentTrivia) previous = kind;
  }
  return false;
}

/** True when `text` parses as an async function body (no syntax errors). */
function parsesAsBody(text: string): boolean {
  try {
    const source = ts.createSourceFile('program.ts', `(async function () {\n${text}\n})`, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    return ((source as unknown as { parseDiagnostics?: readonly unknown[] }).parseDiagnostics?.length ?? 0) === 0;
  } catch {
    return false;
  }
}

function stripFence(code: string): Slice {
  const lines = code.split('\n');
  const opens: number[] = [];
  for (let i = 0; i < lines.length; i++) if (FENCE.test(lines[i]!.replace(/\r$/, ''))) opens.push(i);
  if (opens.length < 2) return { text: code, lineOffset: 0 };
  const start = opens[0]!;
  // Code that documents itself with a fenced example in a comment or a template literal is code,
  // not a fenced program: what the fence holds is not what the model meant to run.
  const fenceAt = lines.slice(0, start).reduce((n, line) => n + line.length + 1, 0);
  if (start > 0 && insideLiteralOrComment(code, fenceAt) && parsesAsBody(code)) return { text: code, lineOffset: 0 };
  const marker = FENCE.exec(lines[start]!.replace(/\r$/, ''))![1]!;
  // The fence closes on the next line made of the same marker (at least as long) and nothing else.
  let end = -1;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '').trim();
    if (line.startsWith(marker[0]!.repeat(marker.length)) && /^(`+|~+)$/.test(line)) {
      end = i;
      break;
    }
  }
  if (end < 0) return { text: code, lineOffset: 0 };
  // More than one fenced block: ambiguous, keep the text (the checker will say what is wrong).
  const rest = lines.slice(end + 1).some((line) => FENCE.test(line.replace(/\r$/, '')));
  if (rest) return { text: code, lineOffset: 0 };
  return { text: lines.slice(start + 1, end).join('\n'), lineOffset: start + 1 };
}

function lineCount(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function isEmptyAsyncFunction(node: ts.Node): node is ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration {
  if (!(ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node))) return false;
  if (node.parameters.length > 0 || node.typeParameters) return false;
  if (!node.body || !ts.isBlock(node.body)) return false;
  return (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Async) !== 0 || node.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword) === true;
}

function unparenthesize(node: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(node)) node = node.expression;
  return node;
}

/** `main()`, `await main()`, `void main()`, `main().catch(...)`: a call of the named wrapper. */
function callsWrapper(statement: ts.Statement, name: string): boolean {
  if (!ts.isExpressionStatement(statement)) return false;
  let expr = unparenthesize(statement.expression);
  if (ts.isAwaitExpression(expr) || ts.isVoidExpression(expr)) expr = unparenthesize(expr.expression);
  if (ts.isCallExpression(expr) && ts.isPropertyAccessExpression(expr.expression) && ts.isCallExpression(expr.expression.expression)) {
    const method = expr.expression.name.text;
    if (method === 'catch' || method === 'then' || method === 'finally') expr = expr.expression.expression;
  }
  return ts.isCallExpression(expr) && expr.arguments.length === 0 && ts.isIdentifier(expr.expression) && expr.expression.text === name;
}

/** The wrapped function, when the whole text is one of the accepted wrapper forms. */
function findWrapper(source: ts.SourceFile): ts.Block | undefined {
  const statements = source.statements;
  const first = statements[0];
  if (!first) return undefined;
  if (ts.isFunctionDeclaration(first) && isEmptyAsyncFunction(first) && first.name) {
    const name = first.name.text;
    const rest = statements.slice(1);
    if (rest.length === 0 || (rest.length === 1 && callsWrapper(rest[0]!, name))) return first.body;
    return undefined;
  }
  if (statements.length !== 1) return undefined;
  if (ts.isFunctionDeclaration(first) && isEmptyAsyncFunction(first)) return first.body; // export default async function () {}
  if (ts.isExportAssignment(first)) {
    const expr = unparenthesize(first.expression);
    return isEmptyAsyncFunction(expr) ? (expr.body as ts.Block) : undefined;
  }
  if (!ts.isExpressionStatement(first)) return undefined;
  let expr = unparenthesize(first.expression);
  if (ts.isAwaitExpression(expr) || ts.isVoidExpression(expr)) expr = unparenthesize(expr.expression);
  if (ts.isCallExpression(expr) && expr.arguments.length === 0) expr = unparenthesize(expr.expression); // IIFE
  return isEmptyAsyncFunction(expr) ? (expr.body as ts.Block) : undefined;
}

const WRAPPER_START = /^(?:export\s+default\s+|await\s+|void\s+)?\(*\s*async\b/;

/**
 * True when the text, after leading whitespace and comments, starts like a wrapper. A linear
 * scan: the text is hostile, and a regular expression with nested repetition over comments
 * backtracks exponentially on `/* *\/ /* *\/ ... x`.
 */
function startsLikeWrapper(text: string): boolean {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      if (end < 0) return false;
      i = end + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return false;
      i = end + 2;
    } else {
      return WRAPPER_START.test(text.slice(i, i + 200));
    }
  }
}

/**
 * True when {@link normalizeProgram} would parse this text with TypeScript (it looks fenced or
 * wrapped): about 1 ms per KB, synchronous. Anything else it returns as it is, at once. A host
 * that serves many programs normalizes long texts for which this is true off its own thread.
 */
export function normalizeNeedsParse(code: string): boolean {
  const text = String(code);
  let fences = 0;
  for (const line of text.split('\n')) if (FENCE.test(line.replace(/\r$/, '')) && ++fences >= 2) return true;
  return startsLikeWrapper(text);
}

/**
 * Normalizes a model-written program to an async function body (see the file note). Never
 * throws; text it does not recognise is returned as the body unchanged.
 */
export function normalizeProgram(code: string): NormalizedProgram {
  const fenced = stripFence(String(code));
  const text = fenced.text;
  if (!startsLikeWrapper(text)) return { body: text, lineOffset: fenced.lineOffset };
  let source: ts.SourceFile;
  let block: ts.Block | undefined;
  try {
    source = ts.createSourceFile('program.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    // A wrapper with syntax errors is not recognised: the body as written gives better diagnostics.
    if ((source as unknown as { parseDiagnostics?: readonly unknown[] }).parseDiagnostics?.length) {
      return { body: text, lineOffset: fenced.lineOffset };
    }
    block = findWrapper(source);
  } catch {
    return { body: text, lineOffset: fenced.lineOffset }; // nesting deep enough to exhaust the stack
  }
  if (!block) return { body: text, lineOffset: fenced.lineOffset };
  const open = block.getStart(source) + 1; // just after `{`
  const close = block.end - 1; // the `}`
  const lineStart = text.lastIndexOf('\n', open - 1) + 1;
  const body = ' '.repeat(open - lineStart) + text.slice(open, close);
  return { body, lineOffset: fenced.lineOffset + lineCount(text, open) };
}
