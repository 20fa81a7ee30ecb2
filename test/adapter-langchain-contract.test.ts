/** ptc-runtime/langchain against the shared adapter contract: LangGraph's ToolNode graph and a loop around runToolCalls. */
import { describeAdapterContract } from './adapter-contract.js';
import { langGraphDriver, runToolCallsDriver } from './support/langchain-driver.js';

const traits = { deniedForm: false, frameworkApproval: false, abortRejects: true, exposesValue: true } as const;

// An aborted graph run rejects (LangGraph checks its signal between steps).
describeAdapterContract('ptc-runtime/langchain, a LangGraph agent graph with ToolNode', langGraphDriver, traits);
// runToolCalls resolves with the aborted call's error message, and the loop goes on to the scripted
// model, which does not look at the signal (a provider's model would pass it to its request).
describeAdapterContract('ptc-runtime/langchain, a loop of your own with runToolCalls', runToolCallsDriver, { ...traits, abortRejects: false });
