/**
 * The public surface, pinned: every name each subpath of package.json "exports" exports, values
 * (from importing the subpath's source) and types (from the TypeScript compiler's view of the
 * same file), compared with test/fixtures/public-api.txt. Adding, removing or renaming an export
 * fails here until the list is regenerated (`npm run api:update`), so every change to what users
 * import is a line in a reviewed diff.
 *
 * Also pinned: which names tools/index.ts exports beyond the root (INTERNAL_TO_LAYERS), so a new
 * export of the tool model is a choice between public (the root) and internal, never a drift.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { root } from './support/import-graph.js';
import { packageSubpaths } from './support/package-exports.js';

const LIST = join(root, 'test', 'fixtures', 'public-api.txt');
const UPDATE = process.env.PTC_API_UPDATE === '1';

const HEADER = `# The public surface of ptc-runtime: each name each subpath of package.json "exports" exports,
# as "<import name> <value|type> <name>" (or "<import name> alias <import name>" for a subpath
# built from the same file as another). Checked by test/public-api.test.ts. After a deliberate
# change, regenerate with \`npm run api:update\` and review the diff: each line is a name users import.
`;

/** tools/index.ts exports these for the layers above it; the package root does not. */
const INTERNAL_TO_LAYERS: Readonly<Record<string, string>> = {
  callableNameOf: "a tool's program name, tools.<callable>: the registry refuses two tools with one (public from ./codegen)",
  checkContent: "checks a tool's or a server's content blocks (types, base64, sizes), naming what was wrong (mcp import)",
  REGISTERS_ITSELF: 'marks a tool its factory already registered, so registering it again is harmless (runtime/discovery)',
  subscribeAbort: 'one abort listener per signal, O(1) per subscriber (bridge, runtime)',
  parseArgsJson: "a program's call arguments, JSON text to a frozen value materialized once for its mode and its pipeline (bridge)",
  readableJson: 'JSON as text for a rendered result (runtime)',
  takeJsonText: "the JSON text a large result's sliced materialization made for a program (bridge)",
  visibleText: 'escapes control characters before a terminal or a log shows untrusted text (cli, codegen, mcp)',
  VisibleTextOptions: "visibleText's options",
  redactSecrets: 'hides what looks like a credential, and known secret values, in a message (mcp, cli)',
  redactUrl: 'a url for messages, without user info or query values (mcp)',
  secretEnvValues: "the values of an environment's secret-named variables, for redactSecrets (cli)",
  RedactOptions: "redactSecrets' options",
  redactResumeTokens: 'hides resume tokens in trace text no writer redacted, before a terminal shows it (cli)',
  DURABLE_CALL: "the call-options key a durable run's bridge sets on its children, and resume on run_code (runtime)",
  durableCallOf: 'reads that part of call options (runtime)',
  DurableCall: 'its shape',
  DurableCallOptions: 'call options with it',
  reportSuspension: "hands a suspension to an adapter's onSuspended and takes the token out of the result (adapters)",
  APPROVAL_BUDGET: "the call-options key a run's bridge sets on its children: its budget of approval waits (bridge)",
  ApprovalBudget: 'its shape',
  declareJsonSchema: "marks a zod schema as made from a host's JSON Schema, declared verbatim (codegen's jsonSchemaParameters)",
  sliceRing: "a page of an output ring kept elsewhere, as OutputRing.read pages its own (redis job store)",
  RESULT_TEXT_STREAM: "the call-options key a run's bridge sets for a sandbox process's stream of a large array result (bridge)",
  ResultTextStream: 'its shape (runtime: the sandbox process runner streams the parts)',
  ResultTextStreamOptions: 'call options with it',
};

/** The type-only names among them (no runtime value to find). */
const INTERNAL_TYPES: readonly string[] = ['VisibleTextOptions', 'RedactOptions', 'DurableCall', 'DurableCallOptions', 'ApprovalBudget', 'ResultTextStream', 'ResultTextStreamOptions'];

/** Case-insensitive, then exact: the order index.ts files list names in. */
const byName = (a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase(), 'en') || (a < b ? -1 : a > b ? 1 : 0);

/** Every exported name of each source file, by the TypeScript compiler (types and values alike). */
function compilerExports(sources: readonly string[]): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.json could not be read');
  // Only the package's own files: an export's name is all this needs, so no library is parsed.
  const program = ts.createProgram({
    rootNames: config.fileNames.filter((f) => !/\.test(-d)?\.ts$|\/test\/|\/bench\/|\/examples\//.test(f)),
    options: { ...config.options, noEmit: true, noResolve: true, noLib: true, types: [] },
  });
  const checker = program.getTypeChecker();
  return new Map(
    sources.map((source) => {
      const file = program.getSourceFile(join(root, source));
      const symbol = file && checker.getSymbolAtLocation(file);
      if (!symbol) throw new Error(`${source} is not a module the compiler sees`);
      return [source, checker.getExportsOfModule(symbol).map((s) => s.name).sort(byName)];
    }),
  );
}

/**
 * The surface as lines of the list, subpaths in package.json order, values before types. A
 * subpath built from the same file as an earlier one is listed once, as `<name> alias <earlier>`.
 */
async function currentSurface(): Promise<string[]> {
  const subpaths = packageSubpaths();
  const sources = [...new Set(subpaths.map((s) => s.source))];
  const all = compilerExports(sources);
  const lines: string[] = [];
  const seen = new Map<string, string>();
  for (const { name, source } of subpaths) {
    const earlier = seen.get(source);
    if (earlier !== undefined) {
      lines.push(`${name} alias ${earlier}`);
      continue;
    }
    seen.set(source, name);
    const values = Object.keys((await import(join(root, source))) as object).sort(byName);
    const types = all.get(source)!.filter((n) => !values.includes(n));
    const unseen = values.filter((n) => !all.get(source)!.includes(n));
    if (unseen.length > 0) throw new Error(`${source}: the compiler does not see ${unseen.join(', ')}`);
    lines.push(...values.map((n) => `${name} value ${n}`), ...types.map((n) => `${name} type ${n}`));
  }
  return lines;
}

function readList(): string[] {
  let text: string;
  try {
    text = readFileSync(LIST, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('the public surface', () => {
  it('is the checked-in list, test/fixtures/public-api.txt', { timeout: 60_000 }, async () => {
    const current = await currentSurface();
    if (UPDATE) writeFileSync(LIST, `${HEADER}${current.join('\n')}\n`);
    const pinned = readList();
    const added = current.filter((line) => !pinned.includes(line));
    const removed = pinned.filter((line) => !current.includes(line));
    const message = [
      'The public surface changed. If that is intended, run `npm run api:update` and commit test/fixtures/public-api.txt.',
      ...(added.length > 0 ? ['Exported, not in the list:', ...added.map((line) => `  + ${line}`)] : []),
      ...(removed.length > 0 ? ['In the list, no longer exported:', ...removed.map((line) => `  - ${line}`)] : []),
    ].join('\n');
    expect({ added, removed }, message).toEqual({ added: [], removed: [] });
    expect(current, 'same names, another order: run `npm run api:update`').toEqual(pinned);
  });

  it('ptc-runtime/tools is the package root itself, and ./bridge is not a subpath', () => {
    const subpaths = packageSubpaths();
    expect(subpaths.find((s) => s.key === './tools')?.source).toBe('index.ts');
    expect(subpaths.map((s) => s.key)).not.toContain('./bridge');
  });

  it('tools/index.ts exports the root, plus the named internal helpers only', async () => {
    const rootNames = compilerExports(['index.ts', 'tools/index.ts']);
    const extra = rootNames.get('tools/index.ts')!.filter((n) => !rootNames.get('index.ts')!.includes(n));
    expect(extra).toEqual(Object.keys(INTERNAL_TO_LAYERS).sort(byName));
    const internalValues = Object.keys((await import('../tools/index.js')) as object).filter((n) => n in INTERNAL_TO_LAYERS);
    expect(internalValues.sort(byName)).toEqual(Object.keys(INTERNAL_TO_LAYERS).filter((n) => !INTERNAL_TYPES.includes(n)).sort(byName));
  });
});
