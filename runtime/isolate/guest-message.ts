/**
 * Reads what the guest sends (guest/protocol.ts) into {@link GuestMessage}, checking every
 * field. Only the guest's own code sends, but it runs in the same heap as the program, so the
 * host treats each message as data to validate: anything else is {@link MalformedGuestMessage},
 * and the run ends as a crash (isolate-run.ts).
 */
import { isCallId } from '../run-checks.js';
import { LOG_LEVELS, type CallItems, type LogLevel } from './guest/protocol.js';

/** How the program ended, as the guest reports it. */
export type GuestEnd =
  | { readonly what: 'return'; readonly json: string }
  | { readonly what: 'throw'; readonly message: string; readonly line: number; readonly column: number }
  | { readonly what: 'syntax'; readonly message: string }
  | { readonly what: 'limit'; readonly limit: 'maxResultBytes' };

/** One checked guest message. */
export type GuestMessage =
  | { readonly kind: 'calls'; readonly items: CallItems }
  | { readonly kind: 'log'; readonly level: LogLevel; readonly text: string }
  | { readonly kind: 'limit'; readonly limit: 'maxLogBytes' }
  | { readonly kind: 'end'; readonly end: GuestEnd };

/** A message that is none of them, and what is wrong with it. */
export interface MalformedGuestMessage {
  readonly kind: 'malformed';
  readonly problem: string;
}

const LEVELS = new Set<unknown>(LOG_LEVELS);

/** Reads one message (`kind` and `items` as the dispatch reference received them). */
export function readGuestMessage(kind: unknown, items: unknown): GuestMessage | MalformedGuestMessage {
  if (typeof kind !== 'string' || !Array.isArray(items)) return malformed('not a kind and a list');
  switch (kind) {
    case 'calls':
      if (items.length % 3 !== 0) return malformed('calls list is not id, name, args triples');
      for (let i = 0; i < items.length; i += 3) {
        if (!isCallId(items[i]) || typeof items[i + 1] !== 'string' || typeof items[i + 2] !== 'string') return malformed('a call with a bad id, name or arguments');
      }
      return { kind, items: items as CallItems };
    case 'log': {
      const [level, text] = items as unknown[];
      if (items.length !== 2 || !LEVELS.has(level) || typeof text !== 'string') return malformed('a log line with a bad level or text');
      return { kind, level: level as LogLevel, text };
    }
    case 'limit':
      return items[0] === 'maxLogBytes' ? { kind, limit: 'maxLogBytes' } : malformed('an unknown limit');
    case 'end': {
      const end = readEnd(items);
      return end === undefined ? malformed('an end message of unknown shape') : { kind, end };
    }
    default:
      return malformed(`unknown kind ${JSON.stringify(kind).slice(0, 40)}`);
  }
}

function readEnd(items: unknown[]): GuestEnd | undefined {
  const [what, a, b, c] = items;
  if (what === 'return' && typeof a === 'string') return { what, json: a };
  if (what === 'throw' && typeof a === 'string' && typeof b === 'number' && typeof c === 'number') return { what, message: a, line: b, column: c };
  if (what === 'syntax' && typeof a === 'string') return { what, message: a };
  if (what === 'limit' && a === 'maxResultBytes') return { what, limit: a };
  return undefined;
}

function malformed(problem: string): MalformedGuestMessage {
  return { kind: 'malformed', problem };
}
