/**
 * The run_code description: how to write a program, the limits that bound it, and the generated
 * declarations of the visible tools. This is all the model learns about PTC, so it is short,
 * concrete and exact about failure (ToolCallError, denials are final) and about spill.
 */
import type { RunLimits } from '../program-runner.js';

/** The description for a tool set's declarations (`undefined` before a host is known). */
export function runCodeDescription(limits: RunLimits, declarations: string | undefined): string {
  const parts = [
    'Run a TypeScript program that calls tools, and get back only what it returns.',
    'Write the body of an async function: call tools with `await tools.<name>(args)`, filter and join their results in code, and `return` a JSON value. `console.log` output is captured and returned too.',
    'Calls you do not await one after another run concurrently: `await Promise.all([tools.a(x), tools.b(y)])`.',
    'A call that fails throws `ToolCallError` (`name`, `toolName`, `message`; `e instanceof ToolCallError` works). A call denied by policy also throws; a denial is final: do not retry it or work around it.',
    'Every call goes through the same policy, approvals and audit as a direct call. Tool results stay inside the program unless you return or log them, so return only what you need.',
    'There is no `require`, `import`, `process`, `fetch` or timers; only `tools`, `ToolCallError`, `console` and the standard JavaScript built-ins.',
    `Limits: ${limits.cpuMs} ms CPU, ${limits.wallMs} ms wall time, ${limits.memoryMb} MB memory, ${limits.maxCalls} tool calls (${limits.maxInFlight} at once). Hitting one ends the run with an error naming it.`,
    `If the result plus logs exceed ${limits.maxOutputBytes} bytes, the larger part is replaced by { spilled: { id, bytes }, head, tail }: it is kept whole, but you see only its start and end, so return less.`,
  ];
  if (declarations !== undefined) parts.push('The tools available to the program:', '```ts', declarations.trim(), '```');
  return parts.join('\n');
}
