/**
 * One error model across the package: every error class a user can import carries the
 * package's brand (`Symbol.for('ptc-runtime.error')` through `PtcError`, and a static
 * `isInstance`), option validation throws a named `InvalidOptionError` in every subpath, and
 * "error to text" is written once (`errorText`), never by hand.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import { CallScheduler, createToolHost, InvalidOptionError, PtcError } from '../tools/index.js';
import { createRunCodeTool, createSpillStore, RunLimitsError, TypecheckLimitsError } from '../runtime/index.js';
import { ToolsService } from '../cordis/index.js';
import { otelEventSink } from '../otel/index.js';
import { toAiSdkTools } from '../ai-sdk/index.js';
import { toAgentsTools } from '../openai-agents/index.js';
import { toAnthropicTools } from '../anthropic/index.js';
import { packageSubpaths } from './support/package-exports.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Each subpath of package.json "exports" and the source file its build comes from. */
const subpaths = packageSubpaths().map((s) => [s.key, s.source] as const);

function isErrorClass(value: unknown): value is abstract new (...args: never[]) => Error {
  return typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof Error;
}

describe('every error class a subpath exports', () => {
  it('finds the subpaths and their error classes', () => {
    expect(subpaths.map(([s]) => s)).toEqual(expect.arrayContaining(['.', './tools', './runtime', './codegen', './mcp', './cordis']));
  });

  it.each(subpaths)('%s: every exported error class carries the brand and isInstance', async (_subpath, file) => {
    const mod = (await import(join(root, file))) as Record<string, unknown>;
    const classes = Object.entries(mod).filter(([, value]) => isErrorClass(value));
    const unbranded = classes
      .filter(([, value]) => value !== PtcError && !Object.prototype.isPrototypeOf.call(PtcError, value as object))
      .map(([name]) => name);
    expect(unbranded).toEqual([]);
    for (const [, value] of classes) expect(typeof (value as { isInstance?: unknown }).isInstance).toBe('function');
  });
});

describe('an option out of range, in every subpath that takes options', () => {
  const cases: [string, () => unknown, string][] = [
    ['createToolHost maxConcurrency', () => createToolHost({ maxConcurrency: 0 }), 'maxConcurrency'],
    ['createToolHost approvalTimeoutMs', () => createToolHost({ approvalTimeoutMs: -1 }), 'approvalTimeoutMs'],
    ['createToolHost jobs.outputBytes', () => createToolHost({ jobs: { outputBytes: 0 } }), 'jobs.outputBytes'],
    ['CallScheduler maxConcurrency', () => new CallScheduler(1.5), 'maxConcurrency'],
    ['createRunCodeTool limits', () => createRunCodeTool({ limits: { cpuMs: 0 } }), 'limits.cpuMs'],
    ['createRunCodeTool an unknown limit', () => createRunCodeTool({ limits: { cpu: 1 } as never }), 'limits.cpu'],
    ['createRunCodeTool isolation', () => createRunCodeTool({ isolation: 'vm' as never }), 'isolation'],
    ['createRunCodeTool typecheck', () => createRunCodeTool({ typecheck: 'strict' as never }), 'typecheck'],
    ['createRunCodeTool capacity', () => createRunCodeTool({ capacity: { maxProcesses: 0 } }), 'capacity.maxProcesses'],
    ['createRunCodeTool discovery', () => createRunCodeTool({ discovery: 'lazy' as never }), 'discovery'],
    ['createRunCodeTool descriptionBudget', () => createRunCodeTool({ descriptionBudget: { maxTokens: 1 } }), 'descriptionBudget.maxTokens'],
    ['createRunCodeTool typecheckLimits', () => createRunCodeTool({ typecheckLimits: { timeMs: 0 } }), 'typecheckLimits.timeMs'],
    ['createRunCodeTool spillRead', () => createRunCodeTool({ spillRead: 'yes' as never }), 'spillRead'],
    ['createSpillStore ttlMs', () => createSpillStore({ ttlMs: 0 }), 'ttlMs'],
    ['cordis ToolsService config.host', () => new ToolsService(new Context(), { host: 5 as never }), 'config.host'],
    ['otelEventSink maxOpenSpans', () => otelEventSink({ maxOpenSpans: 0 }), 'maxOpenSpans'],
    ['otelEventSink tracer', () => otelEventSink({ tracer: {} as never }), 'options.tracer'],
    ['toAiSdkTools approval', () => toAiSdkTools(createToolHost(), { approval: 'auto' as never }), 'approval'],
    ['toAgentsTools programmaticCallers', () => toAgentsTools(createToolHost(), { programmaticCallers: 'yes' as never }), 'programmaticCallers'],
    ['toAnthropicTools providerCodeExecution', () => toAnthropicTools(createToolHost(), { providerCodeExecution: 'direct' as never }), 'providerCodeExecution'],
  ];

  it.each(cases)('%s throws an InvalidOptionError naming the option, the value and what is expected', (_label, make, option) => {
    let thrown: unknown;
    try {
      make();
    } catch (err) {
      thrown = err;
    }
    expect(InvalidOptionError.isInstance(thrown) || thrown instanceof InvalidOptionError).toBe(true);
    const err = thrown as InvalidOptionError;
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(PtcError.isInstance(err)).toBe(true);
    expect(err.option).toBe(option);
    expect(err.expected).toEqual(expect.any(String));
    expect(err.message).toContain(`${option} must be ${err.expected}, got `);
  });

  it('keeps the limit errors as named subclasses', () => {
    expect(() => createRunCodeTool({ limits: { wallMs: -5 } })).toThrow(RunLimitsError);
    expect(() => createRunCodeTool({ typecheckLimits: { memoryMb: 1 } })).toThrow(TypecheckLimitsError);
    expect(RunLimitsError.isInstance(captured(() => createRunCodeTool({ limits: { wallMs: -5 } })))).toBe(true);
  });
});

describe('error to text', () => {
  // `x instanceof Error ? x.message : String(x)` and `(x as Error)?.message ?? String(x)` throw on
  // a null-prototype object (or a throwing toString): errorText is the one safe way.
  const HAND_WRITTEN = /String\((err|e|error|reason|first|cause|thrown)\)/;
  // Every folder a subpath is built from, the layers under them, and the CLI and examples.
  const folders = [...new Set([...subpaths.map(([, file]) => file.split('/')[0]!).filter((f) => !f.endsWith('.ts')), 'tools', 'bridge', 'cli', 'examples'])];

  it('is written once, in tools/errors.ts', () => {
    expect(folders).toEqual(expect.arrayContaining(['tools', 'bridge', 'runtime', 'codegen', 'mcp', 'cordis', 'cli', 'examples']));
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) {
          if (name !== 'fixtures' && name !== 'node_modules') walk(path);
        } else if (/\.ts$/.test(name) && !/\.test(-d)?\.ts$/.test(name) && !/-source\.ts$/.test(name)) {
          // Guest sources (`*-source.ts`) run inside the isolate, where errorText does not exist.
          readFileSync(path, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (HAND_WRITTEN.test(line) && relative(root, path) !== join('tools', 'errors.ts')) offenders.push(`${relative(root, path)}:${i + 1}`);
            });
        }
      }
    };
    for (const folder of folders) walk(join(root, folder));
    expect(offenders).toEqual([]);
  });
});

function captured(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}
