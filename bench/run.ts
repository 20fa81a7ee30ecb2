/**
 * `npm run bench [-- <name>...]`: runs every `*.bench.js` beside this file (after the build),
 * one child process each, so one benchmark's heap and JIT state never colour another's.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

let failed = 0;
for (const file of files) {
  process.stdout.write(`\n## ${file.replace(/\.bench\.js$/, '')}\n\n`);
  const child = spawnSync(process.execPath, ['--no-node-snapshot', '--expose-gc', join(here, file)], { stdio: 'inherit' });
  if (child.status !== 0) {
    failed++;
    process.stderr.write(`bench ${file} exited with ${child.status ?? child.signal}\n`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
