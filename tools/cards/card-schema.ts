/**
 * UI cards: a render intent separate from what the model sees. A tool's `presentCall(args)`
 * returns a *pending* card (shown while the call runs) and `presentResult(args, value)` a
 * *result* card; a UI dispatches on `card`. The zod schemas here are the single source of truth:
 * the TypeScript types are inferred from them (so an invalid shape does not compile) and the
 * same schemas check, at run time, whatever a presenter returned (so an invalid shape is dropped
 * to the generic card instead of reaching a UI or a replay).
 *
 * `read`, `search` and `web` have no pending form: their content exists only after execute, so
 * while pending they show the generic card. Schemas are strict: an unknown field is not a card.
 * Card content is UI formatting (a diff, a relativized path, a preview): it never enters the
 * canonical value or the model's content.
 */
import { z } from 'zod';

const text = z.string();
const count = z.number().int().min(0);

/** Status of a child call inside a `code` card. */
export const childCallStatusSchema = z.enum(['pending', 'ok', 'error', 'denied', 'blocked']);

/** One call a run_code program made, as its `code` card lists it. */
export const codeChildCallSchema = z.strictObject({
  callId: text,
  toolName: text,
  status: childCallStatusSchema,
  /** Title of the child's own card, when it has one. */
  title: text.optional(),
});

const generic = {
  card: z.literal('generic'),
  title: text,
  subtitle: text.optional(),
  detail: text.optional(),
};
const command = {
  card: z.literal('command'),
  command: text,
  cwd: text.optional(),
  background: z.boolean().optional(),
};
const edit = { card: z.literal('edit'), path: text, diff: text };
const write = { card: z.literal('write'), path: text, bytes: count, preview: text.optional() };
const job = { card: z.literal('job'), label: text, jobKind: text.optional() };
const code = { card: z.literal('code'), source: text, calls: z.array(codeChildCallSchema) };
const pending = { phase: z.literal('pending') };
const result = { phase: z.literal('result') };

/** Cards a `presentCall` may return (no `read`, `search` or `web`: they have no pending form). */
export const pendingCardSchema = z.union([
  z.strictObject({ ...generic, ...pending }),
  z.strictObject({ ...command, ...pending }),
  z.strictObject({ ...edit, ...pending }),
  z.strictObject({ ...write, ...pending }),
  z.strictObject({ ...job, ...pending }),
  z.strictObject({ ...code, ...pending }),
]);

/** Cards a `presentResult` may return. */
export const resultCardSchema = z.union([
  z.strictObject({ ...generic, ...result }),
  z.strictObject({
    ...command,
    ...result,
    /** `null` when the command was backgrounded or killed by a signal. */
    exitCode: z.number().int().nullable(),
    /** A tail of the output for display. */
    output: text.optional(),
    jobId: text.optional(),
  }),
  z.strictObject({
    card: z.literal('read'),
    ...result,
    path: text,
    lines: z.strictObject({ from: count, to: count }).optional(),
    totalLines: count.optional(),
    preview: text.optional(),
  }),
  z.strictObject({
    card: z.literal('search'),
    ...result,
    query: text,
    hits: z.array(z.strictObject({ title: text, location: text.optional(), snippet: text.optional() })),
    totalHits: count.optional(),
  }),
  z.strictObject({
    card: z.literal('web'),
    ...result,
    url: text,
    title: text.optional(),
    httpStatus: z.number().int().min(100).max(599).optional(),
    excerpt: text.optional(),
  }),
  z.strictObject({ ...edit, ...result, applied: z.boolean() }),
  z.strictObject({ ...write, ...result, created: z.boolean().optional() }),
  z.strictObject({
    ...job,
    ...result,
    jobId: text,
    status: z.enum(['running', 'succeeded', 'failed', 'killed']),
    progress: text.optional(),
  }),
  z.strictObject({ ...code, ...result, outcome: z.enum(['ok', 'error']), preview: text.optional() }),
]);

/** Any card. */
export const cardSchema = z.union([pendingCardSchema, resultCardSchema]);

/** A card shown while a call runs. */
export type PendingCard = z.infer<typeof pendingCardSchema>;
/** A card shown once a call succeeded. */
export type ResultCard = z.infer<typeof resultCardSchema>;
/** Any card: a discriminated union on `card` (and `phase`). */
export type Card = PendingCard | ResultCard;
/** The kind names of cards. */
export type CardKind = Card['card'];
/** One child call inside a `code` card. */
export type CodeChildCall = z.infer<typeof codeChildCallSchema>;

/** The generic card, the fallback of every call without a (valid) presenter. */
export function genericCard(phase: 'pending' | 'result', title: string, subtitle?: string): GenericCard {
  return subtitle === undefined ? { card: 'generic', phase, title } : { card: 'generic', phase, title, subtitle };
}

/** The generic card, pending or result. */
export type GenericCard = Extract<Card, { card: 'generic' }>;
