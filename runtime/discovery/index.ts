/**
 * Progressive discovery for large catalogs: the description budget, the one-line tool index
 * run_code's description falls back to, and `tool_search`, which gives the model the exact
 * declarations of the tools it asks for (docs/run-code.md "Large catalogs").
 */
export { DEFAULT_DESCRIPTION_BUDGET, estimateTokens, MIN_DESCRIPTION_TOKENS, resolveDescriptionBudget } from './description-budget.js';
export type { DescriptionBudget } from './description-budget.js';
export { indexLine, MAX_SUMMARY_CHARS, summaryOf, toolIndexListing } from './tool-index.js';
export type { IndexEntry, ToolIndexListing } from './tool-index.js';
export { ToolSearchIndex } from './search-index.js';
export type { SearchHit } from './search-index.js';
export { createToolSearchTool, defaultToolRanker, TOOL_SEARCH_LIMITS } from './tool-search-tool.js';
export type { ToolRanker, ToolRanking, ToolSearchMatch, ToolSearchOptions, ToolSearchTool, ToolSearchValue } from './tool-search-tool.js';
export { isDiscoveryTool, isRunCodeTool, isSpillReadTool, isToolSearchTool, markRunCodeTool, markRunResultTool, markSpillReadTool, searchToolOf, spillReadToolOf, toolTypesOf, visibleTools } from './visible-tools.js';
