import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../tool-types.js';
import { ToolDefinitionError } from '../errors.js';
import { createJobTools } from '../jobs/job-tools.js';
import { cardSchema } from './card-schema.js';

const editTool = defineTool({
  name: 'edit_file',
  description: 'Replace text in a file.',
  parameters: {
    path: { type: 'string', required: true },
    old: { type: 'string', required: true },
    new: { type: 'string', required: true },
    dryRun: { type: 'boolean', default: false },
  },
  output: { schema: z.object({ replaced: z.number().int() }) },
  execute: () => ({ replaced: 1 }),
  presentCall: (args) => ({ card: 'edit', phase: 'pending', path: args.path, diff: `-${args.old}\n+${args.new}` }),
  presentResult: (args, value) => ({ card: 'edit', phase: 'result', path: args.path, diff: `-${args.old}\n+${args.new}`, applied: value.replaced > 0 && !args.dryRun }),
});

function toolWith(presenters: { presentCall?: (args: never) => unknown; presentResult?: (args: never, value: never) => unknown }): Tool {
  return defineTool({
    name: 'probe',
    description: 'A probe.',
    parameters: { path: { type: 'string', required: true } },
    output: { schema: { type: 'string' } },
    execute: () => 'x',
    ...(presenters as object),
  });
}

describe('presenters wrapped by defineTool', () => {
  it('give the card for valid args, with defaults applied, frozen', () => {
    const card = editTool.presentCall!({ path: '/a.ts', old: 'x', new: 'y' });
    expect(card).toEqual({ card: 'edit', phase: 'pending', path: '/a.ts', diff: '-x\n+y' });
    expect(Object.isFrozen(card)).toBe(true);
    expect(editTool.presentResult!({ path: '/a.ts', old: 'x', new: 'y' }, { replaced: 1 })).toMatchObject({ applied: true });
    expect(editTool.presentResult!({ path: '/a.ts', old: 'x', new: 'y', dryRun: true }, { replaced: 1 })).toMatchObject({ applied: false });
  });

  it('are absent on a tool that has none, so the UI shows the generic card', () => {
    expect(toolWith({}).presentCall).toBeUndefined();
    expect(toolWith({}).presentResult).toBeUndefined();
  });

  describe('when args are from an old log or malformed', () => {
    it.each([
      ['a missing required field', { path: '/a' }],
      ['a renamed field (old format)', { file: '/a', old: 'x', new: 'y' }],
      ['a wrong type', { path: 42, old: 'x', new: 'y' }],
      ['null', null],
      ['a string', 'edit /a'],
      ['an array', [1, 2]],
    ])('returns undefined for %s', (_what, args) => {
      expect(editTool.presentCall!(args)).toBeUndefined();
      expect(editTool.presentResult!(args, { replaced: 1 })).toBeUndefined();
    });

    it('returns undefined for a value in an old shape', () => {
      expect(editTool.presentResult!({ path: '/a', old: 'x', new: 'y' }, { count: 1 })).toBeUndefined();
      expect(editTool.presentResult!({ path: '/a', old: 'x', new: 'y' }, undefined)).toBeUndefined();
    });
  });

  describe('when args are hostile', () => {
    it('never throws and never runs a getter, proxy trap or prototype key into a card', () => {
      const getter = { old: 'x', new: 'y' } as Record<string, unknown>;
      Object.defineProperty(getter, 'path', { get: () => { throw new Error('boom'); }, enumerable: true });
      const revoked = Proxy.revocable({}, {});
      revoked.revoke();
      const cyclic: Record<string, unknown> = { path: '/a', old: 'x', new: 'y' };
      cyclic.self = cyclic;
      const polluted = JSON.parse('{"path":"/a","old":"x","new":"y","__proto__":{"polluted":true}}');
      const hostile: unknown[] = [getter, revoked.proxy, cyclic, polluted, { path: '/a', old: 'x', new: 'y', big: 10n }, Object.create({ path: '/a' })];
      for (const args of hostile) {
        expect(() => editTool.presentCall!(args)).not.toThrow();
        expect(editTool.presentCall!(args)).toBeUndefined();
        expect(() => editTool.presentResult!(args, { replaced: 1 })).not.toThrow();
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('when the presenter misbehaves', () => {
    it.each([
      ['throws', () => { throw new Error('bug'); }],
      ['returns undefined', () => undefined],
      ['returns a string', () => 'edit /a'],
      ['returns a card of an unknown kind', () => ({ card: 'chart', phase: 'pending', title: 'x' })],
      ['returns a card with an unknown field', () => ({ card: 'generic', phase: 'pending', title: 'x', html: '<b>' })],
      ['returns a result card from presentCall', () => ({ card: 'generic', phase: 'result', title: 'x' })],
      ['returns a pending read card', () => ({ card: 'read', phase: 'pending', path: '/a' })],
      ['returns a promise of a card', () => Promise.resolve({ card: 'generic', phase: 'pending', title: 'x' })],
      ['returns a rejected promise', () => Promise.reject(new Error('async bug'))],
      ['returns a card holding a function', () => ({ card: 'generic', phase: 'pending', title: 'x', subtitle: () => 'y' })],
    ])('presentCall yields undefined when it %s', async (_what, presentCall) => {
      const tool = toolWith({ presentCall });
      expect(tool.presentCall!({ path: '/a' })).toBeUndefined();
      await new Promise((r) => setTimeout(r, 0)); // an unhandled rejection would fail the run
    });

    it('presentResult yields undefined for a pending card', () => {
      const tool = toolWith({ presentResult: () => ({ card: 'generic', phase: 'pending', title: 'x' }) });
      expect(tool.presentResult!({ path: '/a' }, 'x')).toBeUndefined();
    });

    it('returns a copy the presenter cannot change afterwards', () => {
      const shared = { card: 'generic', phase: 'pending', title: 'before' };
      const tool = toolWith({ presentCall: () => shared });
      const card = tool.presentCall!({ path: '/a' });
      shared.title = 'after';
      expect(card).toMatchObject({ title: 'before' });
    });

    it('hands the presenter frozen args it cannot mutate for the next caller', () => {
      const tool = toolWith({
        presentCall: (args: { path: string }) => {
          (args as { path: string }).path = 'mutated';
          return { card: 'generic', phase: 'pending', title: args.path };
        },
      });
      const args = { path: '/a' };
      expect(tool.presentCall!(args)).toBeUndefined(); // the write throws in strict mode
      expect(args.path).toBe('/a');
    });
  });

  it('rejects a presenter that is not a function at definition time, naming the field', () => {
    expect(() => toolWith({ presentCall: 'nope' as never })).toThrow(ToolDefinitionError);
    expect(() => toolWith({ presentResult: 42 as never })).toThrow('Invalid tool "probe": presentResult must be a function returning a card or undefined');
  });
});

describe('purity of presenters', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  const samples: [Tool, unknown, unknown][] = [
    [editTool, { path: '/a', old: 'x', new: 'y' }, { replaced: 1 }],
    ...createJobTools().map((tool): [Tool, unknown, unknown] => [
      tool,
      { jobId: 'bash-1' },
      tool.name === 'job_list'
        ? { jobs: [] }
        : tool.name === 'job_kill'
          ? { killed: true, job: { jobId: 'bash-1', kind: 'bash', label: 'x', status: 'killed', startedAt: 1, outputBytes: 0, droppedBytes: 0 } }
          : { jobId: 'bash-1', kind: 'bash', label: 'x', status: 'running', startedAt: 1, outputBytes: 3, droppedBytes: 0, output: 'abc', offset: 0, nextOffset: 3, skippedBytes: 0, progress: { message: 'half' } },
    ]),
  ];

  it.each(samples.map((s) => [s[0].name, ...s.slice(1)] as const))('%s gives deep-equal cards under a changed clock and randomness', (name, args, value) => {
    const tool = samples.find((s) => s[0].name === name)![0];
    const run = () => ({ call: tool.presentCall?.(args), result: tool.presentResult?.(args, value) });
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2001-01-01T00:00:00Z'));
    vi.spyOn(Math, 'random').mockReturnValue(0.1);
    const first = run();
    vi.setSystemTime(new Date('2039-06-15T12:34:56Z'));
    vi.spyOn(Math, 'random').mockReturnValue(0.9);
    const second = run();
    expect(second).toEqual(first);
    for (const card of [first.call, first.result]) if (card !== undefined) expect(cardSchema.safeParse(card).success).toBe(true);
  });

  it('the purity check catches a presenter that reads the clock', () => {
    const impure = toolWith({ presentCall: () => ({ card: 'generic', phase: 'pending', title: `at ${Date.now()}` }) });
    vi.useFakeTimers();
    vi.setSystemTime(1000);
    const first = impure.presentCall!({ path: '/a' });
    vi.setSystemTime(2000);
    expect(impure.presentCall!({ path: '/a' })).not.toEqual(first);
  });
});
