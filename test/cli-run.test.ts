import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyTrace } from '../tools/index.js';
import { captureCli } from './support/capture-cli.js';
import { approvalChannel } from '../cli/session-host.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-run-'));
const iso = ['--isolation', 'isolate'];
const script = (name: string, code: string) => {
  const p = join(dir, name);
  writeFileSync(p, code);
  return p;
};

describe('when running a program with the bundled example tools', () => {
  it('prints the result as JSON on stdout and the logs on stderr', async () => {
    const r = await captureCli(['run', 'examples/programs/over-budget.ts', ...iso]);
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out) as { id: string }[];
    expect(result.map((x) => x.id)).toEqual(['u-103', 'u-304', 'u-202', 'u-101']);
    expect(r.err).toContain('│ checked 15 members, 4 over budget in 2026-11');
  });

  it('prints the whole run_code value with --json', async () => {
    const r = await captureCli(['run', 'examples/programs/manager-lookup.ts', '--json', ...iso]);
    expect(JSON.parse(r.out)).toMatchObject({ result: { manager: 'Lin Wei' }, calls: [{ tool: 'team_get' }, { tool: 'team_get' }], stats: {} });
  });

  it('writes a trace that verifies and shows the run with its children', async () => {
    const trace = join(dir, 'guard.jsonl');
    const r = await captureCli(['run', 'examples/programs/guard-denial.ts', '--trace', trace, ...iso]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`trace written to ${trace}`);
    const text = readFileSync(trace, 'utf8');
    expect(verifyTrace(text).ok).toBe(true);
    expect(text).toContain('"type":"ptc/run-start"');
    const show = await captureCli(['trace', 'show', trace, '--no-color']);
    expect(show.out).toMatch(/^run_code run-1/);
    expect(show.out).toMatch(/docs_read .*"doc-07".*\n.*deny by guard #0: document doc-07 is classified confidential/);
    const again = await captureCli(['run', 'examples/programs/guard-denial.ts', '--trace', trace, ...iso]);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/already exists/);
  });

  it('fails closed on approval asks by default, and allows once each with --approve yes', async () => {
    const denied = await captureCli(['run', 'examples/programs/flag-large-expenses.ts', ...iso]);
    const d = JSON.parse(denied.out) as { candidates: number; flagged: string[]; notFlagged: { reason: string }[] };
    expect(d.flagged).toEqual([]);
    expect(d.notFlagged).toHaveLength(d.candidates);
    expect(d.notFlagged[0]!.reason).toMatch(/unavailable: no approval channel/);
    const allowed = await captureCli(['run', 'examples/programs/flag-large-expenses.ts', '--approve', 'yes', ...iso]);
    const a = JSON.parse(allowed.out) as { candidates: number; flagged: string[] };
    expect(a.flagged).toHaveLength(a.candidates);
    expect(allowed.err.match(/approved once \(--approve yes\): expense_flag/g)).toHaveLength(a.candidates);
  });
});

describe('when the output is over maxOutputBytes', () => {
  it('prints it whole: the spill protects a model context, not a terminal', async () => {
    const p = script('big.ts', 'console.log("many");\nreturn Array.from({ length: 5000 }, (_, i) => ({ i, pad: "x".repeat(20) }));\n');
    const r = await captureCli(['run', p, ...iso]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toHaveLength(5000);
    expect(r.err).toContain('printed whole');
  });
});

describe('when the program is wrong', () => {
  it('exits 1 with type errors as file:line:col diagnostics, without running it', async () => {
    const p = script('typo.ts', 'const m = await tools.team_get({ id: 42 });\nreturn m;\n');
    const r = await captureCli(['run', p, ...iso]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(new RegExp(`${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1:\\d+: .*number.*string`));
  });

  it('exits 1 with one line per syntax error, file:line:col first, saying it is one', async () => {
    const p = script('syntax.ts', 'const a = 1;\nconst x = ;\nreturn a;\n');
    const r = await captureCli(['run', p, ...iso]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(`ptc: ${p}:2:11: syntax error: Expression expected.\n`);
  });

  it('says a type error is one, in the same form, the further lines of a message indented', async () => {
    const p = script('typed.ts', 'const m: string = await tools.team_get({ id: 42 });\nreturn m;\n');
    const r = await captureCli(['run', p, ...iso]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    const member = `{ id: string; name: string; email: string; team: "platform" | "design" | "sales"; role: "engineer" | "lead" | "designer" | "account-exec" | "manager"; managerId: string | null; location: string; }`;
    expect(r.err).toBe(
      `ptc: ${p}:1:7: type error: Type '${member} | null' is not assignable to type 'string'.\n` +
        `      Type 'null' is not assignable to type 'string'.\n` +
        `ptc: ${p}:1:42: type error: Type 'number' is not assignable to type 'string'.\n`,
    );
  });

  it('exits 1 when the program throws, naming the line, as a ptc: error', async () => {
    const p = script('throws.ts', 'await tools.team_get({ id: "u-100" });\nthrow new Error("nope");\n');
    const r = await captureCli(['run', p, ...iso]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe('ptc: "run_code" failed: The program threw at line 2: Error: nope\nTool calls (1): team_get: ok\n');
  });
});

describe('when the input is wrong', () => {
  it('exits 2 for a missing script, a bad flag value or a missing tools module', async () => {
    expect((await captureCli(['run', join(dir, 'none.ts')])).err).toBe(`ptc: cannot read ${join(dir, 'none.ts')}: no such file\n`);
    const bad = await captureCli(['run', 'examples/programs/over-budget.ts', '--approve', 'maybe']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--approve must be yes, no or prompt, got "maybe"/);
    const noTools = await captureCli(['run', 'examples/programs/over-budget.ts', '--tools', join(dir, 'nope.ts')]);
    expect(noTools.code).toBe(2);
  });

  it('exits 2 for a bad mcp.json, naming the file', async () => {
    const cfg = script('mcp.json', '{"mcpServers":{"x":{"args":[]}}}');
    const r = await captureCli(['run', 'examples/programs/over-budget.ts', '--mcp-config', cfg, ...iso]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${cfg}: mcpServers.x.command`);
  });
});

describe('when a tools module of your own is given', () => {
  it('runs the program against it', async () => {
    const mod = script(
      'my-tools.ts',
      `import { defineTool } from ${JSON.stringify(resolve('tools/index.ts'))};
       export const tools = [defineTool({ name: 'double', description: 'Doubles n.', parameters: { n: { type: 'number', required: true } },
         output: { schema: { type: 'number' } }, isConcurrencySafe: true, execute: ({ n }) => n * 2 })];`,
    );
    const p = script('use.ts', 'const xs = await Promise.all([1, 2, 3].map((n) => tools.double({ n })));\nreturn xs.reduce((a, b) => a + b, 0);\n');
    const r = await captureCli(['run', p, '--tools', mod, ...iso]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toBe(12);
  });

  it('exits 2 naming where a syntax error in it is, in TypeScript and in JavaScript', async () => {
    const ts = script('broken-tools.ts', 'export const tools = [];\nconst x: number = ;\n');
    const js = script('broken-tools.mjs', 'export const tools = [];\n\nlet = = 1;\n');
    const a = await captureCli(['run', 'examples/programs/over-budget.ts', '--tools', ts, ...iso]);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/^ptc: cannot load .*broken-tools\.ts: .*broken-tools\.ts:2:19: Unexpected ";"\n$/);
    const b = await captureCli(['run', 'examples/programs/over-budget.ts', '--tools', js, ...iso]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/^ptc: cannot load .*broken-tools\.mjs: .*broken-tools\.mjs:3:\d+: /);
  });

  it('prints only the result on stdout, whatever the module and its tools print', async () => {
    const mod = script(
      'noisy-tools.ts',
      `import { defineTool } from ${JSON.stringify(resolve('tools/index.ts'))};
       console.log('loading noisy tools');
       export const tools = [defineTool({ name: 'noisy', description: 'Prints.', output: { schema: { type: 'string' } },
         execute: () => { console.log('noisy executing'); process.stdout.write('raw write\\n'); return 'done'; } })];`,
    );
    const p = script('use-noisy.ts', 'return await tools.noisy();\n');
    const r = await captureCli(['run', p, '--tools', mod, ...iso]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toBe('done');
    // (console.log is vitest's own in this process; the real binary's goes to stderr too: mcp-serve.test.ts.)
    expect(r.err).toContain('raw write');
  });

  it('exits 2 with one line when createHost throws or two of its tools share a name', async () => {
    const define = `import { defineTool, createToolHost } from ${JSON.stringify(resolve('tools/index.ts'))};\n`;
    const tool = `defineTool({ name: 'dupe', description: 'd', execute: () => 1 })`;
    const throwing = script('throwing-host.ts', `${define}export function createHost() { throw new Error('createHost exploded'); }\n`);
    const duplicate = script('duplicate-tools.ts', `${define}export const tools = [${tool}, ${tool}];\n`);
    const a = await captureCli(['run', 'examples/programs/over-budget.ts', '--tools', throwing, ...iso]);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/^ptc: .*throwing-host\.ts: createHost failed: createHost exploded\n$/);
    const b = await captureCli(['run', 'examples/programs/over-budget.ts', '--tools', duplicate, ...iso]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/^ptc: .*duplicate-tools\.ts: its tools could not be registered: ToolRegistrationError: .*"dupe".*\n$/);
  });

  it('never prints a secret from a module that fails to load: tokens, auth headers, secret assignments, secret env values', async () => {
    const thrower = script('secret-throws.mjs', "throw new Error('failed with Authorization: Bearer sk-SECRETVAL1234567890abcdef and API_KEY=SECRETVAL2');\n");
    const a = await captureCli(['run', 'examples/programs/over-budget.ts', '--tools', thrower, ...iso]);
    expect(a.code).toBe(2);
    expect(a.err).toBe(`ptc: cannot load ${thrower}: failed with Authorization: … and API_KEY=…\n`);
    const tsThrower = script('secret-throws.ts', "throw new Error('upstream said: Bearer sk-SECRETVAL999999999999');\nexport const tools = [];\n");
    const b = await captureCli(['run', 'examples/programs/over-budget.ts', '--tools', tsThrower, ...iso]);
    expect(b.err).toBe(`ptc: cannot load ${tsThrower}: upstream said: Bearer …\n`);
    process.env.PTC_CLIVIEW_TEST_PASSWORD = 'correct-horse-battery';
    try {
      const host = script('secret-host.mjs', 'export function createHost() { throw new Error(`login refused for ${process.env.PTC_CLIVIEW_TEST_PASSWORD} at db.internal`); }\n');
      const c = await captureCli(['run', 'examples/programs/over-budget.ts', '--tools', host, ...iso]);
      expect(c.code).toBe(2);
      expect(c.err).toBe(`ptc: ${host}: createHost failed: login refused for … at db.internal\n`);
    } finally {
      delete process.env.PTC_CLIVIEW_TEST_PASSWORD;
    }
  });

  it('accepts an async createHost', async () => {
    const mod = script(
      'async-host.ts',
      `import { defineTool, createToolHost } from ${JSON.stringify(resolve('tools/index.ts'))};
       export async function createHost(options) { const host = createToolHost(options);
         host.register(defineTool({ name: 'seven', description: 'Seven.', output: { schema: { type: 'number' } }, execute: () => 7 })); return host; }`,
    );
    const p = script('use-seven.ts', 'return await tools.seven();\n');
    const r = await captureCli(['run', p, '--tools', mod, ...iso]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toBe(7);
  });
});

describe('when MCP servers are imported with --mcp', () => {
  it('lets the program call their tools next to the example tools, under the same policy', async () => {
    const data = mkdtempSync(join(tmpdir(), 'ptc-run-mcp-'));
    writeFileSync(join(data, 'team.txt'), 'u-101\nu-203\n');
    const p = script(
      'mcp.ts',
      `const file = await tools.fs_read_text_file({ path: ${JSON.stringify(join(data, 'team.txt'))} });
       const ids = file.content.split('\\n').filter(Boolean);
       const people = await Promise.all(ids.map((id) => tools.team_get({ id })));
       const echoed = await tools.everything_echo({ message: people.map((m) => m?.name).join(' & ') });
       return echoed;`,
    );
    const r = await captureCli(['run', p, ...iso, '--mcp', `fs=${resolve('node_modules/.bin/mcp-server-filesystem')} ${data}`, '--mcp', `${resolve('node_modules/.bin/mcp-server-everything')} stdio`]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toBe('Echo: Lin Wei & Kofi Mensah');
  }, 60_000);

  it('exits 2 naming a server that does not start', async () => {
    const r = await captureCli(['run', 'examples/programs/manager-lookup.ts', ...iso, '--mcp', 'ghost=/nonexistent/mcp-ghost']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^ptc: MCP server "ghost" \(\/nonexistent\/mcp-ghost\) failed to start/);
  });
});

describe('when --approve prompt has no terminal to ask on', () => {
  it('denies: the ask fails closed', async () => {
    const channel = approvalChannel('prompt')!;
    const stdinTty = process.stdin.isTTY;
    Object.defineProperty(process.stdin, 'isTTY', { value: false, configurable: true });
    try {
      await expect(channel.request({ execution: { callId: 'c', toolName: 't', args: {}, origin: { kind: 'model' } }, reason: 'r', signal: new AbortController().signal })).rejects.toThrow(/no terminal/);
    } finally {
      Object.defineProperty(process.stdin, 'isTTY', { value: stdinTty, configurable: true });
    }
  });
});

describe('when asking for help', () => {
  it.each([[['--help']], [['run', '--help']], [['trace', '--help']], [['trace', 'show', '--help']], [['trace', 'verify', '--help']], [['trace', 'html', '--help']], [['mcp', '--help']], [['mcp', 'serve', '--help']]])(
    '%j prints usage and exits 0',
    async (argv) => {
      const r = await captureCli(argv);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^Usage: ptc/);
    },
  );
});
