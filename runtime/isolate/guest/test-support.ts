/**
 * The guest without an isolate: its files evaluated in a fresh `node:vm` context (a realm of its
 * own, so a program's monkey-patching stays in there), for tests of the guest alone. A vm
 * context is no security boundary; these tests are about what the guest does, not about
 * isolation (test/isolate-contract.ts runs the same guest in real isolates).
 *
 * `microtaskMode: 'afterEvaluate'` gives the context its own microtask queue, drained after each
 * script under the script's timeout: `entry` below is one slice, as with isolated-vm's
 * `applySync` (the program runs until it waits for calls again, or the timeout stops it).
 */
import vm from 'node:vm';
import { concatenate, GUEST_FILES, type GuestFile } from '../guest-source.js';
import type { EntryArgs, GuestCaps, GuestMessageKind, OutcomeBatch } from './protocol.js';

/**
 * Evaluates `files` (in guest order) in a fresh context, then `append` (test code in the same
 * scope), and returns the named bindings.
 */
export function loadGuestParts<T>(files: readonly GuestFile[], names: readonly (keyof T & string)[], append = ''): T {
  const ordered = GUEST_FILES.filter((f) => files.includes(f));
  const context = vm.createContext({});
  return vm.runInContext(`(function () {\n${concatenate(ordered)}\n${append}\nreturn { ${names.join(', ')} };\n})()`, context) as T;
}

/** One guest -> host message, copied out of the context (`call1` becomes a `calls` of one). */
export interface VmGuestMessage {
  readonly kind: GuestMessageKind | 'warm';
  readonly items: readonly (string | number)[];
}

/** The whole guest in a context, as the host drives it. */
export interface VmGuest {
  /** Every message the guest sent, in order. */
  readonly messages: VmGuestMessage[];
  /** One slice: `entry(...args)` and the microtasks it releases, within `timeoutMs` (default 2000). */
  entry(args: EntryArgs, timeoutMs?: number): number;
  /** Starts `js` (the body of an async function) with these callable tool names. */
  start(js: string, toolNames?: readonly string[], caps?: Partial<GuestCaps>): number;
  /** Delivers a batch of outcomes (`[id, ok, jsonOrToolName, message, ...]`). */
  deliver(batch: OutcomeBatch): number;
  /** The `end` message, once the program ended. */
  end(): readonly (string | number)[] | undefined;
  /** The calls sent so far, as `{ id, name, args }` (args parsed). */
  calls(): { id: number; name: string; args: unknown }[];
}

/** Caps generous enough for ordinary programs. */
export const VM_GUEST_CAPS: GuestCaps = { maxLogBytes: 64 * 1024, maxResultBytes: 256 * 1024, maxArgBytes: 64 * 1024, maxArgDepth: 32, maxArgNodes: 10_000, maxSleeps: 1_000 };

/** Copies a list of primitives out of the context (read by index: nothing the program patched runs). */
function copyItems(items: unknown): (string | number)[] {
  const out: (string | number)[] = [];
  if (items === null || typeof items !== 'object') return out;
  const list = items as ArrayLike<unknown>;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    out.push(typeof item === 'number' ? item : String(item));
  }
  return out;
}

/** Runs the bootstrap in a fresh context with a dispatch that records what the guest sends. */
export function startVmGuest(): VmGuest {
  const messages: VmGuestMessage[] = [];
  const dispatch = {
    applySync(_receiver: undefined, args: ArrayLike<unknown>): undefined {
      const kind = args[0];
      if (kind === 'call1') messages.push({ kind: 'calls', items: copyItems([args[1], args[2], args[3]]) });
      else messages.push({ kind: String(kind) as VmGuestMessage['kind'], items: copyItems(args[1]) });
      return undefined;
    },
  };
  const context = vm.createContext({}, { microtaskMode: 'afterEvaluate' });
  const bootstrap = vm.runInContext(`(function ($0) {\n${concatenate(GUEST_FILES)}\nreturn entry;\n})`, context, { filename: 'ptc-bootstrap.js' }) as (
    dispatch: unknown,
  ) => (...args: unknown[]) => number;
  const guestEntry = bootstrap(dispatch);
  const drain = new vm.Script('undefined');
  const entry = (args: EntryArgs, timeoutMs = 2_000): number => {
    const pending = guestEntry(...args);
    drain.runInContext(context, { timeout: timeoutMs });
    return pending;
  };
  return {
    messages,
    entry,
    start: (js, toolNames = [], caps = {}) => entry(['start', [js, JSON.stringify(toolNames), JSON.stringify({ ...VM_GUEST_CAPS, ...caps })]]),
    deliver: (batch) => entry(['deliver', batch]),
    end: () => messages.find((m) => m.kind === 'end')?.items,
    calls: () =>
      messages
        .filter((m) => m.kind === 'calls')
        .flatMap((m) => {
          const out: { id: number; name: string; args: unknown }[] = [];
          for (let i = 0; i + 2 < m.items.length; i += 3) out.push({ id: m.items[i] as number, name: m.items[i + 1] as string, args: JSON.parse(m.items[i + 2] as string) });
          return out;
        }),
  };
}
