/** Factories shared by the run_code tests (not part of the build's public surface). */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createToolHost, defineTool, type ApprovalChannel, type ToolEvent, type ToolHost, type ToolResult } from '../tools/index.js';
import { createRunCodeTool, type RunCodeOptions, type RunCodeTool, type RunCodeValue } from '../runtime/index.js';
import type { ProgramRunner } from '../runtime/index.js';
import { createVmRunnerForBenchmarks } from '../runtime/run-code/vm-runner.js';

/** The isolation modes whose runner exists in this tree ('vm' only while none does). */
export function runnerModes(): ('isolate' | 'process' | 'vm')[] {
  const has = (dir: string) => existsSync(fileURLToPath(new URL(`../runtime/${dir}/index.ts`, import.meta.url)));
  const modes: ('isolate' | 'process' | 'vm')[] = [];
  if (has('isolate')) modes.push('isolate');
  if (has('sandbox-process')) modes.push('process');
  return modes.length > 0 ? modes : ['vm'];
}

/** Options for a run_code tool in one of the modes. */
export function modeOptions(mode: 'isolate' | 'process' | 'vm'): Pick<RunCodeOptions, 'isolation' | 'runner'> {
  if (mode === 'vm') return { runner: createVmRunnerForBenchmarks() as ProgramRunner };
  return { isolation: mode };
}

/** Instrumented tools: each records when it starts and ends, so overlap is measured, not timed. */
export function instrumentedTools() {
  const timeline: { tool: string; event: 'start' | 'end'; at: number }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let exclusiveOverlap = 0;
  let exclusiveRunning = 0;
  const track = async <T>(tool: string, exclusive: boolean, work: () => Promise<T> | T): Promise<T> => {
    if (exclusive && inFlight > 0) exclusiveOverlap++;
    if (!exclusive && exclusiveRunning > 0) exclusiveOverlap++;
    inFlight++;
    if (exclusive) exclusiveRunning++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    timeline.push({ tool, event: 'start', at: timeline.length });
    try {
      return await work();
    } finally {
      inFlight--;
      if (exclusive) exclusiveRunning--;
      timeline.push({ tool, event: 'end', at: timeline.length });
    }
  };
  const tick = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const tools = [
    defineTool({
      name: 'echo',
      description: 'Echo the text.',
      parameters: { text: { type: 'string', required: true } },
      output: { schema: { type: 'object', properties: { echoed: { type: 'string', required: true } } } },
      isConcurrencySafe: true,
      execute: (args) => track('echo', false, () => ({ echoed: args.text })),
    }),
    defineTool({
      name: 'wait',
      description: 'Wait some milliseconds, in parallel with other calls.',
      parameters: { ms: { type: 'number', required: true } },
      output: { schema: { type: 'number' } },
      isConcurrencySafe: true,
      execute: (args, exec) => track('wait', false, () => (exec.signal.aborted ? 0 : tick(args.ms).then(() => args.ms))),
    }),
    defineTool({
      name: 'write',
      description: 'Write something (exclusive: never overlaps a sibling).',
      parameters: { key: { type: 'string', required: true } },
      output: { schema: { type: 'string' } },
      execute: (args) => track('write', true, () => tick(2).then(() => `wrote ${args.key}`)),
    }),
    defineTool({
      name: 'fail',
      description: 'Always fails.',
      execute: () => {
        throw new Error('disk on fire');
      },
    }),
    defineTool({
      name: 'secret',
      description: 'Returns a secret record.',
      output: { schema: { type: 'object', properties: { value: { type: 'string', required: true } } } },
      execute: () => ({ value: 'the real secret' }),
    }),
  ];
  return {
    tools,
    timeline,
    get maxInFlight() {
      return maxInFlight;
    },
    get exclusiveOverlap() {
      return exclusiveOverlap;
    },
  };
}

/** A host with the instrumented tools and a run_code tool in `mode`. */
export function runCodeHost(mode: 'isolate' | 'process' | 'vm', options: Omit<RunCodeOptions, 'isolation' | 'runner'> & { approval?: ApprovalChannel; approvalTimeoutMs?: number } = {}) {
  const events: ToolEvent[] = [];
  const { approval, approvalTimeoutMs, ...runOptions } = options;
  const host: ToolHost = createToolHost({ onEvent: (e) => events.push(e), ...(approval ? { approval } : {}), ...(approvalTimeoutMs ? { approvalTimeoutMs } : {}) });
  const instrumented = instrumentedTools();
  host.register(instrumented.tools);
  const runCode: RunCodeTool = createRunCodeTool({ ...runOptions, ...modeOptions(mode), host });
  host.register(runCode);
  let n = 0;
  const run = (code: string, signal?: AbortSignal): Promise<ToolResult> =>
    host.call({ id: `run_${++n}`, name: 'run_code', args: { code } }, { agent: { id: 'agent-1' }, ...(signal ? { signal } : {}) });
  const value = async (code: string): Promise<RunCodeValue> => {
    const result = await run(code);
    if (result.isError) throw new Error(`run_code failed: ${result.error?.message}`);
    if (result.value && typeof result.value === 'object' && 'rejected' in result.value) throw new Error(`run_code rejected the program: ${JSON.stringify(result.value)}`);
    return result.value as unknown as RunCodeValue;
  };
  return { host, events, run, value, runCode, instrumented };
}
