import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureCli } from './support/capture-cli.js';
import { generateToolTypes } from '../codegen/index.js';
import { fixtureTools } from '../codegen/fixtures/fixture-tools.js';

const fixture = (name: string) => fileURLToPath(new URL(`../codegen/fixtures/${name}`, import.meta.url));
const TOOLS = fixture('cli-tools-module.ts');
const dir = mkdtempSync(join(tmpdir(), 'ptc-codegen-'));

const capture = captureCli;

function script(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

afterEach(() => vi.restoreAllMocks());

describe('when running ptc codegen', () => {
  it('prints the declarations for the module\'s tools', async () => {
    const r = await capture(['codegen', '--tools', TOOLS]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(generateToolTypes(fixtureTools).declarations);
    // What the pipeline enforces is in the text the model reads.
    expect(r.out).toContain('         * Most results to return\n         * @integer\n         * @minimum 1\n         * @maximum 100\n         * @default 20\n         */\n        limit?: number;');
  });

  it('prints only the declarations on stdout, whatever the tools module writes there', async () => {
    const noisy = script('noisy-tools.ts', `process.stdout.write('loading noisy tools\\n');\nexport * from ${JSON.stringify(TOOLS)};\n`);
    const r = await capture(['codegen', '--tools', noisy]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(generateToolTypes(fixtureTools).declarations);
    expect(r.err).toContain('loading noisy tools');
  });

  it('writes them to --out and says so on stderr', async () => {
    const out = join(dir, 'tools.d.ts');
    const r = await capture(['codegen', '--tools', TOOLS, '--out', out]);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(generateToolTypes(fixtureTools).declarations);
    expect(r.err).toBe(`wrote ${out} (6 tools)\n`);
  });

  it('leaves out --exclude tools', async () => {
    const r = await capture(['codegen', '--tools', TOOLS, '--exclude', 'ping', '--exclude', 'read_file']);
    expect(r.out).toBe(generateToolTypes(fixtureTools, { exclude: ['ping', 'read_file'] }).declarations);
  });

  it('exits 2 with one line for a missing module, a module without tools, or colliding names', async () => {
    const missing = await capture(['codegen', '--tools', join(dir, 'nope.ts')]);
    expect([missing.code, missing.err]).toEqual([2, `ptc: cannot find module ${join(dir, 'nope.ts')}\n`]);
    const empty = await capture(['codegen', '--tools', fixture('no-tools-module.ts')]);
    expect(empty.code).toBe(2);
    expect(empty.err).toMatch(/^ptc: .*no-tools-module\.ts exports no tools .*\n$/);
    const colliding = await capture(['codegen', '--tools', fixture('colliding-tools-module.ts')]);
    expect(colliding.code).toBe(2);
    // Refused when the module's tools are registered, naming both.
    expect(colliding.err).toMatch(/^ptc: .*colliding-tools-module\.ts: its tools could not be registered: .*Cannot register tool "a-b": its program name tools\.a_b is already the program name of tool "a\.b".*\n$/);
  });

  it('exits 2 when --out cannot be written', async () => {
    const r = await capture(['codegen', '--tools', TOOLS, '--out', join(dir, 'no-such-dir', 'x.d.ts')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^ptc: cannot write .*x\.d\.ts: /);
  });
});

describe('when running ptc check', () => {
  it('exits 0 and prints nothing on stdout for a program that type-checks', async () => {
    const path = script('good.ts', "const w = await tools.get_weather({ city: 'Oslo' });\nreturn w.temperature;\n");
    const r = await capture(['check', path, '--tools', TOOLS]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toBe(`ok: ${path} type-checks against 6 tools\n`);
  });

  it('prints each diagnostic at the model\'s line and exits 1', async () => {
    const path = script('bad.ts', "```ts\nconst w = await tools.get_weather({ city: 1 });\nprocess.exit(0);\n```\n");
    const r = await capture(['check', path, '--tools', TOOLS]);
    expect(r.code).toBe(1);
    expect(r.out.split('\n').filter(Boolean)).toEqual([
      `${path}:2:37 - error TS2322: Type 'number' is not assignable to type 'string'.`,
      `${path}:3:1 - error TS2591: Cannot find name 'process': programs run in a sandbox without Node.js or browser APIs (no process, require, fetch or DOM). Reach the outside world only through \`tools\`.`,
    ]);
    expect(r.err).toBe(`2 errors in ${path}\n`);
  });

  it('prints JSON with --json', async () => {
    const path = script('json.ts', 'await tools.nope();');
    const r = await capture(['check', path, '--tools', TOOLS, '--json']);
    expect(r.code).toBe(1);
    const parsed = JSON.parse(r.out) as { ok: boolean; diagnostics: { line: number; code: number }[] };
    expect(parsed.ok).toBe(false);
    expect(parsed.diagnostics.map((d) => [d.line, d.code])).toEqual([[1, 2339]]);
  });

  it('exits 2 with one line for a missing or unreadable script', async () => {
    const missing = await capture(['check', join(dir, 'none.ts'), '--tools', TOOLS]);
    expect([missing.code, missing.err]).toEqual([2, `ptc: cannot find script ${join(dir, 'none.ts')}\n`]);
    const isDir = await capture(['check', dir, '--tools', TOOLS]);
    expect(isDir.code).toBe(2);
    expect(isDir.err).toMatch(/^ptc: cannot read script .*EISDIR.*\n$/);
    if (process.getuid?.() !== 0) {
      const locked = script('locked.ts', 'return 1;');
      chmodSync(locked, 0o000);
      const r = await capture(['check', locked, '--tools', TOOLS]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^ptc: cannot read script .*EACCES/);
    }
  });

  it('exits 2 when --tools is missing or has no tools', async () => {
    const path = script('x.ts', 'return 1;');
    expect((await capture(['check', path])).code).toBe(2);
    const empty = await capture(['check', path, '--tools', fixture('no-tools-module.ts')]);
    expect(empty.code).toBe(2);
    expect(empty.err.split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('when ptc codegen and ptc check are given MCP servers (--mcp)', () => {
  const everything = `ev=${join(process.cwd(), 'node_modules/.bin/mcp-server-everything')} stdio`;

  it("declares the servers' tools as run_code sees them: a tool without an outputSchema is a string", async () => {
    const r = await capture(['codegen', '--mcp', everything]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/"ev\.get-sum": string;/);
    expect(r.out).toMatch(/ev_get_sum\(/);
    expect(r.err).toMatch(/ev\.simulate-research-query not imported: it requires MCP tasks/);
  }, 60_000);

  it("checks a program against them: .split(' ') on such a tool's value type-checks, a number does not", async () => {
    const ok = await capture(['check', script('ok.ts', "return (await tools.ev_get_sum({ a: 1, b: 2 })).split(' ');"), '--mcp', everything]);
    expect(ok.code, ok.err).toBe(0);
    const bad = await capture(['check', script('bad.ts', 'const n: number = await tools.ev_get_sum({ a: 1, b: 2 }); return n;'), '--mcp', everything]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/'string' is not assignable to type 'number'/);
  }, 60_000);

  it('refuses to run without a source of tools', async () => {
    const r = await capture(['codegen']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/give --tools <module>, --mcp <server> or --mcp-config <mcp\.json>/);
  });
});
