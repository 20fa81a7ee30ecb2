/**
 * ptc-runtime in the OpenAI Agents SDK's own loop: the host's tools, run_code among them, as
 * function tools of an Agent. Every call the model makes, and every call its program makes, goes
 * through the host's pipeline and trace. Pass any Agents SDK model (a name such as 'gpt-5' with
 * @openai/agents' default provider, or a Model); run directly, it uses the SDK's ScriptedModel so
 * it works offline.
 *
 * The second function shows approval in the SDK's own flow: `expense_flag` asks (the example
 * policy), the run stops with an interruption, the state crosses a process boundary as a string,
 * and the approved call runs once.
 */
import { Agent, RunState, Runner, type Model } from '@openai/agents-core';
import { agentsCallData, toAgentsTools } from 'ptc-runtime/openai-agents';
import { createRunCodeTool } from 'ptc-runtime/runtime';
import { createHost } from './tools.js';
import { EXAMPLE_PROGRAM, EXAMPLE_PROMPT } from './design-spend.js';

// Tracing exports to OpenAI's servers; it is off here so the example runs offline.
const runner = new Runner({ tracingDisabled: true });

export async function openAiAgentsExample(model: Model | string) {
  const host = createHost(); // the example tools (team, expenses, documents) and their policy
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 } });
  host.register(runCode);
  try {
    const agent = new Agent({
      name: 'analyst',
      instructions: 'Answer from the tools. When a question needs several calls, write one run_code program.',
      model,
      tools: toAgentsTools(host, { agent: { id: 'analyst' } }), // run_code and every tool beside it
    });
    const result = await runner.run(agent, EXAMPLE_PROMPT);
    // The model read our rendered output; the app reads each call's canonical value.
    const calls = result.newItems.map(agentsCallData).filter((c) => c !== undefined);
    return { finalOutput: result.finalOutput, calls };
  } finally {
    await runCode.close();
  }
}

/** One expense flagged with a person's approval given in the Agents SDK's flow. */
export async function openAiAgentsApprovalExample(models: { first: Model; resumed: Model }) {
  const host = createHost();
  const tools = () => toAgentsTools(host, { agent: { id: 'analyst' }, approval: 'framework' });
  const agent = (model: Model) => new Agent({ name: 'analyst', instructions: 'Flag what breaks the rules.', model, tools: tools() });

  const paused = await runner.run(agent(models.first), 'Flag exp-0001: the receipt is missing.');
  const asked = paused.interruptions.map((item) => ({ tool: item.name, arguments: item.arguments }));
  const saved = paused.state.toString(); // e.g. stored while a person decides

  // Later, perhaps in another process: the same agent definition, the saved state.
  const resumedAgent = agent(models.resumed);
  const state = await RunState.fromString(resumedAgent, saved);
  for (const item of state.getInterruptions()) state.approve(item); // this call only, never alwaysApprove
  const result = await runner.run(resumedAgent, state);
  return { asked, finalOutput: result.finalOutput, calls: result.newItems.map(agentsCallData).filter((c) => c !== undefined) };
}

/** The program the scripted model sends (tests reuse it). */
export { EXAMPLE_PROGRAM };

if (process.argv[1]?.endsWith('openai-agents.js')) {
  const { ScriptedModel, assistantMessage, functionCall } = await import('@openai/agents-core/testing');
  const model = new ScriptedModel([[functionCall('run_code', { code: EXAMPLE_PROGRAM }, { callId: 'call_1' })], [assistantMessage('(the model would answer from the totals here)')]]);
  const { calls } = await openAiAgentsExample(model);
  console.log(JSON.stringify(calls[0]?.value, null, 2));
}
