/**
 * What `ptc run` prints with `--model-view` (exactly what a model reads of the run_code call)
 * and `--json` (the value, the rejection or the failure, always on stdout), for each way a run
 * ends, through the real CLI: `runCli` with the bundled example tools or a tools module.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelText } from '../tools/index.js';
import { buildSessionHost } from '../cli/session-host.js';
import { captureCli } from './support/capture-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-run-output-'));
const iso = ['--isolation', 'isolate'];
const script = (name: string, code: string) => {
  const p = join(dir, name);
  writeFileSync(p, code);
  return p;
};
const toolsIndex = JSON.stringify(resolve('tools/index.ts'));

const lookup = script('lookup.ts', 'const m = await tools.team_get({ id: "u-101" });\nconsole.log("found", m?.name);\nreturn { name: m?.name };\n');
const throws = script('throws.ts', 'await tools.team_get({ id: "u-100" });\nthrow new Error("nope");\n');
const typo = script('typo.ts', 'const n: string = await tools.team_get({ id: 42 }).then((m) => m?.name ?? "");\nreturn n;\n');
const syntax = script('syntax.ts', 'const a = 1;\nconst x = ;\n');
const noisy = script('noisy.ts', 'console.log("x".repeat(1_100_000));\nreturn 1;\n');
const big = script('big.ts', 'return Array.from({ length: 5000 }, (_, i) => ({ i, pad: "x".repeat(20) }));\n');
const refusingHost = script(
  'refusing-tools.ts',
  `import { defineTool, createToolHost } from ${toolsIndex};
   export function createHost(options) {
     const host = createToolHost(options);
     host.register(defineTool({ name: 'seven', description: 'Seven.', output: { schema: { type: 'number' } }, execute: () => 7 }));
     host.hooks.guard((e) => (e.toolName === 'run_code' ? 'programs are off today' : undefined));
     return host;
   }`,
);
const contextHost = script(
  'context-tools.ts',
  `import { defineTool, createToolHost } from ${toolsIndex};
   export function createHost(options) {
     const host = createToolHost(options);
     host.register(defineTool({ name: 'seven', description: 'Seven.', output: { schema: { type: 'number' } }, execute: () => 7 }));
     host.hooks.preExecute((e) => (e.toolName === 'run_code' ? { type: 'allow', additionalContext: 'Amounts are in cents.' } : undefined));
     return host;
   }`,
);
const seven = script('seven.ts', 'return await tools.seven();\n');

const FAILED = '"run_code" failed: The program threw at line 2: Error: nope\nTool calls (1): team_get: ok';
const TYPE_ERROR = "Type 'number' is not assignable to type 'string'.";
const LOG_LIMIT = '"run_code" failed: The run was stopped by the limit maxLogBytes=1048576: The program wrote more than maxLogBytes=1048576 bytes of console output and was stopped.';
const DENIED = 'The call to "run_code" was denied by the guard: programs are off today';

describe('ptc run --model-view: exactly what a model reads of the call', () => {
  it('prints the compact report of a run that returned: result, logs, call counts', async () => {
    const r = await captureCli(['run', lookup, '--model-view', ...iso]);
    expect(r).toEqual({ code: 0, out: 'result: {\n  "name": "Lin Wei"\n}\nlogs:\n  | found Lin Wei\ncalls: 1 (1 ok)\n', err: '' });
  });

  it('lists the calls that did not succeed, as the report does', async () => {
    const r = await captureCli(['run', 'examples/programs/guard-denial.ts', '--model-view', ...iso]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(
      [
        'result: {',
        '  "read": [',
        '    {',
        '      "docId": "doc-06",',
        '      "title": "Platform roadmap H1 2027",',
        '      "firstLine": "Themes: reliability first (retry budgets, load shedding), then a self-service deploy pipeline, then cost."',
        '    }',
        '  ],',
        '  "refused": [',
        '    {',
        '      "docId": "doc-07",',
        '      "reason": "Denied: the call to \\"docs_read\\" was denied by a guard: document doc-07 is classified confidential; reading it needs a human with clearance. This decision is final; do not retry or work around it."',
        '    }',
        '  ]',
        '}',
        'calls: 3 (2 ok, 1 denied)',
        '  docs_read: denied',
        '',
      ].join('\n'),
    );
    expect(r.err).toBe('');
  });

  it('prints the spill notice a model reads for output over maxOutputBytes, not the whole output', async () => {
    const r = await captureCli(['run', big, '--model-view', ...iso]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    const bytes = Buffer.byteLength(JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ i, pad: 'x'.repeat(20) }))));
    expect(r.out).toMatch(new RegExp(`^result: spilled \\(${bytes} bytes of JSON kept whole as spill_[A-Za-z0-9_-]{16}; only its start and end are shown\\)\\n  starts: \\[\\{"i":0,"pad":"x{20}"\\},.*\\n  ends: .*,\\{"i":4999,"pad":"x{20}"\\}\\]\\ncalls: 0\\n$`));
    expect(Buffer.byteLength(r.out) - 1).toBeLessThanOrEqual(16_384);
    // The same text the library hands a model for this program, but for the spill's random id.
    const session = await buildSessionHost({ isolation: 'isolate' });
    try {
      const direct = await session.host.call({ id: 'run-1', name: 'run_code', args: { code: readFileSync(big, 'utf8') } });
      const anyId = (text: string) => text.replace(/spill_[A-Za-z0-9_-]{16}/, 'spill_ID');
      expect(anyId(r.out)).toBe(anyId(`${modelText(direct)}\n`));
    } finally {
      await session.close();
    }
  });

  it('prints the error a model reads when the program throws, and exits 1', async () => {
    expect(await captureCli(['run', throws, '--model-view', ...iso])).toEqual({ code: 1, out: `${FAILED}\n`, err: '' });
  });

  it('prints the rejection a model reads for a type or a syntax error, and exits 1', async () => {
    expect(await captureCli(['run', typo, '--model-view', ...iso])).toEqual({
      code: 1,
      out: `The program was not run: fix these type errors and call run_code again.\n  line 1, column 42: ${TYPE_ERROR}\n`,
      err: '',
    });
    expect(await captureCli(['run', syntax, '--model-view', ...iso])).toEqual({
      code: 1,
      out: 'The program was not run: fix these syntax errors and call run_code again.\n  line 2, column 11: Expression expected.\n',
      err: '',
    });
  });

  it('prints the error naming the limit a run hit', async () => {
    expect(await captureCli(['run', noisy, '--model-view', ...iso])).toEqual({ code: 1, out: `${LOG_LIMIT}\n`, err: '' });
  });

  it('prints the denial a model reads when run_code itself is refused', async () => {
    expect(await captureCli(['run', seven, '--tools', refusingHost, '--model-view', ...iso])).toEqual({ code: 1, out: `${DENIED}\n`, err: '' });
  });

  it("adds a listener's additionalContext after the report, as a block of its own", async () => {
    expect(await captureCli(['run', seven, '--tools', contextHost, '--model-view', ...iso])).toEqual({ code: 0, out: 'result: 7\ncalls: 1 (1 ok)\n\nAmounts are in cents.\n', err: '' });
  });

  it('with --json, prints the content blocks themselves', async () => {
    const r = await captureCli(['run', seven, '--tools', contextHost, '--model-view', '--json', ...iso]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([
      { type: 'text', text: 'result: 7\ncalls: 1 (1 ok)' },
      { type: 'text', text: 'Amounts are in cents.' },
    ]);
    const failed = await captureCli(['run', throws, '--model-view', '--json', ...iso]);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.out)).toEqual([{ type: 'text', text: FAILED }]);
  });
});

describe('ptc run --json: the value or the error on stdout, in every case', () => {
  it('prints run_code value when the program returned, and exits 0', async () => {
    const r = await captureCli(['run', lookup, '--json', ...iso]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      result: { name: 'Lin Wei' },
      logs: ['found Lin Wei'],
      calls: [{ tool: 'team_get', status: 'ok', ms: expect.any(Number), settlement: 'completed' }],
      stats: expect.objectContaining({ calls: { total: 1, ok: 1, error: 0, denied: 0, refused: 0, interrupted: 0 }, osSandbox: 'none' }),
    });
    expect(r.err).toBe('│ found Lin Wei\n');
  });

  it('prints an output over maxOutputBytes whole, saying so on stderr', async () => {
    const r = await captureCli(['run', big, '--json', ...iso]);
    expect(r.code, r.err).toBe(0);
    expect((JSON.parse(r.out) as { result: unknown[] }).result).toHaveLength(5000);
    expect(r.err).toBe('ptc: output was over maxOutputBytes (a model would see a spill handle); printed whole\n');
  });

  it('prints the error, with how the run ended, when the program throws, and exits 1', async () => {
    const r = await captureCli(['run', throws, '--json', ...iso]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual({ error: { kind: 'execution', message: FAILED }, run: { outcome: 'thrown' } });
    expect(r.err).toBe(`ptc: ${FAILED}\n`);
  });

  it('prints the rejection with its reason and diagnostics for a type or a syntax error, and exits 1', async () => {
    const r = await captureCli(['run', typo, '--json', ...iso]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual({
      rejected: 'The program was not run: fix these type errors and call run_code again.',
      reason: 'types',
      diagnostics: [{ line: 1, column: 42, message: TYPE_ERROR }],
    });
    expect(r.err).toBe(`ptc: ${typo}:1:42: type error: ${TYPE_ERROR}\n`);
    const s = await captureCli(['run', syntax, '--json', ...iso]);
    expect(s.code).toBe(1);
    expect(JSON.parse(s.out)).toEqual({ rejected: 'The program was not run: fix these syntax errors and call run_code again.', reason: 'syntax', diagnostics: [{ line: 2, column: 11, message: 'Expression expected.' }] });
  });

  it('prints the error naming the limit, and the limit with its value, when a run hits one', async () => {
    const r = await captureCli(['run', noisy, '--json', ...iso]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual({ error: { kind: 'execution', message: LOG_LIMIT }, run: { outcome: 'limit', limit: { name: 'maxLogBytes', value: 1_048_576 } } });
  });

  it('prints the denial, who denied and why, when run_code itself is refused (no run started)', async () => {
    const r = await captureCli(['run', seven, '--tools', refusingHost, '--json', ...iso]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual({ error: { kind: 'denied', message: DENIED }, denied: { by: 'guard', reason: 'programs are off today', index: 0 } });
    expect(r.err).toBe(`ptc: ${DENIED}\n`);
  });

  it('prints nothing on stdout for a usage or input error (exit 2): there was no call', async () => {
    const r = await captureCli(['run', join(dir, 'none.ts'), '--json']);
    expect(r).toEqual({ code: 2, out: '', err: `ptc: cannot read ${join(dir, 'none.ts')}: no such file\n` });
  });
});
