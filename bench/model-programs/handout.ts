/**
 * `npm run eval:handout -- <out-dir>`: writes what the blind model session is given
 * (docs/model-programs.md): run_code's description and input schema exactly as an MCP client
 * lists them from `ptc mcp serve` over the bundled example tools, and the task prompts.
 *
 * - `run_code.json`: the tools/list entry of run_code (`name`, `description`, `inputSchema`);
 * - `run_code.txt`: the same, readable: the description verbatim, then the input schema;
 * - `tasks.md`: the prompts, each with the file name its program goes in.
 *
 * Nothing here says how the programs are judged, and no reference program is included.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCodeListing, tasksHandout } from './handout-content.js';

const args = process.argv.slice(2);
if (args.length !== 1 || args[0]!.startsWith('-')) {
  process.stderr.write('usage: npm run eval:handout -- <out-dir>\n');
  process.exit(2);
}
const out = args[0]!;
mkdirSync(out, { recursive: true });
const entry = await runCodeListing();
writeFileSync(join(out, 'run_code.json'), `${JSON.stringify(entry, null, 2)}\n`);
writeFileSync(join(out, 'run_code.txt'), `${entry.description}\n\n--- input schema (JSON Schema) ---\n${JSON.stringify(entry.inputSchema, null, 2)}\n`);
writeFileSync(join(out, 'tasks.md'), tasksHandout());
process.stderr.write(`wrote ${join(out, 'run_code.json')}, run_code.txt and tasks.md (${entry.description.length} characters of description)\n`);
