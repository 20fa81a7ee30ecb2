/**
 * `run_result({ runId })`: the model's way to the outcome of its own durable run that suspended
 * waiting for a person. The suspension told the model not to run the program again; once a
 * person decided (an app, or an operator with `ptc runs approve`), the resumed run's final value
 * is in the run store, and this reads it. Only the agent the run was for sees it: any other
 * caller, like an unknown id, reads `unknown` (docs/run-code.md "Durable runs").
 */
import { defineTool, type JsonValue, type Tool } from '../../tools/index.js';
import { markRunResultTool } from '../discovery/index.js';
import type { RunCodeTool } from './run-code-types.js';

/** Options of {@link createRunResultTool}. */
export interface RunResultToolOptions {
  /** The durable run_code tool whose runs it reads. */
  readonly runCode: RunCodeTool;
  /** Default `run_result`. */
  readonly name?: string;
}

/** Creates the `run_result` tool over a durable run_code's store. Register it beside run_code. */
export function createRunResultTool(options: RunResultToolOptions): Tool<{ runId: string }, JsonValue> {
  const { runCode } = options;
  const tool = defineTool({
    name: options.name ?? 'run_result',
    description:
      `The outcome of a ${runCode.name} run that suspended because a person must decide: its final value once they decided and it finished ` +
      `(status "completed" or "failed"), what it still waits for ("suspended"), or "unknown". Use it instead of running the program again.`,
    parameters: { runId: { type: 'string', required: true, description: 'The runId the suspension named' } },
    isConcurrencySafe: true,
    async execute(args, exec) {
      return (await runCode.runResult({ runId: args.runId, ...(exec.agent ? { agent: exec.agent } : {}) })) as unknown as JsonValue;
    },
  }) as Tool<{ runId: string }, JsonValue>;
  markRunResultTool(tool);
  return tool;
}
