/**
 * `ptc-runtime/cordis`: tool plugins in the cordis style. `ToolsService` is a cordis 3 service
 * named `tools` backed by a tool host; `defineTool` and friends are re-exported so a plugin
 * needs only this import. `cordis` is an optional peer dependency: only this subpath loads it.
 */
export { ToolsService } from './tools-service.js';
export type { ScopedDisposable, ToolsServiceConfig } from './tools-service.js';
export { createToolsContext, isCordisPlugin, loadToolPlugin, ToolPluginError } from './load-plugin.js';
export type { CordisPluginModule, LoadedToolPlugin } from './load-plugin.js';
export { createJobTools, decision, defineTool } from '../tools/index.js';
export type { Tool, ToolDefinition, ToolHost } from '../tools/index.js';
