import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Card, CardKind, PendingCard, ResultCard } from './card-schema.js';

describe('the card union', () => {
  it('names every kind', () => {
    expectTypeOf<CardKind>().toEqualTypeOf<'generic' | 'command' | 'read' | 'search' | 'web' | 'edit' | 'write' | 'job' | 'code'>();
  });

  it('has no pending form of read, search or web', () => {
    expectTypeOf<Extract<PendingCard, { card: 'read' | 'search' | 'web' }>>().toBeNever();
    expectTypeOf<Extract<ResultCard, { card: 'read' }>['phase']>().toEqualTypeOf<'result'>();
    // @ts-expect-error a pending read card does not exist
    const read: Card = { card: 'read', phase: 'pending', path: '/a' };
    // @ts-expect-error a pending search card does not exist
    const search: PendingCard = { card: 'search', phase: 'pending', query: 'q', hits: [] };
    // @ts-expect-error a pending web card does not exist
    const web: PendingCard = { card: 'web', phase: 'pending', url: 'https://x' };
    void [read, search, web];
  });

  it('rejects shapes that mix kinds or phases', () => {
    // @ts-expect-error a pending command has no exit code yet
    const pendingExit: Card = { card: 'command', phase: 'pending', command: 'ls', exitCode: 0 };
    // @ts-expect-error a result command needs its exit code
    const noExit: Card = { card: 'command', phase: 'result', command: 'ls' };
    // @ts-expect-error a command card needs the command
    const noCommand: Card = { card: 'command', phase: 'pending' };
    // @ts-expect-error a card needs a kind
    const noKind: Card = { phase: 'pending', title: 'x' };
    // @ts-expect-error a card needs a phase
    const noPhase: Card = { card: 'generic', title: 'x' };
    // @ts-expect-error no such kind
    const unknownKind: Card = { card: 'chart', phase: 'result', title: 'x' };
    // @ts-expect-error job statuses are a closed set
    const badStatus: Card = { card: 'job', phase: 'result', label: 'x', jobId: 'j', status: 'paused' };
    // @ts-expect-error a read card has no url
    const readUrl: Card = { card: 'read', phase: 'result', path: '/a', url: 'https://x' };
    void [pendingExit, noExit, noCommand, noKind, noPhase, unknownKind, badStatus, readUrl];

    const ok: Card[] = [
      { card: 'command', phase: 'pending', command: 'ls' },
      { card: 'command', phase: 'result', command: 'ls', exitCode: null, jobId: 'bash-1' },
      { card: 'read', phase: 'result', path: '/a', lines: { from: 1, to: 20 } },
      { card: 'code', phase: 'pending', source: 'return 1', calls: [] },
      { card: 'edit', phase: 'result', path: '/a', diff: '-a\n+b', applied: true },
    ];
    void ok;
  });

  it('narrows on card and phase', () => {
    const show = (card: Card) => {
      if (card.card === 'command' && card.phase === 'result') expectTypeOf(card.exitCode).toEqualTypeOf<number | null>();
      if (card.card === 'search') expectTypeOf(card.phase).toEqualTypeOf<'result'>();
    };
    void show;
  });
});

describe('presenters in defineTool', () => {
  it('get typed args and value and must return the right phase', () => {
    defineTool({
      name: 'shell',
      description: 'Run a command.',
      parameters: { command: { type: 'string', required: true } },
      output: { schema: z.object({ exitCode: z.number() }) },
      execute: () => ({ exitCode: 0 }),
      presentCall: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ command: string }>();
        return { card: 'command', phase: 'pending', command: args.command };
      },
      presentResult: (args, value) => {
        expectTypeOf(value).toEqualTypeOf<{ exitCode: number }>();
        return { card: 'command', phase: 'result', command: args.command, exitCode: value.exitCode };
      },
    });
    defineTool({
      name: 'reader',
      description: 'Read.',
      parameters: { path: { type: 'string', required: true } },
      execute: () => 'x',
      // @ts-expect-error presentCall cannot return a read card (no pending form)
      presentCall: (args) => ({ card: 'read', phase: 'result', path: args.path }),
    });
  });
});
