/**
 * A durable run in the OpenAI Agents SDK's own loop. The model writes a program that flags an
 * expense; flagging asks a person who is not there, so the approval channel answers `'defer'`
 * and the run suspends: its process is freed, the model reads one line (a person must decide, do
 * not run the program again), the output item's `customData.ptc.value` holds the suspension
 * without its token, and the app gets the whole suspension in `onSuspended`. This is not an SDK
 * interruption (those pause before a tool runs; a program suspends inside one), so the agent run
 * ends normally. Later the app resumes it with the person's decision: `resumeAgentsRun` gives the
 * input item to append to the run's history, and the model's next turn reads the program's final
 * value. Run directly, it uses the SDK's ScriptedModel so it works offline.
 *
 * (Imports are relative, as in demo.ts: the example tools' host and the runtime must be one copy
 * of the package. In an app: `ptc-runtime/openai-agents`, `ptc-runtime/runtime`.)
 */
import { Agent, Runner, type AgentInputItem, type Model } from '@openai/agents-core';
import { agentsCallData, resumeAgentsRun, toAgentsTools, type RunSuspension } from '../openai-agents/index.js';
import { createMemoryRunStore, createRunCodeTool, type RunStore } from '../runtime/index.js';
import { createHost } from './tools.js';
import { FLAG_PROGRAM, FLAG_PROMPT } from './durable-ai-sdk.js';

export { FLAG_PROGRAM, FLAG_PROMPT };

// Tracing exports to OpenAI's servers; it is off here so the example runs offline.
const runner = new Runner({ tracingDisabled: true });

/** Options of {@link createDurableAgentsApp}. */
export interface DurableAgentsAppOptions {
  /** Where suspended runs wait (`createFileRunStore({ dir })` in an app; every replica shares it). */
  readonly store?: RunStore;
  /** The key resume tokens are signed with (32 bytes or more; from a secret store). */
  readonly key: string;
  /** The conversation so far (`result.history` of the last run, as the app stored it). */
  readonly history?: AgentInputItem[];
}

/** A small app: one conversation, its durable run_code, and the suspensions waiting for a person. */
export function createDurableAgentsApp(options: DurableAgentsAppOptions) {
  const ref = { id: 'analyst' };
  const host = createHost({ approval: { request: async ({ deferrable }) => (deferrable ? 'defer' : 'deny') } });
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 }, durable: { store: options.store ?? createMemoryRunStore(), keys: { current: options.key } } });
  host.register(runCode);
  const suspensions: RunSuspension[] = []; // server-side: the token is a secret
  const tools = toAgentsTools(host, { agent: ref, onSuspended: (s) => void suspensions.push(s) });
  let history: AgentInputItem[] = [...(options.history ?? [])];
  const agent = (model: Model) => new Agent({ name: 'analyst', instructions: 'Answer from the tools. When a task needs several calls, write one run_code program.', model, tools });

  async function turn(model: Model, input: AgentInputItem[]) {
    const result = await runner.run(agent(model), input);
    history = result.history;
    return { finalOutput: result.finalOutput, calls: result.newItems.map(agentsCallData).filter((c) => c !== undefined) };
  }

  return {
    suspensions,
    history: () => history,
    /** The user asks; the model may write a program that suspends. */
    ask: (model: Model, prompt: string) => turn(model, [...history, { type: 'message', role: 'user', content: prompt }]),
    /** A person decided every pending call of `suspension`: resume, append the outcome, run the agent again. */
    async decide(model: Model, suspension: RunSuspension, decision: 'allow-once' | 'deny', by: string) {
      const resumed = await resumeAgentsRun(runCode, suspension, { agent: ref, decisions: suspension.pending.map((p) => ({ approvalId: p.approvalId, decision, by })) });
      if (resumed.suspension) suspensions.push(resumed.suspension);
      return { resumed, reply: await turn(model, [...history, resumed.message]) };
    },
    close: () => runCode.close(),
  };
}

if (process.argv[1]?.endsWith('durable-openai-agents.js')) {
  const { ScriptedModel, assistantMessage, functionCall } = await import('@openai/agents-core/testing');
  const model = new ScriptedModel([
    [functionCall('run_code', { code: FLAG_PROGRAM }, { callId: 'call_1' })],
    [assistantMessage('Flagging needs a person to approve; I will go on once they decide.')],
    [assistantMessage('Done: the expense is flagged.')],
  ]);
  const app = createDurableAgentsApp({ key: 'example-key-'.padEnd(32, '0') });
  try {
    await app.ask(model, FLAG_PROMPT);
    const { resumed } = await app.decide(model, app.suspensions[0]!, 'allow-once', 'ops@example.com');
    console.log(resumed.text);
  } finally {
    await app.close();
  }
}
