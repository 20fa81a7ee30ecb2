/**
 * `createRunCodeTool({ durable })`: its options, checked at creation (each bad value an
 * InvalidOptionError naming it), and their defaults.
 */
import { InvalidOptionError, type TraceHead } from '../../tools/index.js';
import type { RunStore } from '../stores/index.js';

/** A secret of at least 32 bytes: text (UTF-8) or bytes. */
export type DurableSecret = string | Uint8Array;

/** Durable runs of a run_code tool (docs/run-code.md "Durable runs"). */
export interface DurableOptions {
  /** Where journals are kept: `createFileRunStore({ dir })`, `createMemoryRunStore()`, or a shared one (`ptc-runtime/redis`). */
  readonly store: RunStore;
  /**
   * Resume tokens are HMAC-SHA256 under `current`; tokens made under a `previous` key still
   * verify (rotate by moving `current` to `previous`). Shared by every host that resumes the runs.
   */
  readonly keys: { readonly current: DurableSecret; readonly previous?: readonly DurableSecret[] };
  /** How long a suspended run stays resumable, ms (default 86,400,000: a day). */
  readonly ttlMs?: number;
  /**
   * After a call is deferred, how long the run stays live for its other calls in flight before it
   * suspends anyway (those are then cancelled; a resume answers them from the journal, or runs
   * them again), ms (default 30,000).
   */
  readonly holdLiveMs?: number;
  /** Cap on one run's journal (it holds every result the program received), bytes (default 16 MiB). */
  readonly maxJournalBytes?: number;
  /** How long a resume holds its claim without renewing it (renewed while it runs), ms (default 60,000). */
  readonly leaseMs?: number;
  /** 32 bytes: journal entries are sealed with AES-256-GCM under it, so the store holds no readable result. */
  readonly encryptionKey?: DurableSecret;
  /** `'refuse'` (default): a resume under another ptc-runtime, Node, V8 or isolated-vm is refused; `'allow'`: replayed anyway. */
  readonly onRuntimeChange?: 'refuse' | 'allow';
  /** The head of this host's trace chain (`writer.head`), recorded at a suspension so a resume links its chain to it. */
  readonly traceHead?: () => TraceHead | undefined;
  /** The clock (ms since the epoch): expiry, leases, the program's recorded clock. Inject in tests. */
  readonly now?: () => number;
}

/** The options with their defaults. */
export interface ResolvedDurable {
  readonly store: RunStore;
  readonly keys: readonly Uint8Array[];
  readonly ttlMs: number;
  readonly holdLiveMs: number;
  readonly maxJournalBytes: number;
  readonly leaseMs: number;
  readonly encryptionKey: Uint8Array | undefined;
  readonly onRuntimeChange: 'refuse' | 'allow';
  readonly traceHead: (() => TraceHead | undefined) | undefined;
  readonly now: () => number;
}

const WHERE = 'createRunCodeTool';

/** Checks and completes `durable`. */
export function resolveDurableOptions(options: DurableOptions): ResolvedDurable {
  if (typeof options !== 'object' || options === null) throw new InvalidOptionError({ where: WHERE, option: 'durable', value: options, expected: '{ store, keys }' });
  const { store } = options;
  const methods = ['create', 'append', 'load', 'claim', 'renew', 'settle', 'list', 'sweep'] as const;
  if (typeof store !== 'object' || store === null || methods.some((m) => typeof (store as unknown as Record<string, unknown>)[m] !== 'function')) {
    throw new InvalidOptionError({ where: WHERE, option: 'durable.store', value: store, expected: 'a RunStore (createFileRunStore, createMemoryRunStore, or ptc-runtime/redis)' });
  }
  const current = secret(options.keys?.current, 'durable.keys.current');
  const previous = options.keys?.previous;
  if (previous !== undefined && !Array.isArray(previous)) throw new InvalidOptionError({ where: WHERE, option: 'durable.keys.previous', value: previous, expected: 'a list of secrets of at least 32 bytes' });
  const keys = [current, ...(previous ?? []).map((k, i) => secret(k, `durable.keys.previous[${i}]`))];
  const encryptionKey = options.encryptionKey === undefined ? undefined : secret(options.encryptionKey, 'durable.encryptionKey', true);
  const onRuntimeChange = options.onRuntimeChange ?? 'refuse';
  if (onRuntimeChange !== 'refuse' && onRuntimeChange !== 'allow') throw new InvalidOptionError({ where: WHERE, option: 'durable.onRuntimeChange', value: onRuntimeChange, expected: '"refuse" or "allow"' });
  for (const name of ['traceHead', 'now'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') throw new InvalidOptionError({ where: WHERE, option: `durable.${name}`, value: options[name], expected: 'a function' });
  }
  return {
    store,
    keys,
    ttlMs: duration(options.ttlMs, 'durable.ttlMs', 86_400_000, 1_000),
    holdLiveMs: duration(options.holdLiveMs, 'durable.holdLiveMs', 30_000, 0),
    maxJournalBytes: duration(options.maxJournalBytes, 'durable.maxJournalBytes', 16 * 1024 * 1024, 1024),
    leaseMs: duration(options.leaseMs, 'durable.leaseMs', 60_000, 1_000),
    encryptionKey,
    onRuntimeChange,
    traceHead: options.traceHead,
    now: options.now ?? Date.now,
  };
}

function secret(value: unknown, option: string, exactly32 = false): Uint8Array {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value instanceof Uint8Array ? Buffer.from(value) : undefined;
  const ok = bytes !== undefined && (exactly32 ? bytes.length === 32 : bytes.length >= 32);
  // (The value is a secret: the message says its length, never the value.)
  if (!ok) {
    throw new InvalidOptionError({
      where: WHERE,
      option,
      value: bytes === undefined ? typeof value : `a secret of ${bytes.length} bytes`,
      expected: exactly32 ? 'a secret of exactly 32 bytes (text or bytes)' : 'a secret of at least 32 bytes (text or bytes)',
    });
  }
  return bytes;
}

function duration(value: unknown, option: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new InvalidOptionError({ where: WHERE, option, value, expected: `a whole number of at least ${min}` });
  }
  return value;
}
