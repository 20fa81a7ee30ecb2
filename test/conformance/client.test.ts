/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, client scenarios)
 * against ptc's import client: the suite starts each scenario's server (and authorization
 * server) and runs test/conformance/client.mjs with its url; the client imports the server with
 * `importMcpServers` (OAuth on for the auth scenarios) and calls its tools through a host.
 * scripts/conformance.mjs installs the suite and its Node 22 on first use (see server.test.ts).
 *
 * Every client scenario the suite has is listed in SCENARIOS: in scope (must pass) or out of
 * scope with the reason. A scenario the suite adds that this list does not name fails the test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureConformanceSuite } from '../../scripts/conformance.mjs';
import { transpileProject } from '../support/transpile-project.js';

type Scenario = { readonly scope: 'in' } | { readonly scope: 'out'; readonly reason: string };

/** Every client scenario of the suite 0.1.16 (`conformance list --client`), with its scope. */
export const CLIENT_SCENARIOS: Readonly<Record<string, Scenario>> = {
  initialize: { scope: 'in' },
  tools_call: { scope: 'in' },
  'elicitation-sep1034-client-defaults': { scope: 'in' },
  'sse-retry': { scope: 'in' },
  'auth/metadata-default': { scope: 'in' },
  'auth/metadata-var1': { scope: 'in' },
  'auth/metadata-var2': { scope: 'in' },
  'auth/metadata-var3': { scope: 'in' },
  'auth/basic-cimd': { scope: 'in' },
  'auth/scope-from-www-authenticate': { scope: 'in' },
  'auth/scope-from-scopes-supported': { scope: 'in' },
  'auth/scope-omitted-when-undefined': { scope: 'in' },
  'auth/scope-step-up': { scope: 'in' },
  'auth/scope-retry-limit': { scope: 'in' },
  'auth/token-endpoint-auth-basic': { scope: 'in' },
  'auth/token-endpoint-auth-post': { scope: 'in' },
  'auth/token-endpoint-auth-none': { scope: 'in' },
  'auth/pre-registration': { scope: 'in' },
  'auth/2025-03-26-oauth-metadata-backcompat': { scope: 'in' },
  'auth/2025-03-26-oauth-endpoint-fallback': { scope: 'in' },
  'auth/resource-mismatch': { scope: 'in' },
  'auth/offline-access-scope': { scope: 'in' },
  'auth/offline-access-not-supported': { scope: 'in' },
  'auth/client-credentials-basic': { scope: 'in' },
  'auth/client-credentials-jwt': { scope: 'out', reason: 'client authentication with a signed JWT (private_key_jwt) is not offered: client credentials use a client secret' },
  'auth/cross-app-access-complete-flow': { scope: 'out', reason: 'cross-app access (an identity provider token exchanged for an authorization grant, SEP-990) is not offered' },
};

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
  readonly description?: string;
}

/** Checks per scenario, from the suite's output directory. */
const results = new Map<string, Check[]>();
const outputs = new Map<string, string>();
let listed: string[] = [];

/** Scenarios run at once (each is a suite process, its servers and a client process). */
const AT_ONCE = 4;
/** Run alone: it times the client's reconnection against the server's `retry` (500 ms, 200 ms late at most). */
const ALONE = ['sse-retry'];

function checksUnder(dir: string): string | undefined {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isFile() && e.name === 'checks.json') return p;
    if (e.isDirectory()) {
      const found = checksUnder(p);
      if (found) return found;
    }
  }
  return undefined;
}

beforeAll(async () => {
  const suite = await ensureConformanceSuite();
  const { root } = await transpileProject('conformance-client');
  const client = resolve('test/conformance/client.mjs');
  const run = (args: string[]) =>
    new Promise<string>((ok, fail) => {
      const p = spawn(suite.nodeBin, [suite.cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PTC_CONFORMANCE_ROOT: root } });
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      p.stderr.on('data', (c: Buffer) => (out += c.toString()));
      p.once('error', fail);
      p.once('exit', () => ok(out));
    });
  listed = [...(await run(['list', '--client'])).matchAll(/^\s+- ([\w/.-]+) \[/gm)].map((m) => m[1]!);
  const base = mkdtempSync(join(tmpdir(), 'ptc-conformance-client-'));
  // The suite splits the command on spaces (no quoting): the paths must have none.
  const command = `${process.execPath} ${client}`;
  const one = async (name: string) => {
    const out = join(base, name.replace(/\//g, '-'));
    // The suite exits non-zero when a check fails; its checks are read from the files.
    outputs.set(name, await run(['client', '--command', command, '--scenario', name, '--timeout', '90000', '-o', out]));
    const file = checksUnder(out);
    if (file) results.set(name, JSON.parse(readFileSync(file, 'utf8')) as Check[]);
  };
  const inScope = Object.entries(CLIENT_SCENARIOS).filter(([, s]) => s.scope === 'in').map(([name]) => name);
  for (const name of inScope.filter((n) => ALONE.includes(n))) await one(name);
  const queue = inScope.filter((n) => !ALONE.includes(n));
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) await one(name);
    }),
  );
}, 600_000);

describe('the official MCP conformance suite against the import client (importMcpServers)', () => {
  it('lists every client scenario the suite has, in scope or out with a reason', () => {
    expect(listed.length).toBeGreaterThan(20);
    expect(listed.filter((s) => !(s in CLIENT_SCENARIOS))).toEqual([]);
    expect(Object.keys(CLIENT_SCENARIOS).filter((s) => !listed.includes(s))).toEqual([]);
  });

  const inScope = Object.entries(CLIENT_SCENARIOS).filter(([, s]) => s.scope === 'in').map(([name]) => name);
  it.each(inScope)('passes %s', (name) => {
    const checks = results.get(name);
    expect(checks, `no result for ${name}:\n${outputs.get(name) ?? ''}`).toBeDefined();
    const failed = checks!.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    expect(failed.map((c) => `${c.id}: ${c.errorMessage ?? c.description ?? ''}`), outputs.get(name)?.slice(-4000)).toEqual([]);
    expect(checks!.some((c) => c.status === 'SUCCESS')).toBe(true);
  });
});
