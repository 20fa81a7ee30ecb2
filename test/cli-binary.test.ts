/**
 * `ptc` as a real process (the project transpiled file for file): exit codes, stdout for data,
 * stderr for diagnostics, and the default isolation (supervised sandbox processes).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { transpileProject } from './support/transpile-project.js';

let cli = '';
const dir = mkdtempSync(join(tmpdir(), 'ptc-bin-'));
const ptcWith = (env: NodeJS.ProcessEnv, ...args: string[]) => {
  const r = spawnSync(process.execPath, ['--no-node-snapshot', cli, ...args], { encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const ptc = (...args: string[]) => ptcWith(process.env, ...args);

beforeAll(async () => {
  cli = (await transpileProject('cli-binary')).cli;
}, 60_000);

describe('when ptc runs as a process', () => {
  it('runs a bundled program in a sandbox process: result on stdout, logs on stderr, exit 0', () => {
    const trace = join(dir, 'over.jsonl');
    const r = ptc('run', 'examples/programs/over-budget.ts', '--trace', trace);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).map((x: { id: string }) => x.id)).toEqual(['u-103', 'u-304', 'u-202', 'u-101']);
    expect(r.err).toContain('│ checked 15 members');
    const verify = ptc('trace', 'verify', trace);
    expect(verify.code).toBe(0);
    expect(verify.out).toMatch(/^ok: /);
  });

  it('exits 1 when the program fails and 2 on a usage error, stdout empty but for --json and --model-view', () => {
    const bad = join(dir, 'bad.ts');
    writeFileSync(bad, 'return tools.nope({});\n');
    const failed = ptc('run', bad);
    expect(failed.code).toBe(1);
    expect(failed.out).toBe('');
    expect(failed.err).toMatch(/bad\.ts:1:\d+: /);
    const json = ptc('run', bad, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toEqual({
      rejected: 'The program was not run: fix these type errors and call run_code again.',
      reason: 'types',
      diagnostics: [{ line: 1, column: 14, message: "Property 'nope' does not exist on type 'Tools'. Available tools: budget_get, docs_read, docs_search, expense_flag, expenses_list, team_get, team_list." }],
    });
    const throws = join(dir, 'throws.ts');
    writeFileSync(throws, 'throw new Error("nope");\n');
    const view = ptc('run', throws, '--model-view');
    expect(view).toEqual({ code: 1, out: '"run_code" failed: The program threw at line 1: Error: nope\n', err: '' });
    const usage = ptc('run');
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/missing required argument 'script'/);
    expect(ptc('frobnicate').code).toBe(2);
  }, 120_000);

  it.runIf(process.platform === 'linux')('runs the compiled worker under the OS sandbox with --os-sandbox require, and refuses when bubblewrap is missing', () => {
    const r = ptc('run', 'examples/programs/manager-lookup.ts', '--json', '--os-sandbox', 'require');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ result: { manager: 'Lin Wei' }, stats: { osSandbox: 'bubblewrap' } });
    const refused = ptcWith({ ...process.env, PTC_BWRAP: '/nonexistent/bwrap' }, 'run', 'examples/programs/manager-lookup.ts', '--os-sandbox', 'require');
    expect(refused.code).toBe(2);
    expect(refused.out).toBe('');
    expect(refused.err).toMatch(/--os-sandbox: osSandbox is "require", but the OS sandbox \(bubblewrap\) cannot be used: bubblewrap is not installed \(no executable \/nonexistent\/bwrap\)/);
    const bogus = ptc('run', 'examples/programs/manager-lookup.ts', '--os-sandbox', 'maybe');
    expect(bogus.code).toBe(2);
    expect(bogus.err).toMatch(/--os-sandbox must be auto, require or off, got "maybe"/);
  });

  it('exits 1 when a tampered trace fails verification', () => {
    const trace = join(dir, 'lookup.jsonl');
    expect(ptc('run', 'examples/programs/manager-lookup.ts', '--trace', trace).code).toBe(0);
    const lines = readFileSync(trace, 'utf8').split('\n');
    lines.splice(3, 1);
    writeFileSync(trace, lines.join('\n'));
    const r = ptc('trace', 'verify', trace);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/line 4: deleted/);
  });
});
