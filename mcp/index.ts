/**
 * MCP, both directions: import tools from stdio MCP servers into a host (`importMcpServers`),
 * and serve a host's `run_code` (and optionally its tools) over stdio (`createMcpServer`).
 * Needs the optional peer dependency `@modelcontextprotocol/sdk`.
 */
export { checkServerSpecs, deriveServerName, parseMcpCommandLine, parseMcpConfig, readMcpConfig, splitCommandLine } from './config.js';
export type { McpServerSpec } from './config.js';
export { McpConfigError, McpMessageTooLargeError, McpServerStartError } from './errors.js';
export { importMcpServers, MAX_MCP_DESCRIPTION_CHARS, mcpContentText, mcpToolName } from './import.js';
export type { ImportMcpOptions, McpImport, SkippedMcpTool } from './import.js';
export { createMcpServer, MAX_STDIO_MESSAGE_BYTES, mcpApprovalChannel, serveMcpStdio, toMcpResult } from './serve.js';
export type { McpApprovalChannel, McpServeOptions } from './serve.js';
