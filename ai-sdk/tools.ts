/**
 * `toAiSdkTools(host)`: the host's tools as an AI SDK `ToolSet`, for `generateText`,
 * `streamText` and `ToolLoopAgent` (ai 6 and 7). A thin translation: every call goes through
 * `host.call`, with the SDK's `toolCallId` as our call id and its `abortSignal` as our signal,
 * and under the scheduling rule among the calls of one step (the SDK starts them all at once).
 * The SDK validates nothing (`jsonSchema()` without a validate function): our pipeline is the one
 * validator, so invalid arguments come back as our error naming the argument path, and the trace
 * records them. Results, errors and denials are mapped in results.ts; framework approval is in
 * approval.ts.
 */
import { jsonSchema, type JSONSchema7, type ToolExecutionOptions, type ToolSet } from 'ai';
import { InvalidOptionError, reportSuspension, selectToolSchemas, StepScheduler, type AgentRef, type JsonValue, type OnSuspended, type ToolHost, type ToolSchema, type ToolSelection } from '../tools/index.js';
import { approvalEvidence, needsApprovalFor } from './approval.js';
import { AiSdkToolError, deniedOutput, modelOutputOf, modelOutputOfStored, ResultStore, type DeniedToolOutput } from './results.js';

/** Options of {@link toAiSdkTools}. */
export interface AiSdkToolsOptions extends ToolSelection {
  /** Who the calls run for. The host's approval channel needs one: without it an `ask` is denied. */
  readonly agent?: AgentRef;
  /**
   * Who answers an `ask` for a direct call. `'host'` (default): the host's approval channel,
   * inside the call. `'framework'`: the SDK's tool-approval flow (`tool-approval-request` parts;
   * the app answers with `tool-approval-response` and calls again); the answer covers that one
   * call, and guards run again when it executes. Calls from a run_code program always use the
   * host's channel: no framework can pause its loop from inside a running tool.
   */
  readonly approval?: 'host' | 'framework';
  /**
   * Gets every durable run that suspends (run_code's `value.suspended`, a person must decide),
   * with its resume token, before the SDK sees the call's result. The step's output carries the
   * suspension without the token, and the model reads one line; resume with `resumeAiSdkRun`.
   */
  readonly onSuspended?: OnSuspended;
}

/** The output of one of our tools as the app sees it: the canonical value, or a denial. */
export type AiSdkToolOutput = JsonValue | DeniedToolOutput;

/**
 * The host's tools (all, or `include` minus `exclude`, in registration order) as an AI SDK
 * `ToolSet`. Tools registered later are not in it: call again for a fresh set. Throws a
 * `ToolSelectionError` naming a tool that `include` or `exclude` lists and the host lacks.
 */
export function toAiSdkTools(host: ToolHost, options: AiSdkToolsOptions = {}): ToolSet {
  const approval = options.approval ?? 'host';
  if (approval !== 'host' && approval !== 'framework') throw new InvalidOptionError({ where: 'toAiSdkTools', option: 'approval', value: approval, expected: "'host' or 'framework'" });
  const store = new ResultStore();
  const steps = new StepScheduler(host);
  const tools: ToolSet = {};
  const { agent, onSuspended } = options;
  for (const schema of selectToolSchemas(host, options)) tools[schema.name] = aiSdkTool(host, schema, { agent, approval, store, steps, onSuspended });
  return tools;
}

interface Shared {
  readonly agent: AgentRef | undefined;
  readonly approval: 'host' | 'framework';
  readonly store: ResultStore;
  readonly steps: StepScheduler;
  readonly onSuspended: OnSuspended | undefined;
}

function aiSdkTool(host: ToolHost, schema: ToolSchema, { agent, approval, store, steps, onSuspended }: Shared): ToolSet[string] {
  const name = schema.name;
  return {
    description: schema.description,
    inputSchema: jsonSchema(schema.parameters as JSONSchema7),
    ...(approval === 'framework' ? { needsApproval: needsApprovalFor(host, name, agent) } : {}),
    async execute(input: unknown, options: ToolExecutionOptions<unknown>): Promise<AiSdkToolOutput> {
      const toolCallId = options?.toolCallId;
      const approved = approval === 'framework' ? approvalEvidence(options?.messages, toolCallId) : undefined;
      const signal = options?.abortSignal;
      // The SDK starts a step's calls at once; every call of a step gets the same messages array.
      const called = await steps.call(options?.messages, { id: toolCallId, name, args: input }, { ...(agent ? { agent } : {}), ...(signal ? { signal } : {}), ...(approved ? { approved } : {}) });
      // A suspension's token goes to the app alone; the output (stored, streamed to UIs) has none.
      const result = await reportSuspension(called, onSuspended);
      if (result.denied) {
        store.set(input, result);
        return deniedOutput(result);
      }
      if (result.isError) throw new AiSdkToolError(result);
      store.set(input, result);
      return result.value ?? null;
    },
    toModelOutput({ toolCallId, input, output }: { toolCallId: string; input: unknown; output: unknown }) {
      const result = store.get(input, toolCallId);
      return result ? modelOutputOf(result) : modelOutputOfStored(output);
    },
  };
}
