/** The tools of the replay scenario, shared by the live replay test and the sample-log test. */
import { z } from 'zod';
import { defineTool } from '../tools/index.js';

export const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  parameters: { path: { type: 'string', required: true } },
  output: { schema: z.object({ text: z.string(), lines: z.number() }) },
  isConcurrencySafe: true,
  execute: (args) => ({ text: `contents of ${args.path}\nline 2`, lines: 2 }),
  presentResult: (args, value) => ({ card: 'read', phase: 'result', path: args.path, totalLines: value.lines, preview: value.text.split('\n')[0] }),
});

export const editFile = defineTool({
  name: 'edit_file',
  description: 'Edit a file.',
  parameters: { path: { type: 'string', required: true }, diff: { type: 'string', required: true } },
  execute: () => ({ ok: true }),
  presentCall: (args) => ({ card: 'edit', phase: 'pending', path: args.path, diff: args.diff }),
  presentResult: (args) => ({ card: 'edit', phase: 'result', path: args.path, diff: args.diff, applied: true }),
});

export const secrets = defineTool({
  name: 'get_secret',
  description: 'Read a secret.',
  parameters: { key: { type: 'string', required: true } },
  execute: (args) => `secret value of ${args.key}`,
});


/**
 * The key of the checked-in keyed trace sample (`ptc-trace-1-keyed.jsonl`). A test key, public by
 * being here: never key a real trace with it.
 */
export const SAMPLE_TRACE_KEY = 'ptc-runtime sample trace key: for tests only, never for real traces';
