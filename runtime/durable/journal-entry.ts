/**
 * What a durable run's journal holds (docs/run-life.md "The journal and replay"), one entry per
 * store entry, as JSON text, optionally sealed with AES-256-GCM (the journal holds tool results:
 * `encryptionKey` keeps them unreadable at rest to whoever reads the store without the key).
 *
 * - `run`: everything a replay needs to start the same program: its code and transpiled text,
 *   the callable names, the seed and start clock, the limits, the type check's diagnostics.
 * - `call`: a call the program made (its number, the callable name, SHA-256 of its arguments).
 * - `start`: the call's body is about to run (written before it does, once the run is persisted).
 * - `settle`: how the call ended, as the program gets it, and its status for `calls`.
 * - `defer`: the approval channel deferred the call to a person.
 * - `batch`: outcomes delivered to the program together, with the clock it read meanwhile.
 * - `slice`: a slice of the program ended: calls made so far, digest of its console lines.
 * - `suspend` / `resume`: a segment ended waiting for a person / a new one began with decisions.
 * - `anchor`: the head of the suspending host's trace chain (a resume links its trace to it).
 * - `end`: the final outcome of a resumed run, for whoever fetches it later (`run_result`).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { DurableDecision, JsonValue } from '../../tools/index.js';
import type { RunLimits } from '../program-runner.js';

/** How a call ended for the `calls` list. */
export type JournaledStatus = 'ok' | 'error' | 'denied' | 'refused';

/** One journal entry. */
export type JournalEntry =
  | {
      readonly k: 'run';
      readonly v: 1;
      readonly runId: string;
      readonly parentCallId: string;
      readonly agentId: string | null;
      /** The model's code as sent (run_code's argument). */
      readonly code: string;
      /** The body the program was transpiled from, and its first line in `code`. */
      readonly body: string;
      readonly lineOffset: number;
      readonly js: string;
      /** Callable name -> tool name, as the program saw them. */
      readonly toolNames: readonly (readonly [string, string])[];
      readonly seed: string;
      readonly clockMs: number;
      readonly limits: RunLimits;
      readonly diagnostics?: readonly { readonly line: number; readonly column: number; readonly message: string }[];
    }
  | { readonly k: 'call'; readonly seq: number; readonly name: string; readonly args: string }
  | { readonly k: 'start'; readonly seq: number }
  | { readonly k: 'settle'; readonly seq: number; readonly tool: string; readonly status: JournaledStatus; readonly ok: 0 | 1; readonly text: string; readonly message: string; readonly ms: number }
  | { readonly k: 'defer'; readonly seq: number; readonly tool: string; readonly approvalId: string; readonly argsJson: string; readonly reason: string }
  | { readonly k: 'batch'; readonly seqs: readonly number[]; readonly clock: number }
  | { readonly k: 'slice'; readonly calls: number; readonly logs: string }
  | { readonly k: 'suspend'; readonly at: number; readonly segment: number; readonly wallMs: number }
  /** The head of the suspending host's trace chain, right after its `ptc/run-suspended` line. */
  | { readonly k: 'anchor'; readonly traceHead: { readonly traceId: string; readonly seq: number; readonly hash: string } }
  | { readonly k: 'resume'; readonly at: number; readonly segment: number; readonly decisions: readonly DurableDecision[] }
  | { readonly k: 'end'; readonly at: number; readonly isError: boolean; readonly value?: JsonValue; readonly message?: string };

/** SHA-256 of text, hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const SEALED = 'ptcj1.';

/** Turns entries into store text and back, sealing them when a key is given. */
export class EntryCodec {
  private readonly key: Buffer | undefined;

  constructor(encryptionKey?: Uint8Array) {
    this.key = encryptionKey === undefined ? undefined : Buffer.from(encryptionKey);
  }

  encode(entry: JournalEntry): string {
    const text = JSON.stringify(entry);
    if (this.key === undefined) return text;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return `${SEALED}${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
  }

  /** Reads a stored entry; throws on a sealed entry without the key, a wrong key, or text that is not an entry. */
  decode(stored: string): JournalEntry {
    let text = stored;
    if (stored.startsWith(SEALED)) {
      if (this.key === undefined) throw new Error('the journal is encrypted and no encryptionKey was given');
      const raw = Buffer.from(stored.slice(SEALED.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } else if (this.key !== undefined) {
      throw new Error('the journal entry is not encrypted, but an encryptionKey was given');
    }
    const entry = JSON.parse(text) as JournalEntry;
    if (typeof entry !== 'object' || entry === null || typeof (entry as { k?: unknown }).k !== 'string') throw new Error('a journal entry has no kind');
    return entry;
  }
}

/**
 * One stored journal entry as data (`ptc runs show`): the text a run store holds, opened with
 * `encryptionKey` when the journal is sealed. Throws when it cannot be read (sealed without the
 * key, or not an entry).
 */
export function decodeJournalEntry(stored: string, encryptionKey?: Uint8Array): JournalEntry {
  return new EntryCodec(encryptionKey).decode(stored);
}
