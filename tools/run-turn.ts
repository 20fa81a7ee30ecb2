/**
 * A model turn: each call's mode is asked of the host, calls run under the scheduling rule
 * (rolling pool, exclusive barriers; see scheduler.ts) and results come back in call order,
 * whatever order they finished in. Aborting the turn cancels calls not yet started (they still
 * pass the pipeline, which records and refuses them) and signals the running ones.
 */
import type { ToolHost, TurnCallOptions, TurnOptions } from './tool-types.js';
import { CallScheduler } from './scheduler.js';
import type { CallOptions, ToolCall, ToolResult } from './types.js';

/** Records and refuses a call without running it (the host's pipeline). */
export type RefuseCall = (call: ToolCall, options: CallOptions, reason: string) => Promise<ToolResult>;

/**
 * Runs `calls` as one turn on `host`. A call whose id an earlier call of the turn already has is
 * refused (`invalid-call`), not run: every event and the result are keyed by the id, and two
 * calls under one id could not be told apart in the trace. The refusal is recorded under an id
 * of its own (`<id>#2`, `#3`, ...), so nothing in the trace attaches it to the call that ran.
 * `perCall` adds a call's own origin or approval evidence to the turn's options; an entry that
 * cannot be read, or names a PTC origin (the bridge's alone), refuses that call, and so does an
 * entry's `refusal` (recorded with the entry's origin).
 */
export async function runTurn(
  host: ToolHost,
  calls: readonly ToolCall[],
  options: TurnOptions & { maxConcurrency: number },
  refuse: RefuseCall,
): Promise<ToolResult[]> {
  if (!Array.isArray(calls)) throw new TypeError(`runTurn(calls): calls must be an array of tool calls, got ${calls === null ? 'null' : typeof calls}`);
  const scheduler = new CallScheduler(options.maxConcurrency);
  const perCall = options.perCall;
  if (perCall !== undefined && !(perCall instanceof Map)) throw new TypeError('runTurn(calls, { perCall }): perCall must be a Map from call id to { origin?, approved? }');
  const callOptions: CallOptions = { ...(options.agent ? { agent: options.agent } : {}), ...(options.signal ? { signal: options.signal } : {}) };
  const all = Array.from(calls, (call: ToolCall | undefined) => call);
  const taken = new Set(all.map(readId).filter((id): id is string => id !== undefined));
  const ids = new Set<string>();
  // Array.from visits holes too: a missing call is an `invalid-call` result in its place.
  return Promise.all(
    all.map((call) => {
      const id = readId(call);
      if (id !== undefined && ids.has(id)) {
        const name = readName(call);
        let n = 2;
        while (taken.has(`${id}#${n}`)) n++;
        const own = `${id}#${n}`;
        taken.add(own);
        const message = `The call to "${name.slice(0, 200)}" reuses the id "${id.slice(0, 200)}" of an earlier call in this turn; each call needs its own id. It was not run (recorded as "${own.slice(0, 220)}").`;
        return refuse({ id: own, name, args: readArgs(call) }, callOptions, message);
      }
      if (id !== undefined) ids.add(id);
      const own = id !== undefined && perCall !== undefined ? withOwnOptions(callOptions, perCall.get(id)) : callOptions;
      if (typeof own === 'string') return refuse({ id: id!, name: readName(call), args: readArgs(call) }, callOptions, own);
      const refusal = id !== undefined ? readRefusal(perCall?.get(id)) : undefined;
      if (refusal !== undefined) return refuse({ id: id!, name: readName(call), args: readArgs(call) }, own, refusal);
      return scheduler.submit(host.executionMode(call as ToolCall), () => host.call(call as ToolCall, own));
    }),
  );
}

/** The turn's options plus a call's own, or why they cannot be used. */
function withOwnOptions(base: CallOptions, own: TurnCallOptions | undefined): CallOptions | string {
  if (own === undefined) return base;
  try {
    const { origin, approved } = own;
    if ((origin as { kind?: unknown } | undefined)?.kind === 'ptc') return 'A turn cannot carry a PTC origin: only the bridge makes calls for a program.';
    return { ...base, ...(origin !== undefined ? { origin } : {}), ...(approved !== undefined ? { approved } : {}) };
  } catch {
    return 'The per-call options of this call could not be read.';
  }
}

/** An adapter's refusal of one call, as text (an unreadable one refuses too). */
function readRefusal(own: TurnCallOptions | undefined): string | undefined {
  try {
    const refusal = own?.refusal;
    return refusal === undefined ? undefined : typeof refusal === 'string' && refusal !== '' ? refusal.slice(0, 2_000) : 'The call was refused by its adapter.';
  } catch {
    return 'The per-call options of this call could not be read.';
  }
}

function readId(call: unknown): string | undefined {
  try {
    const id = (call as { id?: unknown } | null | undefined)?.id;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

function readName(call: unknown): string {
  try {
    return String((call as { name?: unknown }).name);
  } catch {
    return '(unreadable name)';
  }
}

function readArgs(call: unknown): unknown {
  try {
    return (call as { args?: unknown }).args;
  } catch {
    return undefined;
  }
}
