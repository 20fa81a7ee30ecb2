import type { AIMessage, ToolMessage } from '@langchain/core/messages';
import type { StructuredTool, StructuredToolInterface } from '@langchain/core/tools';
import { fakeModel } from '@langchain/core/testing';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { describe, expectTypeOf, it } from 'vitest';
import type { ToolHost } from '../tools/index.js';
import { runToolCalls, toLangChainTools, type HostStructuredTool, type LangChainToolsOptions, type RunToolCallsOptions } from './index.js';

describe('the public types of ptc-runtime/langchain', () => {
  it('take a host and options, and give structured tools', () => {
    expectTypeOf(toLangChainTools).parameters.toEqualTypeOf<[ToolHost, LangChainToolsOptions?]>();
    expectTypeOf(toLangChainTools).returns.toEqualTypeOf<HostStructuredTool[]>();
    expectTypeOf<HostStructuredTool[]>().toMatchTypeOf<StructuredTool[]>();
    expectTypeOf<HostStructuredTool>().toMatchTypeOf<StructuredToolInterface>();
  });

  it('fit where LangChain and LangGraph take tools', () => {
    const tools = toLangChainTools({} as ToolHost);
    void (() => new ToolNode(tools));
    void (() => fakeModel().bindTools(tools));
  });

  it('resolve to a ToolMessage however they are invoked, and carry no any', () => {
    const [tool] = toLangChainTools({} as ToolHost);
    expectTypeOf(tool!.invoke({ id: 'c', name: 'x', args: {}, type: 'tool_call' })).toEqualTypeOf<Promise<ToolMessage>>();
    expectTypeOf(tool!.invoke({ q: 'bare' })).toEqualTypeOf<Promise<ToolMessage>>();
    expectTypeOf(runToolCalls).returns.toEqualTypeOf<Promise<ToolMessage[]>>();
    expectTypeOf(runToolCalls).parameter(1).toMatchTypeOf<Pick<AIMessage, 'tool_calls'>>();
    expectTypeOf<LangChainToolsOptions['agent']>().not.toBeAny();
    expectTypeOf<RunToolCallsOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>();
  });
});
