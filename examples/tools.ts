/**
 * The bundled example tool set: a team directory, expense records and budgets, and a read-only
 * document store, with the example policy (an approval listener and a confidentiality guard).
 *
 * `ptc run|codegen|mcp serve --tools examples/tools.ts` loads this module. It exports `createHost`
 * (a fresh host with tools and policy, taking the usual host options), and `tools` (a default
 * tool set). Each `createExampleTools()` call has its own flag store.
 */
import { createToolHost, type Tool, type ToolHost, type ToolHostOptions } from '../tools/index.js';
import { teamGet, teamList } from './tools/directory.js';
import { docsRead, docsSearch } from './tools/documents.js';
import { createExpenseTools } from './tools/expenses.js';
import { installExamplePolicy } from './policy.js';

export { askBeforeFlagging, confidentialDocumentGuard, installExamplePolicy } from './policy.js';

/** A fresh example tool set (team_list, team_get, expenses_list, budget_get, expense_flag, docs_search, docs_read). */
export function createExampleTools(): Tool[] {
  return [teamList, teamGet, ...createExpenseTools(), docsSearch, docsRead];
}

/** A host with the example tools and the example policy installed. */
export function createHost(options: ToolHostOptions = {}): ToolHost {
  const host = createToolHost(options);
  host.register(createExampleTools());
  installExamplePolicy(host);
  return host;
}

/** The default example tool set (without policy; use `createHost` for tools plus policy). */
export const tools: readonly Tool[] = createExampleTools();
