/**
 * ptc-runtime in LangChain and LangGraph: the host's tools, run_code among them, as structured
 * tools for a chat model's bindTools and LangGraph's ToolNode. Every call the model makes, and
 * every call its program makes, goes through the host's pipeline and trace. Pass any chat model
 * with tool calling (`new ChatAnthropic(...)`, `new ChatOpenAI(...)`); run directly, it uses
 * @langchain/core's scripted model so it works offline.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { runToolCalls, toLangChainTools } from 'ptc-runtime/langchain';
import { createRunCodeTool } from 'ptc-runtime/runtime';
import { createHost } from './tools.js';
import { EXAMPLE_PROGRAM, EXAMPLE_PROMPT } from './design-spend.js';

const PROMPT = EXAMPLE_PROMPT;
const AGENT = { id: 'analyst' };

/** LangGraph's agent graph: the model, then a ToolNode over our tools, until the model answers. */
export async function langGraphExample(model: BaseChatModel) {
  const host = createHost(); // the example tools (team, expenses, documents) and their policy
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 } });
  host.register(runCode);
  try {
    const tools = toLangChainTools(host, { agent: AGENT });
    const bound = model.bindTools!(tools);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state, config) => ({ messages: [await bound.invoke(state.messages, config)] }))
      .addNode('tools', new ToolNode(tools))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile();
    const { messages } = await graph.invoke({ messages: [new HumanMessage(PROMPT)] }, { recursionLimit: 10 });
    return messages;
  } finally {
    await runCode.close();
  }
}

/** The same without LangGraph: a loop of your own, each reply's tool calls as one host.runTurn. */
export async function toolLoopExample(model: BaseChatModel, maxTurns = 5) {
  const host = createHost();
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 } });
  host.register(runCode);
  try {
    const bound = model.bindTools!(toLangChainTools(host, { agent: AGENT }));
    const messages: BaseMessage[] = [new HumanMessage(PROMPT)];
    for (let turn = 0; turn < maxTurns; turn++) {
      const reply = await bound.invoke(messages);
      messages.push(reply);
      if (!reply.tool_calls?.length) break;
      // ToolMessages in call order: the content the model reads, the canonical value as artifact.
      messages.push(...(await runToolCalls(host, reply, { agent: AGENT })));
    }
    return messages;
  } finally {
    await runCode.close();
  }
}

/** The program the scripted model sends (tests reuse it). */
export { EXAMPLE_PROGRAM };

if (process.argv[1]?.endsWith('langchain.js')) {
  const { fakeModel } = await import('@langchain/core/testing');
  const { AIMessage } = await import('@langchain/core/messages');
  const model = fakeModel()
    .respondWithTools([{ id: 'call_1', name: 'run_code', args: { code: EXAMPLE_PROGRAM } }])
    .respond(new AIMessage('(the model would answer from the totals here)'));
  const messages = await langGraphExample(model);
  const toolMessage = messages.find((m) => m.getType() === 'tool');
  console.log(JSON.stringify((toolMessage as { artifact?: unknown } | undefined)?.artifact, null, 2));
}
