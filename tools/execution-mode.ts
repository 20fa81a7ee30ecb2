/**
 * Fail-closed execution modes: only `isConcurrencySafe === true`, or a function that returns
 * exactly `true` for the validated args, is parallel. Omitted, `false`, truthy non-`true`
 * values, a throwing function, a non-`true` return (a Promise included), or args that do not
 * validate: exclusive.
 */
import type { Tool } from './tool-types.js';
import { materializeArgsForMode } from './args-snapshot.js';
import type { ToolExecutionMode } from './types.js';

const PARALLEL: ToolExecutionMode = Object.freeze({ kind: 'parallel' });
const EXCLUSIVE: ToolExecutionMode = Object.freeze({ kind: 'exclusive' });

/** The mode of a call to `tool` with raw `args` (undefined tool: exclusive). */
export function executionModeOf(tool: Tool | undefined, args: unknown): ToolExecutionMode {
  const flag = tool?.isConcurrencySafe;
  if (flag !== true && typeof flag !== 'function') return EXCLUSIVE;
  try {
    // A program's parsed args are materialized once, here, for the pipeline too (args-snapshot.ts).
    const materialized = materializeArgsForMode(tool!.parameters, args);
    if (!materialized.ok) return EXCLUSIVE;
    if (flag === true) return PARALLEL;
    const answer: unknown = flag(materialized.args);
    if (answer instanceof Promise) answer.catch(() => {});
    return answer === true ? PARALLEL : EXCLUSIVE;
  } catch {
    return EXCLUSIVE;
  }
}
