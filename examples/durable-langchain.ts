/**
 * A durable run in a LangGraph agent graph with a checkpointer. The model writes a program that
 * flags an expense; flagging asks a person who is not there, so the approval channel answers
 * `'defer'` and the run suspends: its process is freed, the `ToolMessage` the model reads is one
 * line (a person must decide, do not run the program again), its `artifact` the suspension
 * without its token, and the app gets the whole suspension in `onSuspended`. The graph goes on
 * to the model and ends. Later (a restart, another replica sharing the run store, the
 * checkpointer and the key) the app resumes it with the person's decision:
 * `resumeLangChainRun` gives the `HumanMessage` to send to the same thread, and the model's next
 * turn reads the program's final value. Not LangGraph's `interrupt()`: a node that interrupts
 * runs again from its start, and a program suspends inside a tool. Run directly, it uses
 * @langchain/core's scripted model so it works offline.
 *
 * (Imports are relative, as in demo.ts: the example tools' host and the runtime must be one copy
 * of the package. In an app: `ptc-runtime/langchain`, `ptc-runtime/runtime`.)
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { resumeLangChainRun, toLangChainTools, type RunSuspension } from '../langchain/index.js';
import { createMemoryRunStore, createRunCodeTool, type RunStore } from '../runtime/index.js';
import { createHost } from './tools.js';
import { FLAG_PROGRAM, FLAG_PROMPT } from './durable-ai-sdk.js';

export { FLAG_PROGRAM, FLAG_PROMPT };

/** Options of {@link createDurableLangGraphApp}. */
export interface DurableLangGraphAppOptions {
  readonly model: BaseChatModel;
  /** Where suspended runs wait (`createFileRunStore({ dir })` in an app; every replica shares it). */
  readonly store?: RunStore;
  /** The key resume tokens are signed with (32 bytes or more; from a secret store). */
  readonly key: string;
  /** The graph's checkpointer (a database-backed one in an app), which keeps each thread's messages. */
  readonly checkpointer?: BaseCheckpointSaver;
}

/** A small app: a checkpointed agent graph over a durable run_code, and the suspensions waiting for a person. */
export function createDurableLangGraphApp(options: DurableLangGraphAppOptions) {
  const agent = { id: 'analyst' };
  const host = createHost({ approval: { request: async ({ deferrable }) => (deferrable ? 'defer' : 'deny') } });
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 }, durable: { store: options.store ?? createMemoryRunStore(), keys: { current: options.key } } });
  host.register(runCode);
  const suspensions: (RunSuspension & { threadId: string })[] = []; // server-side: the token is a secret
  // onSuspended does not know the thread; the call id does: its ToolMessage is in the thread.
  const byCall = new Map<string, RunSuspension>();
  const tools = toLangChainTools(host, { agent, onSuspended: (s) => void byCall.set(s.toolCallId, s) });
  const bound = options.model.bindTools!(tools);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state, config) => ({ messages: [await bound.invoke(state.messages, config)] }))
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer: options.checkpointer ?? new MemorySaver() });

  async function send(thread: string, message: BaseMessage): Promise<BaseMessage[]> {
    const { messages } = (await graph.invoke({ messages: [message] }, { configurable: { thread_id: thread }, recursionLimit: 10 })) as { messages: BaseMessage[] };
    for (const m of messages) {
      const s = ToolMessage.isInstance(m) ? byCall.get(m.tool_call_id) : undefined;
      if (!s) continue;
      byCall.delete(s.toolCallId);
      suspensions.push({ ...s, threadId: thread });
    }
    return messages;
  }

  return {
    suspensions,
    /** The user asks on `thread`; the model may write a program that suspends. */
    ask: (thread: string, prompt: string) => send(thread, new HumanMessage(prompt)),
    /** A person decided every pending call of `suspension`: resume, send the outcome to its thread. */
    async decide(suspension: RunSuspension & { threadId: string }, decision: 'allow-once' | 'deny', by: string) {
      const resumed = await resumeLangChainRun(runCode, suspension, { agent, decisions: suspension.pending.map((p) => ({ approvalId: p.approvalId, decision, by })) });
      if (resumed.suspension) suspensions.push({ ...resumed.suspension, threadId: suspension.threadId });
      return { resumed, messages: await send(suspension.threadId, resumed.message) };
    },
    close: () => runCode.close(),
  };
}

if (process.argv[1]?.endsWith('durable-langchain.js')) {
  const { fakeModel } = await import('@langchain/core/testing');
  const { AIMessage } = await import('@langchain/core/messages');
  const model = fakeModel()
    .respondWithTools([{ id: 'call_1', name: 'run_code', args: { code: FLAG_PROGRAM } }])
    .respond(new AIMessage('Flagging needs a person to approve; I will go on once they decide.'))
    .respond(new AIMessage('Done: the expense is flagged.'));
  const app = createDurableLangGraphApp({ model, key: 'example-key-'.padEnd(32, '0') });
  try {
    await app.ask('thread-1', FLAG_PROMPT);
    const { messages } = await app.decide(app.suspensions[0]!, 'allow-once', 'ops@example.com');
    console.log(messages.at(-1)?.content);
  } finally {
    await app.close();
  }
}
