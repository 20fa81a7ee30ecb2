/** The programs shown in docs/ are real: they type-check against the example tools and run. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runExampleProgram } from '../examples/run-program.js';
import { captureCli } from './support/capture-cli.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function block(file: string, firstLine: string): string {
  const blocks = [...readFileSync(file, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const found = blocks.find((b) => b.startsWith(firstLine));
  if (!found) throw new Error(`${file}: no ts block starting with ${firstLine}`);
  return found;
}

describe('when the program from docs/cli.md is run', () => {
  const source = block('docs/cli.md', '// mine.ts');

  it('type-checks with ptc check', async () => {
    const p = join(mkdtempSync(join(tmpdir(), 'ptc-docs-')), 'mine.ts');
    writeFileSync(p, source);
    const r = await captureCli(['check', p, '--tools', 'examples/tools.ts']);
    expect(r.code, r.out + r.err).toBe(0);
  });

  it('runs through run_code and answers from the data', async () => {
    const run = await runExampleProgram(source, { runCode: { isolation: 'isolate' } });
    expect(run.result.isError, JSON.stringify(run.result.content)).toBe(false);
    const value = run.result.value as { result: { title: string; actions: number }[] };
    expect(value.result).toContainEqual({ title: 'Incident 2026-09-14: checkout latency spike', actions: 3 });
    expect(value.result).toContainEqual({ title: 'On-call handbook', actions: 0 });
  });
});
