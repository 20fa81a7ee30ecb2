/**
 * Reading the `tool_use` blocks of a message as calls for the host. The message is untrusted
 * (an API response, or history an app stored and read back), so every block is read field by
 * field, once, and a read that throws never escapes: the block still becomes a call, which the
 * pipeline refuses and records.
 *
 * - Blocks that are not `tool_use` are not ours to answer: text, thinking, and the server
 *   tools' own blocks (`server_tool_use`, `code_execution_tool_result`, ...), which Anthropic ran.
 * - A `tool_use` of a toolset member (`toolset_name` set: the browser or computer toolset) is
 *   the toolset's, dispatched by family, never by name: it is left for the app, even when its
 *   name is one of our tools.
 * - Every other `tool_use` is a call, malformed or not: the pipeline validates its id, name and
 *   input, and its refusal is the error result the model reads.
 * - `caller`: absent or `{ type: 'direct' }` is Claude's own call. Anything else is a call from
 *   a program in Anthropic's sandbox: with a usable `tool_id` it gets the origin
 *   `{ kind: 'provider-program', provider: 'anthropic', callerId: tool_id }`; without one it gets
 *   an origin the pipeline refuses (never the model's: a policy that trusts Claude's direct
 *   calls more than a program's must not be handed a program's call as a direct one). Whether
 *   that program's call may run at all is program-callers.ts's to judge.
 */
import type { ProviderProgramOrigin, ToolCall } from '../tools/index.js';
import { codeExecutionIdOf } from './program-callers.js';

/** One `tool_use` block, read. */
export interface ToolUse {
  /** The call for the host: the block's `id`, `name` and `input` as given. */
  readonly call: ToolCall;
  /** The id the `tool_result` answers: the block's `id` when it is a string, else `''`. */
  readonly toolUseId: string;
  /** Set when a program in Anthropic's code execution tool made the call. */
  readonly origin?: ProviderProgramOrigin;
  /** The caller's `type` (`code_execution_20260120`, ...), when `origin` names a program. */
  readonly callerType?: string;
}

/** The `tool_use` blocks of a message, and the ids of its code execution blocks. */
export interface MessageToolUses {
  readonly uses: ToolUse[];
  readonly codeExecutionIds: ReadonlySet<string>;
}

/**
 * The `tool_use` blocks of `message` (an API `Message`, a `BetaMessage`, or a `MessageParam`
 * from history), in order. A string `content` has none. Throws a `TypeError` only when
 * `message` is not an object with a `content` string or array: there is nothing to answer then,
 * and no block to name.
 */
export function readToolUses(message: unknown): ToolUse[] {
  return readMessageToolUses(message).uses;
}

/** {@link readToolUses}, with the ids of the message's code execution blocks (program-callers.ts). */
export function readMessageToolUses(message: unknown): MessageToolUses {
  if (typeof message !== 'object' || message === null) throw new TypeError(`runToolUses(host, message): message must be a Message, got ${message === null ? 'null' : typeof message}`);
  const { value: content, failed } = read(message, 'content');
  if (failed) throw new TypeError('runToolUses(host, message): message.content could not be read');
  const codeExecutionIds = new Set<string>();
  if (typeof content === 'string') return { uses: [], codeExecutionIds };
  if (!Array.isArray(content)) throw new TypeError(`runToolUses(host, message): message.content must be an array of content blocks, got ${content === null ? 'null' : typeof content}`);
  const uses: ToolUse[] = [];
  const length = read(content, 'length').value as number;
  for (let i = 0; i < length; i++) {
    const block = read(content, String(i));
    // An element that cannot even be read has no id to answer: it is nothing we can run.
    const use = block.failed ? undefined : readToolUse(block.value);
    if (use) uses.push(use);
    const codeExecutionId = block.failed ? undefined : codeExecutionIdOf(block.value);
    if (codeExecutionId !== undefined) codeExecutionIds.add(codeExecutionId);
  }
  return { uses, codeExecutionIds };
}

/** One block as a call, or undefined when it is not ours to answer. */
export function readToolUse(block: unknown): ToolUse | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const type = read(block, 'type');
  if (type.value !== 'tool_use') return undefined;
  const toolset = read(block, 'toolset_name');
  if (typeof toolset.value === 'string' && toolset.value !== '') return undefined;
  const id = read(block, 'id');
  const name = read(block, 'name');
  const input = read(block, 'input');
  const caller = read(block, 'caller');
  const toolUseId = typeof id.value === 'string' ? id.value : '';
  const call: ToolCall = Object.freeze({
    id: toolUseId,
    name: typeof name.value === 'string' ? name.value : name.failed ? '(unreadable name)' : String(name.value),
    args: input.value,
  });
  // A field that could not be read: refuse through the origin (recorded), never guess it.
  const origin = caller.failed || toolset.failed ? UNREADABLE : originOf(caller.value);
  const callerType = origin && origin.callerId !== '' ? (read(caller.value as object, 'type').value as string) : undefined;
  return Object.freeze({ call, toolUseId, ...(origin ? { origin } : {}), ...(callerType !== undefined ? { callerType } : {}) });
}

/**
 * The origin of a call from its `caller`: undefined for Claude's direct call, the provider's
 * program otherwise. A caller that is not direct and names no usable program gets an origin
 * whose empty `callerId` the pipeline refuses as malformed.
 */
export function originOf(caller: unknown): ProviderProgramOrigin | undefined {
  if (caller === undefined || caller === null) return undefined;
  if (typeof caller !== 'object') return UNREADABLE;
  const type = read(caller, 'type');
  if (type.value === 'direct') return undefined;
  const toolId = read(caller, 'tool_id');
  if (typeof type.value !== 'string' || typeof toolId.value !== 'string') return UNREADABLE;
  return Object.freeze({ kind: 'provider-program', provider: 'anthropic', callerId: toolId.value });
}

const UNREADABLE: ProviderProgramOrigin = Object.freeze({ kind: 'provider-program', provider: 'anthropic', callerId: '' });

/** A property read once; a getter or Proxy trap that throws makes it `failed`. */
function read(target: object, key: string): { readonly value: unknown; readonly failed: boolean } {
  try {
    return { value: (target as Record<string, unknown>)[key], failed: false };
  } catch {
    return { value: undefined, failed: true };
  }
}
