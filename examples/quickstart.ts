import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolHost, decision, defineTool, type ToolEvent } from 'ptc-runtime';
import { createRunCodeTool } from 'ptc-runtime/runtime';

export async function quickstart() {
  const events: ToolEvent[] = [];
  const host = createToolHost({ onEvent: (e) => events.push(e) });
  const dir = await mkdtemp(join(tmpdir(), 'ptc-quickstart-'));
  await writeFile(join(dir, 'a.txt'), 'alpha');
  await writeFile(join(dir, 'b.txt'), 'bravo!');

  host.register(defineTool({
    name: 'read_file',
    description: 'Read a file from disk.', // the only explanation the model gets
    parameters: {
      path: { type: 'string', required: true, description: 'Absolute path' },
      limit: { type: 'number' }, // optional unless required: true
    },
    output: { schema: { type: 'string' } }, // the canonical value programs receive
    isConcurrencySafe: true, // reads may run side by side
    async execute(args, exec) { // args: { path: string; limit?: number }
      const text = await readFile(args.path, { encoding: 'utf8', signal: exec.signal });
      return args.limit === undefined ? text : text.slice(0, args.limit);
    },
  }));

  // Policy lives in hooks, not in tools. A guard can only deny: no listener order undoes it.
  host.hooks.guard((e) =>
    e.toolName === 'read_file' && !String((e.args as { path: string }).path).startsWith(dir) ? 'outside the workspace' : undefined,
  );
  host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.ask('deploys need a human') : undefined));

  // The model's call shape: a program, run in an isolate, every call back through the pipeline.
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 } });
  host.register(runCode);
  const code = `
    const files = ${JSON.stringify([join(dir, 'a.txt'), join(dir, 'b.txt'), '/etc/passwd'])};
    const lengths = await Promise.all(files.map(async (path) => {
      try { return (await tools.read_file({ path })).length; }
      catch (e) { return e instanceof ToolCallError ? e.message : 'failed'; }
    }));
    return lengths;`;
  const [result] = await host.runTurn([{ id: 'call_1', name: 'run_code', args: { code } }]);
  await runCode.close();
  return { result: result!, events };
}

if (process.argv[1]?.endsWith('quickstart.js')) {
  const { result } = await quickstart();
  console.log((result.content[0] as { text: string }).text);
}
