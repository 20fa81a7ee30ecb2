/**
 * What an imported tool carried that our `Tool` has no field for, kept so `ptc mcp serve`
 * re-serves it as the server listed it: its annotations (`readOnlyHint` and the rest: the
 * server's claims, passed on as claims) and its input schema's `$schema` dialect.
 */
import type { Tool } from '../tools/index.js';

/** The MCP fields of an imported tool. */
export interface McpToolMeta {
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly inputSchemaDialect?: string;
}

const meta = new WeakMap<Tool, McpToolMeta>();

/** Records an imported tool's MCP fields (done by the import). */
export function setMcpToolMeta(tool: Tool, value: McpToolMeta): void {
  meta.set(tool, value);
}

/** An imported tool's MCP fields, if it was imported. */
export function mcpToolMetaOf(tool: Tool): McpToolMeta | undefined {
  return meta.get(tool);
}
