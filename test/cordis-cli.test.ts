/** The CLI's `--tools` accepts a cordis-style plugin module (examples/plugin.ts) unchanged. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { captureCli } from './support/capture-cli.js';
import { loadToolsModule } from '../cli/load-tools.js';

const PLUGIN = fileURLToPath(new URL('../examples/plugin.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ptc-cordis-cli-'));

const capture = captureCli;

afterEach(() => vi.restoreAllMocks());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--tools with a cordis plugin module', () => {
  it('loads the plugin into a host whose tools run through the pipeline', async () => {
    const host = await loadToolsModule(PLUGIN);
    expect(host.schemas().map((s) => s.name)).toEqual(['word_count']);
    expect((await host.call({ id: '1', name: 'word_count', args: { text: 'a b c' } })).value).toEqual({ words: 3, lines: 1 });
    expect((await host.call({ id: '2', name: 'word_count', args: { text: 'x'.repeat(100_001) } })).denied?.by).toBe('guard');
  });

  it('ptc codegen prints the plugin tool\'s declaration', async () => {
    const r = await capture(['codegen', '--tools', PLUGIN]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('word_count');
    expect(r.err).toBe('');
  });

  it('a plugin whose apply throws is a one-line usage error naming it, with nothing on stdout', async () => {
    const bad = join(dir, 'bad-plugin.mjs');
    writeFileSync(bad, "export const name = 'bad-plugin';\nexport const inject = ['tools'];\nexport function apply() { throw new Error('no config'); }\n");
    const r = await capture(['codegen', '--tools', bad]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(`ptc: ${bad}: Cannot load tool plugin "bad-plugin": apply threw: no config\n`);
  });
});
