/**
 * What a run needs to be replayed in a fresh context (docs/run-life.md "Bounded slices"): every
 * slice it started, with exactly the arguments it got (the program, then each batch of outcomes
 * with its clock), and every message the guest sent, in order. The run's clock and `Math.random`
 * are those of a durable run (a seed, the clock of each slice), so the same slices in a fresh
 * context make the program send the same messages: the replay checks each one against the
 * journal, and stops the run at the first that differs (it never sends a call twice).
 *
 * Only strings and numbers (and lists of them) are kept; the journal stops recording once it
 * holds more than {@link MAX_JOURNAL_CHARS} characters, and the run is then never replayed.
 */
import type { EntryArgs } from './guest/protocol.js';

/**
 * Characters a journal holds at most; a run past this is not replayed, and its slices run as
 * before (off the thread beside other runs). Small on purpose: what the journal keeps outlives
 * V8's young generation in the worker (1 MB), and keeping all of a run of 2,000 calls cost
 * ~40% more per call (pinned, 227 against 160 µs); runs this small are the ones whose CPU the
 * thread hand-off dominated.
 */
export const MAX_JOURNAL_CHARS = 64 * 1024;

/** One slice as it was started. */
export interface JournalSlice {
  readonly args: EntryArgs;
}

export class SliceJournal {
  private readonly slices: JournalSlice[] = [];
  /** Guest messages, as kind, items pairs. */
  private readonly messages: unknown[] = [];
  private chars = 0;

  /** The journal has grown past {@link MAX_JOURNAL_CHARS}. */
  get full(): boolean {
    return this.chars > MAX_JOURNAL_CHARS;
  }

  get sliceCount(): number {
    return this.slices.length;
  }

  get messageCount(): number {
    return this.messages.length / 2;
  }

  addSlice(args: EntryArgs): void {
    this.slices.push({ args });
    this.chars += charsIn(args);
  }

  addMessage(kind: unknown, items: unknown): void {
    this.messages.push(kind, items);
    this.chars += charsIn(items);
  }

  sliceAt(index: number): JournalSlice | undefined {
    return this.slices[index];
  }

  /** Whether a replayed message is the `index`th message the guest sent. */
  matches(index: number, kind: unknown, items: unknown): boolean {
    return sameValue(this.messages[2 * index], kind) && sameValue(this.messages[2 * index + 1], items);
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
  return true;
}

function charsIn(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (!Array.isArray(value)) return 8;
  let chars = 0;
  for (const item of value) chars += charsIn(item);
  return chars;
}
