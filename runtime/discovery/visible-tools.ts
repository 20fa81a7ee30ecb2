/**
 * Which tools a program sees, and their generated types, shared by run_code and tool_search so
 * both speak of the same set with the same names.
 *
 * Tools that describe other tools (every run_code tool, every tool_search tool) are never
 * visible to programs: no nested runs, no description that lists itself, and no tool_search
 * inside a program: a program is type-checked before it runs, so a declaration it found at run
 * time could never type the program that found it; the model reads declarations, the program
 * does not need them. Nor is `spill_read` (run_code's companion): a spill exists because the
 * model's context has a cap, and a program has none (its intermediate values are uncapped), so
 * paging is for the model; the data a program needs it gets from the tools themselves. Nor is
 * `run_result` (a durable run_code's companion): it reads runs that waited for a person, which is
 * the model's business between turns, and a program that could read it would change the tool set
 * a suspended run is bound to just by being registered. They are
 * marked here when they are created, by identity, so a user's own tool that happens to be named
 * `tool_search` stays an ordinary tool.
 *
 * Generating declarations for a large set costs real time (hundreds of milliseconds for 500
 * tools), so the last few sets are remembered by the identity of their tools: run_code's check
 * and tool_search's declarations of one set are generated once.
 */
import { generateToolTypes, type GeneratedToolTypes } from '../../codegen/index.js';
import type { Tool, ToolHost } from '../../tools/index.js';

const RUN_CODE_TOOLS = new WeakSet<object>();
const SEARCH_TOOLS = new WeakSet<object>();
const SPILL_READ_TOOLS = new WeakSet<object>();
const RUN_RESULT_TOOLS = new WeakSet<object>();

/** Marks a tool as a run_code tool (never visible to programs, never listed). */
export function markRunCodeTool(tool: object): void {
  RUN_CODE_TOOLS.add(tool);
}

/** Marks a tool as a tool_search tool (never visible to programs, never listed). */
export function markToolSearchTool(tool: object): void {
  SEARCH_TOOLS.add(tool);
}

/** Marks a tool as a spill_read tool (never visible to programs). */
export function markSpillReadTool(tool: object): void {
  SPILL_READ_TOOLS.add(tool);
}

/** Marks a tool as a run_result tool (never visible to programs). */
export function markRunResultTool(tool: object): void {
  RUN_RESULT_TOOLS.add(tool);
}

/** True for a run_code tool (made by `createRunCodeTool`). */
export function isRunCodeTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && RUN_CODE_TOOLS.has(tool);
}

/** True for a spill_read tool (made with a run_code tool). */
export function isSpillReadTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && SPILL_READ_TOOLS.has(tool);
}

/** True for a tool made by `createToolSearchTool`. */
export function isToolSearchTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && SEARCH_TOOLS.has(tool);
}

/** True for a tool that describes other tools (run_code, tool_search). */
export function isDiscoveryTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && (RUN_CODE_TOOLS.has(tool) || SEARCH_TOOLS.has(tool));
}

/**
 * The tools a program of this host sees, in registration order: every tool except run_code,
 * tool_search, spill_read and run_result tools (and, when given, any tool named `exclude`: the calling
 * run_code's own name).
 */
export function visibleTools(host: ToolHost, exclude?: string): Tool[] {
  return host.tools().filter((t) => !isDiscoveryTool(t) && !isSpillReadTool(t) && !RUN_RESULT_TOOLS.has(t) && t.name !== exclude);
}

/** The spill_read tool registered on this host, if any. */
export function spillReadToolOf(host: ToolHost): Tool | undefined {
  return host.tools().find(isSpillReadTool);
}

/** The tool_search tool registered on this host, if any (the first one). */
export function searchToolOf(host: ToolHost): Tool | undefined {
  return host.tools().find(isToolSearchTool);
}

const REMEMBERED_SETS = 4;
const remembered: { tools: readonly Tool[]; types: GeneratedToolTypes }[] = [];

/** `generateToolTypes(tools)`, remembered for the last few tool sets (by the identity of each tool, in order). */
export function toolTypesOf(tools: readonly Tool[]): GeneratedToolTypes {
  const at = remembered.findIndex((r) => r.tools.length === tools.length && r.tools.every((t, i) => t === tools[i]));
  if (at >= 0) {
    const [hit] = remembered.splice(at, 1);
    remembered.unshift(hit!);
    return hit!.types;
  }
  const types = generateToolTypes(tools);
  remembered.unshift({ tools: [...tools], types });
  remembered.length = Math.min(remembered.length, REMEMBERED_SETS);
  return types;
}
