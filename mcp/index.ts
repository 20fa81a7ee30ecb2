/**
 * MCP, both directions: import tools from MCP servers, stdio or Streamable HTTP, into a host
 * (`importMcpServers`), and serve a host's `run_code` (and optionally its tools) over stdio
 * (`serveMcpStdio`, `createMcpServer`) or Streamable HTTP (`serveMcpHttp`).
 * Needs the optional peer dependency `@modelcontextprotocol/sdk`.
 */
export { checkServerSpecs, deriveServerName, deriveServerNameFromUrl, describeServer, expandEnv, isHttpServerSpec, parseMcpCommandLine, parseMcpConfig, readMcpConfig, splitCommandLine } from './config.js';
export type { McpHttpServerSpec, McpServerSpec, McpStdioServerSpec } from './config.js';
export { acceptAnyStructuredContent, MAX_TOOLS_PER_SERVER } from './connect-server.js';
export { McpAuthError, McpConfigError, McpMessageTooLargeError, McpServerStartError } from './errors.js';
export { boundedFetch, MAX_HTTP_MESSAGE_BYTES } from './http-client.js';
export { declineElicitation, importMcpServers, MAX_MCP_DESCRIPTION_CHARS, MAX_MCP_SERVER_SCHEMA_CHARS, MAX_MCP_TOOL_SCHEMA_CHARS, mcpContentText, mcpToolName, TEXT_RESULT_NOTE } from './import.js';
export type { ImportMcpOptions, McpElicitationHandler, McpImport, SkippedMcpTool } from './import.js';
export { createOAuthProvider, McpOAuthProvider } from './oauth.js';
export type { McpOAuthOptions, OAuthProviderContext } from './oauth.js';
export { createFileTokenStore, createMemoryTokenStore, defaultTokenDir, defaultTokenPath } from './oauth-store.js';
export type { McpOAuthState, McpTokenStore } from './oauth-store.js';
export { redactSecrets, redactUrl } from '../tools/index.js';
export { createMcpServer, MAX_STDIO_MESSAGE_BYTES, mcpApprovalChannel, serveMcpStdio, toMcpResult } from './serve.js';
export type { McpApprovalChannel, McpServeOptions } from './serve.js';
export { serveMcpHttp } from './serve-http.js';
export type { McpHttpServeOptions, McpHttpServer, McpHttpRequestInfo, McpPrincipal } from './serve-http.js';
