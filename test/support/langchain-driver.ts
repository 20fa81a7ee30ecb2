/**
 * Contract drivers for ptc-runtime/langchain over the real packages, offline: @langchain/core's
 * scripted chat model (`fakeModel()` from `@langchain/core/testing`, tools bound with
 * `bindTools`) plays the model. Two loops:
 *
 * - LangGraph's agent graph: a model node and a `ToolNode` over `toLangChainTools`, routed by
 *   `toolsCondition` (the loop `createReactAgent` and LangGraph's docs build);
 * - a loop written by hand: the model, `runToolCalls` (one `host.runTurn`), the model again.
 *
 * What the model was shown is read from the messages the fake model got on its second call.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import type { AdapterDriver, RunOptions, SeenResult, TurnOutcome } from '../adapter-contract.js';
import { runToolCalls, toLangChainTools } from '../../langchain/index.js';

/** Every piece of text the model reads in a ToolMessage's content, joined by newlines. */
export function textOf(message: ToolMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : `[${block.type}]`)).join('\n');
}

/** What the model was shown for each call, and the artifact of each call that succeeded. */
export function outcomeOf(messages: readonly BaseMessage[]): TurnOutcome {
  const seen = new Map<string, SeenResult>();
  const outputs = new Map<string, unknown>();
  for (const message of messages) {
    if (!ToolMessage.isInstance(message)) continue;
    seen.set(message.tool_call_id, { form: message.status === 'error' ? 'error' : 'result', text: textOf(message) });
    if (message.status !== 'error') outputs.set(message.tool_call_id, message.artifact);
  }
  return { seen, outputs, pendingApprovals: [] };
}

/** A fake model that makes `calls` in one step, then answers "done". */
export function scriptedModel(options: Pick<RunOptions, 'calls'>) {
  return fakeModel()
    .respondWithTools(options.calls.map((c) => ({ id: c.id, name: c.name, args: c.args as Record<string, unknown> })))
    .respond(new AIMessage('done'));
}

const hostApprovalOnly = (options: RunOptions) => {
  if (options.approval !== 'host') throw new Error('ptc-runtime/langchain has no framework approval flow');
};

/** LangGraph's agent graph: model node, ToolNode, back to the model. */
export const langGraphDriver: AdapterDriver = {
  async run(options) {
    hostApprovalOnly(options);
    const { host, agent, signal } = options;
    const tools = toLangChainTools(host, { agent });
    const model = scriptedModel(options);
    const bound = model.bindTools(tools);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state, config) => ({ messages: [await bound.invoke(state.messages, config)] }))
      .addNode('tools', new ToolNode(tools))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile();
    await graph.invoke({ messages: [new HumanMessage('go')] }, signal ? { signal } : {});
    return outcomeOf(model.calls[1]?.messages ?? []);
  },
};

/** A loop written by hand around runToolCalls. */
export const runToolCallsDriver: AdapterDriver = {
  async run(options) {
    hostApprovalOnly(options);
    const { host, agent, signal } = options;
    const model = scriptedModel(options);
    const bound = model.bindTools(toLangChainTools(host, { agent }));
    const messages: BaseMessage[] = [new HumanMessage('go')];
    const reply = await bound.invoke(messages, signal ? { signal } : {});
    messages.push(reply, ...(await runToolCalls(host, reply, { agent, ...(signal ? { signal } : {}) })));
    await bound.invoke(messages, signal ? { signal } : {});
    return outcomeOf(model.calls[1]?.messages ?? []);
  },
};
