/**
 * `toLangChainTools(host)`: the host's tools as LangChain `StructuredTool`s, for a chat model's
 * `bindTools`, LangGraph's `ToolNode` and any loop that invokes tools with tool calls
 * (@langchain/core 1.x). A thin translation:
 *
 * - Every call goes through `host.call` (never a tool's `execute`). Our call id is LangChain's
 *   tool call id (`config.toolCall.id`: `tool.invoke(toolCall)` puts the call there, and
 *   ToolNode invokes each tool with its call); a tool invoked with bare arguments, or with a
 *   call that has no id, gets a fresh `langchain-<uuid>`, and the message carries that id.
 *   LangChain's `config.signal` (the graph's or the app's) is our signal.
 * - The arguments reach our pipeline as the model sent them: the tool's `schema` lets all
 *   input through (input-schema.ts), so our pipeline is the one validator and invalid arguments
 *   come back as our error naming the argument path.
 * - The outcome is a `ToolMessage` the tool returns, never throws (results.ts): `status:
 *   'error'` with our message for every failure and denial, the canonical value as `artifact`.
 * - Scheduling: ToolNode starts all calls of an AI message at once (`Promise.all`), each
 *   through its own tool. The calls of one ToolNode run share a queue under the scheduling
 *   rule (`StepScheduler`, keyed by the ToolNode's input, which it hands every call as
 *   `config.state`), so an exclusive tool runs alone, as in `host.runTurn`. Calls that come
 *   without a ToolNode's state (`tool.invoke` in a loop of your own) share one queue per
 *   `toLangChainTools` set: slower, never unsafe. `runToolCalls` runs an AI message's calls as
 *   one `host.runTurn` instead.
 *
 * Approval is the host's channel (`createToolHost({ approval })`), asked inside the call for
 * `agent`; without a channel or an agent an `ask` fails closed. There is no LangGraph
 * `interrupt()` flow: a node that interrupts is run again from its start on resume, so the
 * other calls of the same ToolNode run would run twice.
 */
import { randomUUID } from 'node:crypto';
import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import type { ToolMessage } from '@langchain/core/messages';
import { StructuredTool, type ToolRunnableConfig } from '@langchain/core/tools';
import { reportSuspension, selectToolSchemas, StepScheduler, type AgentRef, type OnSuspended, type ToolHost, type ToolSchema, type ToolSelection } from '../tools/index.js';
import { passThroughSchema, type PassThroughSchema } from './input-schema.js';
import { toolMessageOf } from './results.js';

/** Options of {@link toLangChainTools}. */
export interface LangChainToolsOptions extends ToolSelection {
  /** Who the calls run for. The host's approval channel needs one: without it an `ask` is denied. */
  readonly agent?: AgentRef;
  /**
   * Gets every durable run that suspends (run_code's `value.suspended`: a person must decide),
   * with its resume token. The `ToolMessage`'s content is the one line the model reads, its
   * `artifact` the suspension without the token (messages are checkpointed and traced); resume
   * with `resumeLangChainRun`.
   */
  readonly onSuspended?: OnSuspended;
}

interface Shared {
  readonly host: ToolHost;
  readonly agent: AgentRef | undefined;
  readonly steps: StepScheduler;
  readonly onSuspended: OnSuspended | undefined;
}

/**
 * One of the host's tools as a LangChain `StructuredTool`. Invoked with a tool call (or by a
 * ToolNode) it resolves to a `ToolMessage` for that call; invoked with bare arguments, to a
 * `ToolMessage` whose `tool_call_id` is the id the adapter gave the call. It never rejects for
 * a failed call.
 */
export class HostStructuredTool extends StructuredTool<PassThroughSchema, unknown, unknown, ToolMessage> {
  static override lc_name(): string {
    return 'HostStructuredTool';
  }

  override name: string;
  override description: string;
  override schema: PassThroughSchema;
  readonly #shared: Shared;

  /** Built by {@link toLangChainTools}; not meant to be called directly. */
  constructor(schema: ToolSchema, shared: Shared) {
    // Nothing is passed up: LangChain serializes a tool's constructor fields into callbacks and traces.
    super();
    this.name = schema.name;
    this.description = schema.description;
    this.schema = passThroughSchema(schema.parameters);
    this.#shared = shared;
  }

  protected override async _call(args: unknown, _runManager?: CallbackManagerForToolRun, config?: ToolRunnableConfig): Promise<ToolMessage> {
    const { host, agent, steps, onSuspended } = this.#shared;
    const given = config?.toolCall?.id;
    const id = typeof given === 'string' && given !== '' ? given : `langchain-${randomUUID()}`;
    const signal = config?.signal;
    const called = await steps.call(stepOf(config), { id, name: this.name, args }, { ...(agent ? { agent } : {}), ...(signal ? { signal } : {}) });
    const result = await reportSuspension(called, onSuspended);
    return toolMessageOf(result, id);
  }
}

/** The object every call of one ToolNode run carries: the node's input (`config.state`). */
function stepOf(config: ToolRunnableConfig | undefined): unknown {
  try {
    return (config as { state?: unknown } | undefined)?.state;
  } catch {
    return undefined;
  }
}

/**
 * The host's tools (all, or `include` minus `exclude`, in registration order) as LangChain
 * structured tools. Tools registered later are not among them: call again for a fresh set.
 * Throws a `ToolSelectionError` naming a tool that `include` or `exclude` lists and the host
 * lacks.
 */
export function toLangChainTools(host: ToolHost, options: LangChainToolsOptions = {}): HostStructuredTool[] {
  const shared: Shared = { host, agent: options.agent, steps: new StepScheduler(host), onSuspended: options.onSuspended };
  return selectToolSchemas(host, options).map((schema) => new HostStructuredTool(schema, shared));
}
