import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import type { Tool } from './tool-types.js';

describe('defineTool types', () => {
  it('infers { path: string; limit?: number } for the DESIGN example', () => {
    defineTool({
      name: 'read_file',
      description: 'Read a file from disk.',
      parameters: {
        path: { type: 'string', required: true, description: 'Absolute path' },
        limit: { type: 'number' },
      },
      output: { schema: { type: 'string' } },
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ path: string; limit?: number }>();
        return args.path;
      },
    });
  });

  it('makes defaulted fields present inside execute and optional for callers', () => {
    const tool = defineTool({
      name: 't',
      description: 'd',
      parameters: { n: { type: 'integer', default: 3 }, mode: { type: 'string', enum: ['a', 'b'], required: true } },
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ n: number; mode: 'a' | 'b' }>();
        return null;
      },
    });
    expectTypeOf(tool).toExtend<Tool<{ n: number; mode: 'a' | 'b' }, unknown, { n?: number; mode: 'a' | 'b' }>>();
  });

  it('infers nested objects, arrays and nullable', () => {
    defineTool({
      name: 't',
      description: 'd',
      parameters: {
        tags: { type: 'array', items: { type: 'string' }, required: true },
        filter: { type: 'object', properties: { since: { type: 'string', nullable: true, required: true } } },
      },
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ tags: string[]; filter?: { since: string | null } }>();
        return null;
      },
    });
  });

  it('types the output value from the output schema', () => {
    defineTool({
      name: 't',
      description: 'd',
      output: { schema: { type: 'object', properties: { total: { type: 'number', required: true } } } },
      // @ts-expect-error a string is not { total: number }
      execute: () => 'nope',
    });
    defineTool({
      name: 't',
      description: 'd',
      parameters: z.object({ q: z.string() }),
      output: { schema: z.object({ hits: z.array(z.string()) }), render: (_args, value) => value.hits.join('\n') },
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ q: string }>();
        return { hits: [args.q] };
      },
    });
  });
});
