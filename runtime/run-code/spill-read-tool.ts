/**
 * `spill_read`: run_code's companion, through which the model pages through output that was
 * over `maxOutputBytes` and spilled (spill-store.ts). It is an ordinary tool (defineTool), so
 * validation, listeners, guards, approval, post-execute policy and events apply as to any call.
 *
 * - Ownership: a spill is read by the agent whose run made it, and by no other. Another agent's
 *   spill, one of an agent read with no agent, an expired or evicted one and an id that never
 *   existed all get the same {@link UnknownSpillError}, from the same lookup, so the answer never
 *   says whether an id is taken.
 * - Each answer stays within the `maxOutputBytes` of the run_code it was made with (spill-page.ts).
 * - One per host: the run_code that is registered first registers it (see
 *   {@link bindSpillRead}), and it reads the spills of every run_code tool on the calling host,
 *   so a second run_code on the same host needs no second `spill_read`.
 * - Programs never see it (visible-tools.ts says why).
 */
import { defineTool, PtcError, REGISTERS_ITSELF, type AgentRef, type Disposable, type Tool, type ToolHost } from '../../tools/index.js';
import { isRunCodeTool, isSpillReadTool, markSpillReadTool } from '../discovery/index.js';
import { renderSpillPage, spillPage, type SpillPage } from './spill-page.js';
import { isSharedSpillStore, type AnySpillStore, type SpillEntry } from './spill-store.js';

/** The fixed name of the tool (DESIGN.md "What the model reads"). */
export const SPILL_READ_TOOL_NAME = 'spill_read';

/** No spill with this id is kept for the caller (unknown, expired, evicted or another agent's: one answer). */
export class UnknownSpillError extends PtcError {
  override readonly name = 'UnknownSpillError';
  constructor(readonly spillId: string) {
    super(`Unknown spill "${spillId}": no spill with this id is kept for you (spills are kept for a limited time). Run the program again, returning less, to see that output.`);
  }
}

/** An argument of `spill_read` that passed validation does not fit the spill (an offset past its end). */
export class SpillReadArgumentError extends PtcError {
  override readonly name = 'SpillReadArgumentError';
  constructor(
    /** The argument (`offset`). */
    readonly argument: 'offset',
    readonly value: number,
    readonly problem: string,
  ) {
    super(`args.${argument}: ${value} ${problem}`);
  }
}

/** The spill_read tool. */
export type SpillReadTool = Tool<{ id: string; offset: number; limit?: number }, SpillPage, { id: string; offset?: number; limit?: number }>;

/** Options of {@link createSpillReadTool}. */
export interface SpillReadOptions {
  /** The store searched first (its run_code's); the stores of the calling host's run_code tools after it. */
  readonly spills: AnySpillStore;
  /** The cap every answer stays within (its run_code's `maxOutputBytes`). */
  readonly maxOutputBytes: number;
}

const sameOwner = (a: AgentRef | undefined, b: AgentRef | undefined) => (a === undefined ? b === undefined : b !== undefined && a.id === b.id);

// The UTF-8 of the spill last read, so paging through a large one does not encode it every page.
const encoded = new WeakMap<SpillEntry, Buffer>();
const utf8Of = (entry: SpillEntry) => {
  let buf = encoded.get(entry);
  if (!buf) encoded.set(entry, (buf = Buffer.from(entry.text, 'utf8')));
  return buf;
};

/** Creates a `spill_read` tool over `spills` (run_code makes one for itself; see {@link bindSpillRead}). */
export function createSpillReadTool(options: SpillReadOptions): SpillReadTool {
  const { spills, maxOutputBytes } = options;
  const storesOf = (host: ToolHost): Set<AnySpillStore> => {
    const stores = new Set<AnySpillStore>([spills]);
    for (const t of host.tools()) if (isRunCodeTool(t)) stores.add((t as unknown as { spills: AnySpillStore }).spills);
    return stores;
  };
  // One page from the first store that knows the id (a shared store is read by range only).
  const page = async (args: { id: string; offset: number; limit?: number }, agent: AgentRef | undefined, host: ToolHost): Promise<SpillPage> => {
    const limit = args.limit ?? maxOutputBytes;
    for (const store of storesOf(host)) {
      if (isSharedSpillStore(store)) {
        // A window 3 bytes wider each side: the page never splits a character (spill-page.ts).
        const start = Math.max(0, args.offset - 3);
        const found = await store.readRange(args.id, { start, end: args.offset + limit + 3, agent });
        if (!found) continue;
        if (args.offset > found.bytes) throw new SpillReadArgumentError('offset', args.offset, `is past the end of spill "${args.id}" (${found.bytes} bytes)`);
        return spillPage({ id: args.id, utf8: found.chunk, offset: args.offset - start, limit, maxBytes: maxOutputBytes, base: start, total: found.bytes });
      }
      const entry = store.get(args.id);
      if (!entry) continue;
      if (!sameOwner(entry.owner, agent)) break;
      const utf8 = utf8Of(entry);
      if (args.offset > utf8.length) throw new SpillReadArgumentError('offset', args.offset, `is past the end of spill "${args.id}" (${utf8.length} bytes)`);
      return spillPage({ id: args.id, utf8, offset: args.offset, limit, maxBytes: maxOutputBytes });
    }
    throw new UnknownSpillError(args.id.slice(0, 200));
  };
  const tool = defineTool({
    name: SPILL_READ_TOOL_NAME,
    description:
      'Read output of run_code that was over its size cap and spilled: pass the id from `{ spilled: { id, bytes } }`. ' +
      `Returns one page of the spilled JSON text, paged in UTF-8 bytes (at most ${maxOutputBytes} a page), and says where the next page starts and how many bytes are left. ` +
      'Prefer running a program that returns less; read a spill when you need what it holds.',
    parameters: {
      id: { type: 'string', required: true, minLength: 1, maxLength: 200, description: 'The spill id (`spilled.id`)' },
      offset: { type: 'integer', minimum: 0, default: 0, description: 'Byte offset to start at: 0, or `nextOffset` of the page before' },
      limit: { type: 'integer', minimum: 1, maximum: maxOutputBytes, description: `Most bytes of the spill to return (default: as many as fit in ${maxOutputBytes} bytes)` },
    },
    output: {
      schema: {
        type: 'object',
        properties: {
          id: { type: 'string', required: true },
          bytes: { type: 'integer', required: true, description: 'Bytes of the whole spilled JSON text' },
          offset: { type: 'integer', required: true, description: 'Byte offset where `text` starts' },
          nextOffset: { type: 'integer', required: true, description: 'Byte offset after `text`: the next page\'s offset' },
          remaining: { type: 'integer', required: true, description: 'Bytes after this page (0 at the end)' },
          text: { type: 'string', required: true, description: 'This page of the JSON text' },
        },
      },
      render: (_args, value) => renderSpillPage(value as SpillPage),
    },
    isConcurrencySafe: true,
    execute: (args, exec) => page(args, exec.agent, exec.host),
  });
  const marked = Object.freeze(Object.defineProperty({ ...tool }, REGISTERS_ITSELF, { enumerable: false, value: true })) as unknown as SpillReadTool;
  markSpillReadTool(marked);
  return marked;
}

const disposable = (cleanup: () => void): Disposable => {
  let done = false;
  const dispose = () => {
    if (!done) (done = true), cleanup();
  };
  return { dispose, [Symbol.dispose]: dispose };
};

// Per host: the spill_read a run_code registered there, and the run_code tools relying on it.
const bindings = new WeakMap<ToolHost, { users: Set<object>; registration: Disposable | undefined }>();

/**
 * Registers `tool` on `host` for `runCode` (called from run_code's ON_REGISTER), unless the host
 * already has a spill_read, which then serves this run_code too. Returns the disposable that
 * releases it: the spill_read stays registered while any run_code that relies on it is.
 * A different tool already named `spill_read` is left alone, with a warning: the description
 * then does not mention spill_read (it names only a spill_read it made).
 */
export function bindSpillRead(host: ToolHost, runCode: object, tool: SpillReadTool): Disposable {
  let binding = bindings.get(host);
  if (!binding) {
    const existing = host.get(SPILL_READ_TOOL_NAME);
    if (existing !== undefined && !isSpillReadTool(existing)) {
      process.emitWarning(`ptc-runtime: the host already has a tool named "${SPILL_READ_TOOL_NAME}" that run_code did not make; run_code's spills cannot be read back by the model (pass spillRead: false to createRunCodeTool to say so)`);
      return disposable(() => {});
    }
    binding = { users: new Set(), registration: existing === undefined ? host.register(tool) : undefined };
    bindings.set(host, binding);
  }
  const held = binding;
  held.users.add(runCode);
  return disposable(() => {
    held.users.delete(runCode);
    if (held.users.size > 0) return;
    held.registration?.dispose();
    if (bindings.get(host) === held) bindings.delete(host);
  });
}
