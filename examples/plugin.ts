/**
 * Example: a tool plugin in the cordis style. It is an ordinary cordis plugin: `name`, `inject`
 * and `apply(ctx)`; the only ptc-runtime import is the path (`ptc-runtime/cordis` in a user's
 * project). Load it into a cordis app that has the `tools` service
 * (`ctx.plugin(ToolsService, { host })`, then `ctx.plugin(plugin)`), or from the CLI with
 * `--tools examples/plugin.ts`. Unloading it unregisters its tool and removes its guard.
 */
import type { Context } from 'cordis';
import { defineTool } from '../cordis/index.js';

export const name = 'word-count';
export const inject = ['tools'];

/** Registers `word_count` and a guard that refuses texts over 100 000 characters. */
export function apply(ctx: Context) {
  ctx.tools.register(
    defineTool({
      name: 'word_count',
      description: 'Count the words and lines of a text.',
      parameters: { text: { type: 'string', required: true, description: 'The text to count.' } },
      output: { schema: { type: 'object', properties: { words: { type: 'number', required: true }, lines: { type: 'number', required: true } } } },
      isConcurrencySafe: true,
      execute: (args) => ({ words: args.text.split(/\s+/).filter(Boolean).length, lines: args.text.split('\n').length }),
      presentResult: (_args, value) => ({ card: 'generic', phase: 'result', title: 'word_count', subtitle: `${value.words} words, ${value.lines} lines` }),
    }),
  );
  ctx.tools.hooks.guard((execution) => {
    const text = (execution.args as { text?: unknown }).text;
    return execution.toolName === 'word_count' && typeof text === 'string' && text.length > 100_000 ? 'text too long for word_count (max 100000 characters)' : undefined;
  });
}
