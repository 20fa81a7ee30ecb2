/** ptc-runtime/anthropic against the shared adapter contract: the manual loop and the SDK's tool runner. */
import { describeAdapterContract } from './adapter-contract.js';
import { anthropicLoopDriver, anthropicRunnerDriver } from './support/anthropic-driver.js';

const traits = { deniedForm: false, frameworkApproval: false, abortRejects: true, exposesValue: false } as const;

describeAdapterContract('ptc-runtime/anthropic, messages.create with runToolUses', anthropicLoopDriver, traits);
describeAdapterContract('ptc-runtime/anthropic, the SDK\'s toolRunner', anthropicRunnerDriver, traits);
