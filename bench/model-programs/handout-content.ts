/**
 * What the blind session of the model-program evaluation reads (docs/model-programs.md):
 * run_code's tools/list entry, taken from a real MCP client talking to the server `ptc mcp
 * serve` builds (the CLI's own session host, its defaults, the bundled example tools), and the
 * task prompts. The listing is read live, so it is whatever the current code describes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildSessionHost } from '../../cli/session-host.js';
import { createMcpServer } from '../../mcp/index.js';
import { programFileName, TASKS, type ModelTask } from './tasks.js';
import { EvalHarnessError } from './errors.js';

/** One tools/list entry, as the model receives it. */
export interface ListedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

/** run_code's entry in the tools/list of `ptc mcp serve` (stdio defaults) over the bundled example tools. */
export async function runCodeListing(): Promise<ListedTool> {
  const session = await buildSessionHost({ approve: 'no', isolation: 'process', osSandbox: 'auto', mcp: [], mcpConfig: [] });
  const server = createMcpServer({ host: session.host, runCodeName: session.runCode.name });
  const client = new Client({ name: 'ptc-eval-handout', version: '1.0.0' });
  try {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const { tools } = await client.listTools();
    const entry = tools.find((t) => t.name === session.runCode.name);
    if (!entry || entry.description === undefined) throw new EvalHarnessError(`tools/list has no ${session.runCode.name} with a description (it lists ${tools.map((t) => t.name).join(', ')})`);
    return { name: entry.name, description: entry.description, inputSchema: entry.inputSchema };
  } finally {
    await client.close();
    await server.close();
    await session.close();
  }
}

/** The task prompts as one Markdown file, each with the name of the file its program goes in. */
export function tasksHandout(tasks: readonly ModelTask[] = TASKS): string {
  const lines = [
    '# Tasks',
    '',
    `${tasks.length} tasks. For each, write one program for run_code (its \`code\` argument) and save it as the file named in the heading.`,
    '',
  ];
  for (const task of tasks) lines.push(`## ${programFileName(task)}`, '', task.prompt, '');
  return lines.join('\n');
}
