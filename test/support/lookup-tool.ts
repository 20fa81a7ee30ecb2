/** The `lookup` tool the adapter tests share: the same schema and rendering, each test's own body. */
import { defineTool } from '../../tools/index.js';

/** What `lookup` returns. */
export interface LookupValue {
  q: string;
  hits: string[];
}

/** `limit` (default 2) numbered hits for `q`: `q-1`, `q-2`, … */
export function lookupHits(args: { q: string; limit?: number }): LookupValue {
  return { q: args.q, hits: Array.from({ length: args.limit ?? 2 }, (_, i) => `${args.q}-${i + 1}`) };
}

/** `lookup({ q, limit? })`, concurrency-safe, rendered as `lookup "q": hit, hit`, running `execute`. */
export function lookupTool(execute: (args: { q: string; limit?: number }) => LookupValue | Promise<LookupValue>) {
  return defineTool({
    name: 'lookup',
    description: 'Looks a term up.',
    parameters: { q: { type: 'string', required: true, description: 'The term' }, limit: { type: 'integer', minimum: 1 } },
    output: {
      schema: { type: 'object', properties: { q: { type: 'string', required: true }, hits: { type: 'array', items: { type: 'string' }, required: true } } },
      render: (_args, value) => `lookup "${value.q}": ${value.hits.join(', ')}`,
    },
    isConcurrencySafe: true,
    execute,
  });
}
