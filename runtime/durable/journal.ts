/**
 * A durable run's journal: entries recorded in order from the run's start, kept in memory until
 * the run first suspends (nobody holds a token for a run that never suspended, so nothing could
 * resume it: such a run costs no store write), then written to the run store, and from there on
 * written ahead: `flush` resolves once everything appended so far is in the store, and the relay
 * awaits it before a call's body runs and before the program sees a batch.
 *
 * Writes are chained, so entries reach the store in the order they were appended, and fenced by
 * the claim the journal holds. The size is capped (`maxBytes`): an append past it throws a
 * {@link JournalFullError}, which stops the run with a readable error; nothing is cut.
 */
import { PtcError } from '../../tools/index.js';
import type { RunClaim, RunMeta, RunStore } from '../stores/index.js';
import type { EntryCodec, JournalEntry } from './journal-entry.js';

/** The journal passed `maxJournalBytes`. */
export class JournalFullError extends PtcError {
  override readonly name = 'JournalFullError';
  constructor(readonly maxBytes: number) {
    super(`the run's journal passed maxJournalBytes (${maxBytes} bytes): it holds every result the program received, so a durable run's results must fit in it; read less per run, or raise durable.maxJournalBytes`);
  }
}

/** The journal of one run. */
export class Journal {
  /** Every entry, decoded (what a replay of this run would read). */
  readonly entries: JournalEntry[] = [];
  private unsaved: string[] = [];
  private bytes = 0;
  private target: { readonly store: RunStore; readonly claim: RunClaim } | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly codec: EntryCodec,
    private readonly maxBytes: number,
  ) {}

  /** Entries already in the store (a resumed run): counted, not written again. */
  adopt(entries: readonly JournalEntry[], stored: readonly string[], target: { store: RunStore; claim: RunClaim }): void {
    this.entries.push(...entries);
    for (const text of stored) this.bytes += text.length;
    this.target = target;
  }

  /** Records an entry (throws {@link JournalFullError} past the cap). */
  append(entry: JournalEntry): void {
    const text = this.codec.encode(entry);
    if (this.bytes + text.length > this.maxBytes) throw new JournalFullError(this.maxBytes);
    this.bytes += text.length;
    this.entries.push(entry);
    this.unsaved.push(text);
  }

  /** Whether the journal is in the store (written ahead from now on). */
  get persisted(): boolean {
    return this.target !== undefined;
  }

  /** The claim it writes under. */
  get claim(): RunClaim | undefined {
    return this.target?.claim;
  }

  /** Writes the run and every entry so far to the store (the run's first suspension), holding the claim `create` gives. */
  async persist(store: RunStore, meta: RunMeta, options: { readonly leaseMs: number; readonly now: number }): Promise<RunClaim> {
    const entries = this.unsaved;
    this.unsaved = [];
    const claim = await store.create({ meta, entries, leaseMs: options.leaseMs, now: options.now });
    this.target = { store, claim };
    return claim;
  }

  /** Resolves once everything appended so far is in the store (at once while the journal is only in memory). */
  flush(): Promise<void> {
    const target = this.target;
    if (target === undefined || this.unsaved.length === 0) return this.writing;
    const batch = this.unsaved;
    this.unsaved = [];
    this.writing = this.writing.then(() => target.store.append(target.claim, batch));
    return this.writing;
  }
}
