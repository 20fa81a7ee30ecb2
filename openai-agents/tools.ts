/**
 * `toAgentsTools(host)`: the host's tools as `FunctionTool`s for the OpenAI Agents SDK
 * (`@openai/agents-core` 0.20): `new Agent({ tools: toAgentsTools(host) })`. A thin translation:
 * every call goes through `host.call`, with the SDK's call id (`details.toolCall.callId`) as our
 * call id and its abort signal (`details.signal`, the run's `signal`) as ours. The SDK starts
 * every function call of a step at once, whatever the tool; a `StepScheduler` keyed by the run's
 * `RunContext` (which every call of a run shares, and a run's steps follow one another) holds
 * them to our scheduling rule, so an exclusive tool is a barrier as in `host.runTurn`, and the
 * SDK keeps the results in the model's order. What the model and the app read is in results.ts;
 * framework approval in approval.ts; OpenAI's hosted program callers in callers.ts.
 *
 * Parameters: our JSON Schema, as is, with `strict: false`. The SDK then only `JSON.parse`s the
 * arguments, and our pipeline is the one validator: invalid arguments come back as our error
 * naming the path, and the trace records the call as the model sent it. Strict mode is not used
 * because its conversion rewrites the schema the model reads (every optional field required and
 * nullable, so `null` would have to be turned back into "absent", which is lossy where `null`
 * is a value) and cannot express every constraint our declarations carry.
 *
 * Names: the SDK turns every character outside `[A-Za-z0-9]` into `_` (an MCP tool `fs.read-file`
 * is `fs_read_file` to the model); calls still reach the host's name. Two host tools that become
 * one SDK name are refused ({@link AgentsToolNameError}) rather than one hiding the other.
 *
 * One case never reaches the host: arguments that are not JSON at all. The SDK answers those
 * itself ("An error occurred while parsing tool arguments. Please try again with valid JSON.")
 * before any tool runs.
 */
import { randomUUID } from 'node:crypto';
import { tool, type FunctionTool, type FunctionToolCustomDataContext, type RunContext } from '@openai/agents-core';
import { InvalidOptionError, PtcError, reportSuspension, selectToolSchemas, StepScheduler, type AgentRef, type OnSuspended, type ToolHost, type ToolSchema, type ToolSelection } from '../tools/index.js';
import { approvalEvidence, needsApprovalFor } from './approval.js';
import { callerRefusal, originOfCaller, PROGRAMMATIC_CALLERS } from './callers.js';
import { callDataOf, CUSTOM_DATA_KEY, modelOutputOf, ResultStore, type AgentsToolOutput } from './results.js';

/** Options of {@link toAgentsTools}. */
export interface AgentsToolsOptions extends ToolSelection {
  /** Who the calls run for. The host's approval channel needs one: without it an `ask` is denied. */
  readonly agent?: AgentRef;
  /**
   * Who answers an `ask` for a direct call. `'host'` (default): the host's approval channel,
   * inside the call. `'framework'`: the SDK's human-in-the-loop flow (an interruption; the app
   * answers with `state.approve(item)` / `state.reject(item, { message })` and runs the state
   * again); the answer covers that one call, and guards run again when it executes. Sticky
   * `alwaysApprove` is ignored. Calls from a run_code program always use the host's channel.
   */
  readonly approval?: 'host' | 'framework';
  /**
   * Let programs in OpenAI's hosted programmatic tool calling call these tools too
   * (`allowedCallers: ['direct', 'programmatic']`; Responses API only). Such calls run through
   * the pipeline with origin `provider-program`. Default false: the SDK refuses them.
   */
  readonly programmaticCallers?: boolean;
  /**
   * Gets every durable run that suspends (run_code's `value.suspended`: a person must decide),
   * with its resume token, before the SDK sees the call's output. The model reads one line, the
   * output item's `customData.ptc.value` holds the suspension without the token (run state is
   * serialized and stored), and the run goes on; resume with `resumeAgentsRun`. Not an
   * interruption: those pause before a tool runs, and a program suspends inside one.
   */
  readonly onSuspended?: OnSuspended;
}

/** Two host tools would have the same name in the SDK (which maps `[^A-Za-z0-9]` to `_`). */
export class AgentsToolNameError extends PtcError {
  override readonly name = 'AgentsToolNameError';
  constructor(
    readonly sdkName: string,
    readonly toolNames: readonly string[],
  ) {
    super(`Tools ${toolNames.map((n) => JSON.stringify(n)).join(' and ')} would both be named "${sdkName}" in the Agents SDK (it replaces every character outside A-Z, a-z, 0-9 with "_"); rename one, or leave one out with exclude.`);
  }
}

/** What the SDK hands `execute` about the call (not exported by name). */
type ToolCallDetails = NonNullable<Parameters<FunctionTool['invoke']>[2]>;

/** A tool's JSON Schema as the SDK types it (a non-strict schema is passed through as given). */
type AgentsParameters = Extract<Parameters<typeof tool>[0], { strict: false }>['parameters'];

/**
 * The host's tools (all, or `include` minus `exclude`, in registration order) as Agents SDK
 * function tools. Tools registered later are not in the list: call again for a fresh one.
 * Throws `ToolSelectionError` for an unknown name in `include`/`exclude`, and
 * {@link AgentsToolNameError} for two tools the SDK would give one name.
 */
export function toAgentsTools(host: ToolHost, options: AgentsToolsOptions = {}): FunctionTool[] {
  const approval = options.approval ?? 'host';
  if (approval !== 'host' && approval !== 'framework') throw new InvalidOptionError({ where: 'toAgentsTools', option: 'approval', value: approval, expected: "'host' or 'framework'" });
  const programmaticCallers = options.programmaticCallers ?? false;
  if (typeof programmaticCallers !== 'boolean') throw new InvalidOptionError({ where: 'toAgentsTools', option: 'programmaticCallers', value: programmaticCallers, expected: 'a boolean' });
  const shared: Shared = { host, agent: options.agent, approval, programmaticCallers, results: new ResultStore(), scheduler: new StepScheduler(host), neverCalledId: `ptc-runtime:never-called:${randomUUID()}`, onSuspended: options.onSuspended };
  const tools = selectToolSchemas(host, options).map((schema) => agentsTool(shared, schema));
  const hostNameOf = new Map<string, string>();
  for (const t of tools) {
    const taken = hostNameOf.get(t.tool.name);
    if (taken !== undefined) throw new AgentsToolNameError(t.tool.name, [taken, t.hostName]);
    hostNameOf.set(t.tool.name, t.hostName);
  }
  return tools.map((t) => t.tool);
}

interface Shared {
  readonly host: ToolHost;
  readonly agent: AgentRef | undefined;
  readonly approval: 'host' | 'framework';
  readonly programmaticCallers: boolean;
  readonly results: ResultStore;
  readonly scheduler: StepScheduler;
  readonly neverCalledId: string;
  readonly onSuspended: OnSuspended | undefined;
}

function agentsTool(shared: Shared, schema: ToolSchema): { tool: FunctionTool; hostName: string } {
  const { host, agent, approval, results } = shared;
  const hostName = schema.name;
  let sdkName = hostName;
  const functionTool = tool({
    name: hostName,
    description: schema.description,
    parameters: schema.parameters as unknown as AgentsParameters,
    strict: false,
    // A throw here is a bug of ours (host.call never throws for a failed call): let it surface
    // instead of the SDK's generic "An error occurred" text.
    errorFunction: null,
    ...(approval === 'framework' ? { needsApproval: needsApprovalFor(host, hostName, agent) } : {}),
    ...(shared.programmaticCallers ? { allowedCallers: PROGRAMMATIC_CALLERS } : {}),
    async execute(input: unknown, runContext?: RunContext, details?: ToolCallDetails): Promise<AgentsToolOutput> {
      const toolCall = details?.toolCall;
      const callId = toolCall?.callId;
      const origin = originOfCaller(toolCall?.caller);
      const approved = approval === 'framework' ? approvalEvidence(runContext, sdkName, callId, shared.neverCalledId) : undefined;
      const signal = details?.signal;
      const call = { id: callId as string, name: hostName, args: input };
      const refusal = callerRefusal(hostName, toolCall?.caller, shared.programmaticCallers);
      if (refusal !== undefined && origin && typeof callId === 'string') {
        const [refused] = await host.runTurn([call], { ...(agent ? { agent } : {}), ...(signal ? { signal } : {}), perCall: new Map([[callId, { origin, refusal }]]) });
        results.set(runContext, callId, refused!);
        return modelOutputOf(refused!);
      }
      const called = await shared.scheduler.call(runContext, call, { ...(agent ? { agent } : {}), ...(signal ? { signal } : {}), ...(origin ? { origin } : {}), ...(approved ? { approved } : {}) });
      // A suspension's token goes to the app alone; the output item (run state) has none.
      const result = await reportSuspension(called, shared.onSuspended);
      results.set(runContext, callId, result);
      return modelOutputOf(result);
    },
    customDataExtractor({ runContext, toolCall }: FunctionToolCustomDataContext) {
      const result = results.take(runContext, toolCall?.callId);
      return result ? { [CUSTOM_DATA_KEY]: { ...callDataOf(result) } } : undefined;
    },
  });
  sdkName = functionTool.name;
  return { tool: functionTool as FunctionTool, hostName };
}
