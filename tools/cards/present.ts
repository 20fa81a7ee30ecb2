/**
 * The presentation wrapper `defineTool` puts around a tool's `presentCall` / `presentResult`.
 *
 * Presentation must never break a call or a replay, and a replay feeds presenters whatever an
 * old log holds. So the wrapper soft-validates: the args (and, for results, the value) are
 * copied to frozen plain JSON and parsed against the tool's own schemas first; malformed or
 * old-format input, a presenter that throws, returns a promise or returns anything that is not
 * a card of the right phase all yield `undefined` (the UI shows the generic card). It never
 * throws. What it returns is a frozen JSON copy, so a presenter cannot hand a UI a live object.
 *
 * Presenters must be pure (no I/O, no session state, no clock, no randomness): they run live
 * and again on replay, and both must show the same card. That is checked by tests, not here.
 */
import type { z } from 'zod';
import { deepFreeze, materializeJson, toJson, type JsonValue } from '../json.js';
import { pendingCardSchema, resultCardSchema, type PendingCard, type ResultCard } from './card-schema.js';

/** A wrapped `presentCall`: never throws; `undefined` means "show the generic card". */
export type PresentCall = (args: unknown) => PendingCard | undefined;
/** A wrapped `presentResult`: never throws; `undefined` means "show the generic card". */
export type PresentResult = (args: unknown, value: unknown) => ResultCard | undefined;

function soft(schema: z.ZodType | undefined, raw: unknown, fallbackNull: boolean): { ok: true; data: unknown } | { ok: false } {
  try {
    const json = toJson(raw === undefined && fallbackNull ? null : raw);
    if (!schema) return { ok: true, data: deepFreeze(json) };
    const parsed = schema.safeParse(json);
    if (!parsed.success) return { ok: false };
    return { ok: true, data: materializeJson(parsed.data) };
  } catch {
    return { ok: false };
  }
}

function asCard<T>(schema: z.ZodType<T>, produce: () => unknown): T | undefined {
  try {
    const out = produce();
    if (typeof out !== 'object' || out === null) return undefined;
    // An async presenter is not a card; keep its rejection from surfacing as unhandled.
    if (typeof (out as { then?: unknown }).then === 'function') {
      Promise.resolve(out).catch(() => {});
      return undefined;
    }
    const json = toJson(out);
    if (!schema.safeParse(json).success) return undefined;
    return deepFreeze(json) as T;
  } catch {
    return undefined;
  }
}

/** Wraps an author's `presentCall`: args soft-validated against `parameters`. */
export function wrapPresentCall(parameters: z.ZodType, present: (args: never) => unknown): PresentCall {
  return (args) => {
    const input = soft(parameters, args === undefined ? {} : args, false);
    if (!input.ok) return undefined;
    return asCard(pendingCardSchema, () => present(input.data as never));
  };
}

/** Wraps an author's `presentResult`: args against `parameters`, value against the output schema. */
export function wrapPresentResult(
  parameters: z.ZodType,
  outputSchema: z.ZodType | undefined,
  present: (args: never, value: never) => unknown,
): PresentResult {
  return (args, value) => {
    const input = soft(parameters, args === undefined ? {} : args, false);
    if (!input.ok) return undefined;
    const output = soft(outputSchema, value, true);
    if (!output.ok) return undefined;
    return asCard(resultCardSchema, () => present(input.data as never, output.data as JsonValue as never));
  };
}
